"""Adding TLS sites to an nginx tree that already exists (`generate --into`)."""
