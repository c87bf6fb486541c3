"""A directive in a block where nginx does not take it: `nginx -t` stops with
`"listen" directive is not allowed here`.

Each directive's contexts are the NGX_*_CONF flags of its definition in nginx's sources: `listen`
only in server{}, `ssl_protocols` in http{} and server{} but not in location{}, `add_header` in
http, server, location and if in location. A snippet file (included from an unknown place) is
not judged by this rule.

Fail: location / { ssl_protocols TLSv1.2 TLSv1.3; }
Fix:  server { ssl_protocols TLSv1.2 TLSv1.3; location / { } }

Sources: nginx src/core/ngx_conf_file.c ngx_conf_handler() ("is not allowed here");
nginx.org/en/docs/dirindex.html (each directive's Context).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._grammar import findings

RULE = Rule(
    code="NGX008",
    name="directive-not-allowed-here",
    severity=Severity.ERROR,
    fix="move it into a block that takes it (nginx's documentation gives each directive's Context)",
)


def check(ctx: Context) -> Iterator[Finding]:
    return findings(ctx, RULE)
