"""The codes of the lint rules that the generator names when it marks a line as chosen on purpose
(`# nginxgen: ignore[NGX401] chosen for legacy clients`). The code is the contract between the
two: each of these rules takes its code from here, and the generator reads it here instead of
importing the linter (tests/house/test_architecture.py keeps generate below lint)."""

from __future__ import annotations

LEGACY_PROTOCOL = "NGX401"
CBC_SHA1_CIPHER = "NGX403"
GROUP_NOT_RECOMMENDED = "NGX204"
TLS13_DISABLED = "NGX409"
HSTS_MISSING = "NGX701"
CLIENT_VERIFY_MISDIRECTED = "NGX743"
CLIENT_REVOCATION_UNCHECKED = "NGX744"
