"""Cipher strings evaluated the way the target's TLS library does (engine.py), over the
libraries' suite tables (model.py, suites.py)."""
