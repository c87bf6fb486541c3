"""Editing nginx configs in place: a lossless model of each file (source.py) that byte-span
edits are made on."""
