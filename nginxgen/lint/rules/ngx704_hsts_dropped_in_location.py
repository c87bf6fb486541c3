"""HSTS set on the server (or http{}) but dropped in a location that has its own add_header.

add_header is inherited only if the current level has no add_header of its own: one
`add_header Cache-Control ...` in a location silently removes the server's HSTS there. nginx
1.29.3 added `add_header_inherit merge;` to keep inherited headers.

Fail:
    add_header Strict-Transport-Security "max-age=63072000" always;
    location /static/ { add_header Cache-Control "public"; }
Fix (the HSTS line again in the location, or `add_header_inherit merge;` on nginx >= 1.29.3):
    add_header Strict-Transport-Security "max-age=63072000" always;
    location /static/ { add_header Cache-Control "public";
        add_header Strict-Transport-Security "max-age=63072000" always; }

Sources: ngx_http_headers_module docs; gixy add_header_redefinition.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules._hsts import content_servers, hsts_lines

RULE = Rule(
    code="NGX704",
    name="hsts-dropped-in-location",
    severity="warning",
    fix="repeat the Strict-Transport-Security line in this location, or add_header_inherit merge; (nginx >= 1.29.3)",
)


def _merges(server_stmts: list[Stmt], loc_stmts: list[Stmt]) -> bool:
    for stmts in (loc_stmts, server_stmts):
        if stmts:
            return bool(stmts[-1].args[:1] == ["merge"])
    return False


def check(ctx: Context) -> Iterator[Finding]:
    for server in content_servers(ctx):
        if not hsts_lines(server.effective("add_header")):
            continue
        for loc, here in server.all_locations():
            own = loc.directives.get("add_header")
            if not own or hsts_lines(here.get("add_header", [])):
                continue
            if _merges(
                server.effective("add_header_inherit"), loc.directives.get("add_header_inherit", [])
            ):
                continue
            yield ctx.finding(
                RULE,
                own[0],
                f"this location's add_header replaces the inherited ones: HSTS is not sent for location {' '.join(loc.stmt.args)}",
            )
