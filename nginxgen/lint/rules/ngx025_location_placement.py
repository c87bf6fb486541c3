"""A location nginx refuses where it stands: `nginx -t` fails with

- `duplicate location "/a"`: two prefix locations of one name in one block (`^~` or not), or
  two exact ones (`= /a` beside `/a` is fine: nginx joins them);
- `location "/c" is outside location "/a"`: a nested location whose name does not start with its
  parent's (for a regex parent, with the regex's text);
- `location "/a/b" cannot be inside the exact location "/a"` (or `the named location`);
- `named location "@x" can be on the server level only`.

Not judged in a server after a syntax error in its file (NGX001): the blocks may not nest as
written. Regex and named locations may repeat (nginx takes the first that matches, and the first of the
name). Names compare as nginx compares file names on Linux: with their letter case.

Fail:
    location /api/ {
        location /static/ { }
    }
Fix:
    location /api/ {
        location /api/static/ { }
    }

Sources: nginx src/http/ngx_http_core_module.c (ngx_http_core_location) and src/http/ngx_http.c
(ngx_http_init_locations, ngx_http_join_exact_locations); seen with nginx -t on Debian 12's and
13's nginx and nginx 1.31.3 (tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Location
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule, seen_at
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX025",
    name="location-placement",
    severity=Severity.ERROR,
    fix="give each prefix location its own name, and nest a location under one whose name its "
    "own starts with",
    triggers=("location",),
)


def kind_of(stmt: Stmt) -> tuple[str, str] | None:
    """(kind, name) of a location line as nginx reads it: "exact", "prefix" (`^~` too),
    "regex" or "named" (None: arguments nginx refuses otherwise)."""
    args = stmt.args
    if len(args) == 2:
        modifier, name = args
        kinds = {"=": "exact", "^~": "prefix", "~": "regex", "~*": "regex"}
        return (kinds[modifier], name) if modifier in kinds else None
    if len(args) != 1 or not args[0]:
        return None
    name = args[0]
    if name.startswith("=") and len(name) > 1:
        return "exact", name[1:]
    if name.startswith("^~") and len(name) > 2:
        return "prefix", name[2:]
    if name.startswith("~*") and len(name) > 2:
        return "regex", name[2:]
    if name.startswith("~") and len(name) > 1:
        return "regex", name[1:]
    if name.startswith("@"):
        return "named", name
    return "prefix", name


def check(ctx: Context) -> Iterator[Finding]:
    # past a syntax error (NGX001) the blocks may not nest as written: a lost `;` puts the next
    # location inside the one above (crossplane's missing-semicolon test configs)
    syntax = {(p.file, p.line) for p in ctx.config.loaded.problems if p.kind == "syntax"}
    for server in ctx.config.servers:
        if any(file == server.stmt.file and line >= server.stmt.line for file, line in syntax):
            continue
        if server.block != "http":
            continue
        yield from _level(ctx, server.locations, None)


def _level(
    ctx: Context, locations: list[Location], outer: tuple[str, str] | None
) -> Iterator[Finding]:
    """The findings of one level of locations; `outer`: the kind and name of the location
    they are in (None: the server's level)."""
    seen: dict[tuple[str, str], Stmt] = {}
    for location in locations:
        this = kind_of(location.stmt)
        if this is None:
            continue
        kind, name = this
        problem = _inside(kind, name, outer) if outer is not None else None
        # ngx_http_core_location says where a location may not stand as it reads the line, at
        # its `{`, and keeps that line for the duplicate found once http{} is read
        # (ngx_http_add_location, ngx_http_join_exact_locations): both at the `{` (handled)
        if problem is not None:
            yield ctx.finding(RULE, location.stmt, f"{problem}: nginx -t fails", handled=True)
        elif kind in ("exact", "prefix"):
            first = seen.setdefault((kind, name), location.stmt)
            if first is not location.stmt:
                yield ctx.finding(
                    RULE,
                    location.stmt,
                    f'duplicate location "{name}" (the first at {seen_at(first, location.stmt)}):'
                    " nginx -t fails",
                    handled=True,
                )
        if location.locations:
            yield from _level(ctx, location.locations, this)


def _inside(kind: str, name: str, outer: tuple[str, str]) -> str | None:
    """What nginx says of a location of this kind and name inside `outer` (None: nothing)."""
    outer_kind, outer_name = outer
    if outer_kind == "exact":
        return f'location "{name}" cannot be inside the exact location "{outer_name}"'
    if outer_kind == "named":
        return f'location "{name}" cannot be inside the named location "{outer_name}"'
    if kind == "named":
        return f'named location "{name}" can be on the server level only'
    if kind != "regex" and not name.startswith(outer_name):
        return f'location "{name}" is outside location "{outer_name}"'
    return None
