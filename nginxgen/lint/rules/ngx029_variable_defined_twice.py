"""Two map (geo, split_clients) blocks that define the same variable: `nginx -t` passes, and
every request reads the variable from the last one, in every server. The earlier block's values
are never used (trial 20: Nginx Proxy Manager writes `map $scheme $hsts_header` into each proxy
host's file, so one host's HSTS header, includeSubDomains and preload, went out for all of them;
seen with curl against a running nginx).

A map, geo or split_clients block adds its variable as one nginx may define again
(NGX_HTTP_VAR_CHANGEABLE): a second definition takes the name over, for the whole of http{} (or
stream{}: its variables are apart), whichever server the block stood beside. Names are compared
in any letter case, as nginx looks them up. Two blocks with the same source and entries (one
file included twice) change nothing and are not reported; a variable also given by `set` is
(that sets it per request, where the `set` stands).

Fail:
    http {
        map $scheme $hsts { https "max-age=63072000"; }
        server { listen 8080; server_name a.example; add_header Strict-Transport-Security $hsts always; }
        map $scheme $hsts { https "max-age=63072000; includeSubDomains; preload"; }
        server { listen 8080; server_name b.example; add_header Strict-Transport-Security $hsts always; }
    }
Fix:
    http {
        map $scheme $hsts_a { https "max-age=63072000"; }
        server { listen 8080; server_name a.example; add_header Strict-Transport-Security $hsts_a always; }
        map $scheme $hsts_b { https "max-age=63072000; includeSubDomains; preload"; }
        server { listen 8080; server_name b.example; add_header Strict-Transport-Security $hsts_b always; }
    }

Sources: nginx src/http/ngx_http_variables.c (ngx_http_add_variable: an existing changeable
variable is returned, and its handler then replaced), src/http/modules/ngx_http_map_module.c,
ngx_http_geo_module.c, ngx_http_split_clients_module.c and their stream{} twins; seen with a
running nginx 1.26.3 and 1.31.3 (tests/lint/test_variable_defined_twice_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule, seen_at
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX029",
    name="variable-defined-twice",
    severity=Severity.WARNING,
    fix="give each block a variable of its own, and use each where it is meant",
    triggers=("map", "geo", "split_clients"),
)


def defined(stmt: Stmt) -> str | None:
    """The variable a map, geo or split_clients block defines, lower-cased (`geo $var` takes
    the client address; `geo $source $var`)."""
    args = stmt.args
    if stmt.directive == "geo":
        name = args[-1] if 1 <= len(args) <= 2 else None
    else:
        name = args[1] if len(args) == 2 else None
    return name[1:].lower() if name and name.startswith("$") and len(name) > 1 else None


def check(ctx: Context) -> Iterator[Finding]:
    # (http or stream, variable) -> its blocks, in reading order
    blocks: dict[tuple[str, str], list[Stmt]] = {}
    for stmt in ctx.named(*RULE.triggers):
        name = defined(stmt) if stmt.block is not None else None
        family = ctx.top_block(stmt) if name else None
        if name and family in ("http", "stream"):
            blocks.setdefault((family, name), []).append(stmt)
    for (_, name), found in blocks.items():
        last = found[-1]
        for stmt in found[:-1]:
            if not _same(stmt, last):
                yield ctx.finding(
                    RULE,
                    stmt,
                    f"${name} is defined again by the {last.directive} at {seen_at(last, stmt)}"
                    f": nginx reads ${name} from that one for every request, in every server; "
                    f"this {stmt.directive}'s values are never used",
                )


def _same(one: Stmt, other: Stmt) -> bool:
    """Whether two blocks say the same (one file included twice)."""
    return _words(one) == _words(other)


def _words(stmt: Stmt) -> tuple[object, ...]:
    inner = tuple(_words(s) for s in stmt.block or [] if s.directive != "#")
    return (stmt.directive, tuple(stmt.args), inner)
