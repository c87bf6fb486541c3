"""Floor 1: formats and primitives every other floor stands on (errors, typed
records, versions, certificates' and ECH configs' encodings, how a command prints)."""
