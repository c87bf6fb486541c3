"""The entries of the blocks that hold keys and values (map, geo, split_clients, types): NGX022
judges their conflicts, NGX023 their hashes."""

from __future__ import annotations

from nginxgen.conf.load import Loaded, Stmt, walk

# entries of a map that are settings, not keys
MAP_WORDS = frozenset({"default", "hostnames", "include", "volatile"})


def entries(block: Stmt) -> list[Stmt]:
    """The block's entries in reading order, those an include brings in its place."""
    return [s for s in walk(block.block or []) if s.directive != "include"]


def map_exact_keys(block: Stmt) -> list[tuple[Stmt, str]]:
    """Each key a map puts in its exact hash, as nginx compares it (lower-cased, a leading `\\`
    dropped; with `hostnames`, `.name` also stands for `name` and the wildcards go to hashes
    of their own), with its entry, in reading order; a key given twice is there twice."""
    found = entries(block)
    hostnames = any(s.directive == "hostnames" and not s.args for s in found)
    keys = []
    for entry in found:
        key = entry.directive
        if len(entry.args) != 1 or key in MAP_WORDS or key.startswith("~"):
            continue  # a setting, a regex, or an entry nginx refuses otherwise (NGX009)
        key = key.removeprefix("\\")
        if hostnames and (key.startswith("*.") or key.endswith(".*")):
            continue
        keys.append((entry, (key[1:] if hostnames and key.startswith(".") else key).lower()))
    return keys


def closing_line(block: Stmt, loaded: Loaded) -> int | None:
    """The line of the `}` that ends the block (where nginx judges its entries as a whole, once
    ngx_conf_parse has read them), as the loader kept it; None where nginx stopped reading
    before it (Loaded.stopped: it never judges them); the block's own line where the loader
    kept none (a statement made elsewhere)."""
    if block.close_line:
        return block.close_line
    return None if loaded.stopped is not None else block.line
