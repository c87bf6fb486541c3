"""Floor 2: reading and writing the user's files (settings, certificates, diffs,
the all-or-none writer, nginx -t around a write)."""
