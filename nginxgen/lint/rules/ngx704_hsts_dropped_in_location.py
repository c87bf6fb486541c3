"""HSTS set on the server (or http{}) but not sent for a location.

A level's add_header lines are inherited only where it has none of its own: one
`add_header Cache-Control ...` in a location removes the server's HSTS there. From nginx 1.29.3,
`add_header_inherit` changes that for the level it is in and the levels inside: `merge` keeps
the inherited lines beside the level's own, `off` drops them even in a location without
add_header lines (`location /static/ { }` then sends no HSTS). On an nginx without the
directive its lines change nothing (NGX301 reports them). The finding is on the line that
drops HSTS: the replacing add_header, the `add_header_inherit off`, or the location that
inherits `off`; once per such line. A server that drops http{}'s HSTS for the responses it
answers itself is reported here where some of its locations send HSTS (else NGX701).

Fail:
    add_header Strict-Transport-Security "max-age=63072000" always;
    location /static/ { add_header Cache-Control "public"; }
Fix (the HSTS line again in the location, or `add_header_inherit merge;` on nginx >= 1.29.3):
    add_header Strict-Transport-Security "max-age=63072000" always;
    location /static/ { add_header Cache-Control "public";
        add_header Strict-Transport-Security "max-age=63072000" always; }

Sources: nginx.org ngx_http_headers_module docs (add_header, add_header_inherit);
nginx/nginx src/http/modules/ngx_http_headers_filter_module.c (ngx_http_headers_merge_conf);
gixy add_header_redefinition.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.responses import HSTS
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._hsts import content_servers, responses

RULE = Rule(
    code="NGX704",
    name="hsts-dropped-in-location",
    severity=Severity.WARNING,
    fix="repeat the Strict-Transport-Security line in this location, or add_header_inherit merge; (nginx >= 1.29.3)",
    triggers=("add_header",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server in content_servers(ctx):
        kinds = responses(ctx, server)
        if not any(headers.named(HSTS) for _, headers in kinds):
            continue  # no response carries HSTS: NGX701's case
        reported: set[int] = set()  # a line that drops HSTS for nested locations too: once
        for what, headers in kinds:
            dropped = headers.dropped_named(HSTS)
            if headers.named(HSTS) or not dropped or id(dropped[-1].cause) in reported:
                continue
            reported.add(id(dropped[-1].cause))
            yield ctx.finding(
                RULE, dropped[-1].cause, f"{dropped[-1].why}: HSTS is not sent for {what}"
            )
