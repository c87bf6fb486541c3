"""A `proxy_pass` with a URI part (`http://127.0.0.1:8080/app`, even a lone `/`) where nginx has
no location prefix to replace: in a regex location, a named location, an `if` block or a
`limit_except` block. `nginx -t` fails with `"proxy_pass" cannot have URI part in location given
by regular expression, or inside named location, or inside "if" statement, or inside
"limit_except" block`.

A proxy_pass with variables is not judged this way (nginx sends the URI it builds as it is).

Fail:
    location ~ ^/api/ {
        proxy_pass http://127.0.0.1:8080/;
    }
Fix (the request's URI is passed as it came; rewrite it first where another is meant):
    location ~ ^/api/ {
        proxy_pass http://127.0.0.1:8080;
    }

Sources: nginx src/http/modules/ngx_http_proxy_module.c (ngx_http_proxy_pass), src/core/
ngx_inet.c (ngx_parse_url: the URI starts at the first `/` or `?` after the host, or after a
unix socket's path); seen with nginx -t on Debian 12's and 13's nginx and nginx 1.31.3
(tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules.ngx025_location_placement import kind_of

RULE = Rule(
    code="NGX026",
    name="proxy-pass-uri-not-allowed",
    severity=Severity.ERROR,
    fix="drop the URI part of proxy_pass (rewrite the request's URI first where needed)",
    triggers=("proxy_pass",),
)
MESSAGE = (
    '"proxy_pass" cannot have URI part in location given by regular expression, or inside '
    'named location, or inside "if" statement, or inside "limit_except" block'
)


def check(ctx: Context) -> Iterator[Finding]:
    servers = {id(s.stmt) for s in ctx.config.servers if s.block == "http"}
    for stmt in ctx.named("proxy_pass"):
        if len(stmt.args) != 1:
            continue
        where = _no_prefix(ctx, stmt, servers)
        uri = uri_part(stmt.args[0]) if where is not None else None
        if uri:
            yield ctx.finding(  # ngx_http_proxy_pass's words: at the statement's end
                RULE,
                stmt,
                f"{MESSAGE}: nginx -t fails (the URI part {uri!r}, {where})",
                handled=True,
            )


def _no_prefix(ctx: Context, stmt: Stmt, servers: set[int]) -> str | None:
    """Why the block a proxy_pass line stands in has no prefix to replace: the nearest
    location, if or limit_except around it says (None: it has one, or the line is in no http
    server)."""
    where: str | None = None
    decided = False
    for outer in ctx.ancestors(stmt):
        if id(outer) in servers:
            return where
        if decided:
            continue
        if outer.directive == "location":
            kind = kind_of(outer)
            where = {"regex": "in a regex location", "named": "in a named location"}.get(
                kind[0] if kind else ""
            )
            decided = True
        elif outer.directive == "if":
            where, decided = "inside if", True
        elif outer.directive == "limit_except":
            where, decided = "inside limit_except", True
    return None


def uri_part(url: str) -> str | None:
    """The URI part of a proxy_pass URL as nginx parses it (None: none, or variables in it)."""
    if "$" in url:
        return None
    scheme = url.find("://")
    if scheme < 0:
        return None
    rest = url[scheme + 3 :]
    if rest.startswith("unix:"):
        path_end = rest.find(":", 5)
        return rest[path_end + 1 :] if path_end >= 0 and rest[path_end + 1 :] else None
    cut = [at for at in (rest.find("/"), rest.find("?")) if at >= 0]
    return rest[min(cut) :] if cut else None
