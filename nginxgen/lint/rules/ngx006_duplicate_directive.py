"""The same directive twice in one block (includes count: what they bring in stands where the
`include` line is).

For most directives nginx refuses the config: `"ssl_prefer_server_ciphers" directive is
duplicate` (an error here). A few it accepts and combines silently (a warning here):
`ssl_protocols` is a bitmask, so Debian 12's `ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;` in
`nginx.conf` plus `ssl_protocols TLSv1.2 TLSv1.3;` in an included file at the same level leaves
TLS 1.0 and 1.1 on, with only a `[warn] duplicate value` from `nginx -t`.

Fail (what `include conf.d/*.conf;` brings into http{} here is `ssl_protocols TLSv1.2 TLSv1.3;`):
    http { ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
           ssl_protocols TLSv1.2 TLSv1.3; }
Fix (keep one line per block: change the first one instead of adding a second):
    http { ssl_protocols TLSv1.2 TLSv1.3; }

A MIME type named twice in one block's gzip_types (ssi_types, sub_filter_types, addition_types,
xslt_types), its lines together and the type each starts with (text/html; text/xml for xslt),
is a warning in nginx's words: `gzip_types text/html text/css;` says `duplicate MIME type
"text/html"`. root and alias in one location: nginx refuses the second (`"alias" directive is
duplicate, "root" directive was specified earlier`).

A file extension named twice in one block's types (its types{} blocks and the files they
include make one table) is the same kind of warning: nginx keeps the last content type and
says `duplicate extension "wasm", content type: ..., previous content type: ...`. A types{}
at another level is a table of its own.

Two balancing methods in one upstream{} (hash, ip_hash, least_conn, random): nginx keeps the
later and warns `load balancing method redefined` (a warning here, at the later line). Before
nginx 1.29.7 `keepalive` counts as one: a method after it takes its place, and the block keeps
no connection to its servers (put the method first, as the keepalive documentation says).

Which directives nginx refuses twice is read from its source for each release (the setters that
return "is duplicate" once the value is set: `try_files`, `root`, `proxy_pass`, the flag, size
and time slots, ...; scripts/build_directive_tables.py).

Sources: nginx src/core/ngx_conf_file.c (ngx_conf_set_flag_slot and the other slots return
"is duplicate"; ngx_conf_set_bitmask_slot ORs the values); src/http/ngx_http_core_module.c
(ngx_http_core_type: duplicate extension); the balancing methods' handlers and
ngx_http_upstream_keepalive (nginx commit 4fbe4b627 for 1.29.7); reproduced with `nginx -t` on nginx
1.22.1, 1.26.3 and 1.31.3.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Location, directives_of
from nginxgen.conf.load import Stmt, walk
from nginxgen.conf.upstream import keepalive_dropped_by
from nginxgen.knowledge import directives, nginx, nginx_values
from nginxgen.lint.context import Context, Rule, seen_at
from nginxgen.lint.findings import Applicability, Finding, Fix, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX006",
    name="duplicate-directive",
    severity=Severity.ERROR,
    fix="keep one line of it in this block",
    otherwise=(
        (
            Severity.WARNING,
            "nginx combines the repeated lines (ssl_protocols) instead of refusing them",
        ),
    ),
    autofix=(
        Applicability.SAFE,
        "deletes a second line that repeats the first exactly; with --unsafe-fixes, a merged "
        "directive (ssl_protocols) gets the second line's value on the first line instead",
    ),
)


def _blocks(ctx: Context) -> Iterator[tuple[str, dict[str, list[Stmt]]]]:
    """Each block with its context as nginx's tables name it."""
    config = ctx.config

    def locations(locs: list[Location]) -> Iterator[tuple[str, dict[str, list[Stmt]]]]:
        for loc in locs:
            yield "location", loc.directives
            yield from locations(loc.locations)

    loaded = config.loaded
    if not loaded.http_level_top and not loaded.fragment:  # a main file: its top is main
        # (trial 8: `user` in the main file and an include, two http{} or events{} blocks)
        yield "main", directives_of(loaded.statements)
        for events in (s for s in loaded.statements if s.directive == "events" and s.block):
            yield "events", directives_of(events.block or [])
    yield "http", config.http
    for server in config.servers:
        yield "server", server.directives
        yield from locations(server.locations)


def _extensions(ctx: Context, types: list[Stmt]) -> Iterator[Finding]:
    """A file extension twice in a block's types (its types{} blocks and what they include
    make one table): nginx keeps the last content type, with a warning in its words."""
    seen: dict[str, str] = {}
    for entry in (line for stmt in types for line in walk(stmt.block or [])):
        if entry.directive in ("include", "#"):
            continue
        for extension in entry.args:
            key = extension.lower()  # nginx lowers the extension before it compares
            previous = seen.get(key)
            seen[key] = entry.directive
            if previous is None:
                continue
            yield ctx.finding(
                RULE,
                entry,
                f'duplicate extension "{key}", content type: "{entry.directive}", previous '
                f'content type: "{previous}": nginx keeps the last one (nginx -t warns)',
                fix=f"name {key} once in this block's types",
                severity=Severity.WARNING,
                handled=True,  # ngx_http_types, at the entry's `;`
            )


# the MIME types lists (ngx_http_types_slot) and the types each starts with: nginx warns of a
# type given twice, these included (`gzip_types text/html` warns)
MIME_LISTS = {
    "gzip_types": ("text/html",),
    "ssi_types": ("text/html",),
    "sub_filter_types": ("text/html",),
    "addition_types": ("text/html",),
    "xslt_types": ("text/xml",),
}


def _mime_types(ctx: Context, block: dict[str, list[Stmt]]) -> Iterator[Finding]:
    """A MIME type twice in one block's list (its lines make one list, which starts with the
    directive's default types): nginx keeps one and warns `duplicate MIME type "text/html"`."""
    for name, defaults in MIME_LISTS.items():
        seen = set(defaults)
        for stmt in block.get(name, []):
            for value in stmt.args:
                key = value.lower()  # nginx lowers the type before it compares
                if key == "*":
                    continue
                if key in seen:
                    implied = " (always in the list)" if key in defaults else ""
                    yield ctx.finding(
                        RULE,
                        stmt,
                        f'duplicate MIME type "{key}"{implied}: nginx -t warns',
                        fix=f"name {key} once in {name}"
                        + (f" ({key} needs no mention)" if implied else ""),
                        severity=Severity.WARNING,
                        handled=True,  # ngx_http_types_slot
                    )
                seen.add(key)


def _off_alone(ctx: Context, stmts: list[Stmt]) -> Iterator[Finding]:
    """The first line nginx refuses of a directive whose `off` stands alone in its block
    (nginx_values.toml [off_alone]): a line after `off`, or `off` after another line."""
    for index, stmt in enumerate(stmts[1:], 1):
        earlier_off = any(s.args == ["off"] for s in stmts[:index])
        if earlier_off or stmt.args == ["off"]:
            yield ctx.finding(
                RULE,
                stmt,
                f'"{stmt.directive}" directive is duplicate: `{stmt.directive} off` and another '
                f"{stmt.directive} line in one block (also at {stmts[0].file}:{stmts[0].line}); "
                "nginx refuses the config",
                fix=f"keep either `{stmt.directive} off;` or the other {stmt.directive} lines",
                handled=True,
            )
            return


def _root_and_alias(ctx: Context, block: dict[str, list[Stmt]]) -> Iterator[Finding]:
    """root and alias in one location: nginx takes the first and refuses the second in the
    words of its duplicate check."""
    roots, aliases = block.get("root", []), block.get("alias", [])
    if not roots or not aliases:
        return
    order = ctx.memo("reading order", lambda: {
        id(s): at for at, s in enumerate(walk(ctx.config.loaded.statements))})  # fmt: skip
    root, alias = roots[0], aliases[0]
    first, second = (
        (root, alias) if order.get(id(root), 0) < order.get(id(alias), 0) else (alias, root)
    )
    yield ctx.finding(
        RULE,
        second,
        f'"{second.directive}" directive is duplicate, "{first.directive}" directive was '
        f"specified earlier ({first.file}:{first.line}): nginx refuses the config",
        fix="keep one of root and alias in this location",
        handled=True,
    )


def check(ctx: Context) -> Iterator[Finding]:
    if "upstream" in ctx.directive_names():
        yield from _redefined_methods(ctx)
    merged = nginx.duplicates().merged
    off_alone = nginx_values.off_alone()
    names = ctx.directive_names()
    lists = "types" in names, not names.isdisjoint(MIME_LISTS)  # most trees have neither
    for context, block in _blocks(ctx):
        if lists[0]:
            yield from _extensions(ctx, block.get("types", []))
        if lists[1]:
            yield from _mime_types(ctx, block)
        if context == "location":
            yield from _root_and_alias(ctx, block)
        for name in off_alone.intersection(block):
            yield from _off_alone(ctx, block[name])
        for name, stmts in block.items():
            if len(stmts) < 2 or name in merged:
                continue
            if not directives.refused_twice(ctx.target, name, context):
                continue
            for stmt in stmts[1:]:
                # the same value twice: dropping the copy is safe (nginx refused it anyway);
                # never a block (a second http{} holds servers of its own). `is duplicate` is
                # the setter's word: named at the line's end, as nginx names it (handled)
                same = stmt.args == stmts[0].args and stmt.block is None
                yield ctx.finding(
                    RULE,
                    stmt,
                    f'"{name}" directive is duplicate: also at {stmts[0].file}:{stmts[0].line} '
                    "in the same block; nginx refuses the config",
                    edits=_fixes.delete(ctx, stmt) if same else None,
                    handled=True,
                )
        for name in merged.intersection(block):
            stmts = block[name]
            # one fix for all the lines at once (the same on each finding): pairwise, ten
            # repeats took more than the ten passes `--fix` allows (found by the fix fuzz)
            edits = _merge_into_first(ctx, stmts) if len(stmts) > 1 else None
            for stmt in stmts[1:]:
                first = stmts[0]
                yield ctx.finding(
                    RULE,
                    stmt,
                    f"{name} again in the same block ({first.file}:{first.line} has "
                    f"{' '.join(first.args)}): nginx combines both lines instead of using this one",
                    fix=f"change the first {name} line and drop this one",
                    severity=Severity.WARNING,
                    # unsafe: the merged protocols (TLS 1.0/1.1 from Debian's line) go away
                    autofix=Applicability.UNSAFE,
                    edits=edits,
                )


def _redefined_methods(ctx: Context) -> Iterator[Finding]:
    """A balancing method's line in an upstream{} that has one above it (nginx_values.toml
    [method_redefined]): nginx warns and keeps the later; where it takes keepalive's place
    (conf.upstream.keepalive_dropped_by: before nginx 1.29.7), the block keeps no connections."""
    grammar = nginx_values.custom_grammars()
    message = grammar.method_redefined.message
    for upstream in ctx.named("upstream"):
        family = ctx.top_block(upstream) or ""
        lines = upstream.block or []
        keepalive = next((s for s in lines if s.directive == "keepalive"), None)
        dropping = (
            keepalive_dropped_by(lines, keepalive, ctx.target)
            if keepalive is not None and family == "http"
            else None
        )
        above: Stmt | None = None
        for stmt in lines:
            if (family, stmt.directive) not in grammar.balancing_methods:
                continue
            if stmt is dropping and keepalive is not None:
                lost = (f"the keepalive line at {seen_at(keepalive, stmt)} is dropped and no "
                        "connection to the servers is kept")  # fmt: skip
                fix = f"put {stmt.directive} above keepalive"
            elif above is not None:
                lost = (
                    f"nginx uses {stmt.directive}, not {above.directive} ({seen_at(above, stmt)})"
                )
                fix = f"keep one of {above.directive} and {stmt.directive}"
            else:
                above = stmt
                continue
            above = stmt
            yield ctx.finding(
                RULE, stmt, f"{message}: {lost}", fix=fix, severity=Severity.WARNING, handled=True
            )  # the method's own handler says it


def _merge_into_first(ctx: Context, stmts: list[Stmt]) -> Fix:
    """What the repeats meant: the last line's value on the first line, the others gone."""
    out = _fixes.set_args(ctx, stmts[0], stmts[-1].args)
    for again in stmts[1:]:
        out += _fixes.delete(ctx, again)
    return out
