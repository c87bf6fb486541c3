"""The keys of a `map` or the extensions of a `types` block that nginx cannot hash: a key too
long for a bucket stops `nginx -t` with `could not build map_hash, you should increase
map_hash_bucket_size: 64` (`types_hash` alike); keys too many for the max size draw `could not
build optimal map_hash, you should increase either map_hash_max_size: 2048 or
map_hash_bucket_size: 64; ignoring map_hash_bucket_size`. nginx's own words, naming no file or
line.

nginx puts a map's exact keys (lower-cased; not its regexes, nor with `hostnames` its
wildcards) in a hash with the sizes of http{} (or stream{}): map_hash_max_size 2048,
map_hash_bucket_size the CPU's cache line (64 here: x86-64), as for the server names (NGX018).
A key takes 8 bytes and its length plus 2, aligned to 8, and a bucket keeps 8 bytes for its
end: with 64-byte buckets no key of 47 characters or more fits (a long URI or user agent). A
level's types{} blocks make one hash of their extensions, with that level's types_hash_max_size
(1024) and types_hash_bucket_size (64). The error is on each entry too long; the warning on the
map or types line.

Fail:
    http {
        map $uri $new {
            /a/very/long/path/of/an/old/site/that/moved/page.html /new;
        }
    }
Fix:
    http {
        map_hash_bucket_size 128;
        map $uri $new {
            /a/very/long/path/of/an/old/site/that/moved/page.html /new;
        }
    }

Sources: nginx src/http/modules/ngx_http_map_module.c (ngx_http_map_block, the sizes in
ngx_http_map_init_conf), src/http/ngx_http_core_module.c (ngx_http_core_type,
ngx_http_core_merge_loc_conf: types_hash), src/core/ngx_hash.c (ngx_hash_init) and
ngx_stream_map_module.c; seen with nginx -t on Debian 12's and 13's nginx and nginx 1.31.3
(tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt, walk
from nginxgen.knowledge import header_hashes
from nginxgen.knowledge.header_hashes import CACHELINE, POINTER
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._blocks import entries, map_exact_keys

RULE = Rule(
    code="NGX023",
    name="map-types-hash",
    severity=Severity.WARNING,
    fix="raise map_hash_max_size or map_hash_bucket_size (types_hash_ alike) in http{}",
    otherwise=((Severity.ERROR, "a key too long for a bucket: nginx -t fails"),),
    triggers=("map", "types"),
)
MAP_MAX, TYPES_MAX = 2048, 1024  # nginx's defaults
FAMILIES = ("http", "stream")


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.unread_include():
        return  # an include not read may hold keys or sizes
    for top in ctx.config.loaded.statements:
        if top.directive in FAMILIES and top.block is not None:
            sizes = _sizes(top.block, "map_hash", MAP_MAX, (MAP_MAX, CACHELINE))
            for stmt in walk(top.block):
                if stmt.directive == "map" and stmt.block is not None:
                    yield from _judge(ctx, "map_hash", stmt, _map_keys(stmt), sizes)
            if top.directive == "http":
                yield from _types(ctx, top, (TYPES_MAX, CACHELINE))


def _sizes(
    block: list[Stmt], hash_name: str, default: int, outer: tuple[int, int]
) -> tuple[int, int]:
    """The level's max size and bucket size: its own lines, else the outer level's."""
    max_size, bucket = outer
    for stmt in block:
        if len(stmt.args) == 1 and stmt.args[0].isdigit():
            if stmt.directive == f"{hash_name}_max_size":
                max_size = int(stmt.args[0])
            elif stmt.directive == f"{hash_name}_bucket_size":
                bucket = int(stmt.args[0])
    return max_size, bucket


def _map_keys(block: Stmt) -> list[tuple[Stmt, str]]:
    """The map's exact keys, each once (a key given twice is NGX022's), with their lines."""
    keys: dict[str, Stmt] = {}
    for entry, key in map_exact_keys(block):
        keys.setdefault(key, entry)
    return [(stmt, key) for key, stmt in keys.items()]


def _types(ctx: Context, http: Stmt, outer: tuple[int, int]) -> Iterator[Finding]:
    """Each level's types{} blocks (http, server, location), with that level's sizes."""
    stack: list[tuple[list[Stmt], tuple[int, int]]] = [(http.block or [], outer)]
    while stack:
        block, sizes = stack.pop()
        sizes = _sizes(block, "types_hash", TYPES_MAX, sizes)
        types = [s for s in block if s.directive == "types" and s.block is not None]
        if types:
            extensions: dict[str, Stmt] = {}
            for entry in (e for t in types for e in entries(t)):
                for ext in entry.args:
                    extensions.setdefault(ext.lower(), entry)
            keys = [(stmt, ext) for ext, stmt in extensions.items()]
            yield from _judge(ctx, "types_hash", types[-1], keys, sizes)
        stack.extend(
            (stmt.block, sizes)
            for stmt in block
            if stmt.directive in ("server", "location") and stmt.block is not None
        )


def _judge(
    ctx: Context, hash_name: str, owner: Stmt, keys: list[tuple[Stmt, str]], sizes: tuple[int, int]
) -> Iterator[Finding]:
    if not keys:
        return
    max_size, bucket = sizes[0], header_hashes.align(sizes[1])
    names = tuple(key.encode("utf-8", "surrogateescape") for _, key in keys)
    outcome = header_hashes.build(hash_name, names, frozenset(), max_size, bucket)
    if outcome.kind == "emerg" and outcome.culprit is not None:
        for (stmt, key), name in zip(keys, names, strict=True):
            size = header_hashes.element_size(name) + POINTER
            if size > bucket:
                yield ctx.finding(
                    RULE,
                    stmt,
                    f"{outcome.message}: nginx -t fails (the key {key!r}, {len(name)} characters)",
                    f"{hash_name}_bucket_size {header_hashes.align(size)} in http{{}}, or a "
                    "shorter key",
                    Severity.ERROR,
                )
    elif outcome.kind == "emerg":
        yield ctx.finding(RULE, owner, f"{outcome.message}: nginx -t fails", None, Severity.ERROR)
    elif outcome.kind == "warn":
        yield ctx.finding(
            RULE,
            owner,
            f"{outcome.message} (nginx -t warns so, naming no line, for the {len(keys)} keys "
            f"of {owner.directive} at line {owner.line})",
        )
