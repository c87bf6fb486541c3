"""HSTS without `always`: the header is not sent on error responses (404, 500, ...).

nginx's add_header only applies to 200, 201, 204, 206, 301, 302, 303, 304, 307 and 308 unless
`always` is given. Only where HTTPS answers: a plain-HTTP server's HSTS is ignored by browsers
anyway (RFC 6797, section 8.1), and NGX701 and NGX704 judge HTTPS servers alone too.

Fail: add_header Strict-Transport-Security "max-age=63072000";
Fix:  add_header Strict-Transport-Security "max-age=63072000" always;

Sources: ngx_http_headers_module docs (add_header); RFC 6797 section 8.1.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import walk
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._hsts import is_hsts

RULE = Rule(
    code="NGX702",
    name="hsts-not-always",
    severity=Severity.INFO,
    fix="end the add_header line with always",
    autofix=(
        Applicability.UNSAFE,
        "adds always to the add_header line (error responses start to carry HSTS)",
    ),
    triggers=("add_header",),
)


def check(ctx: Context) -> Iterator[Finding]:
    servers = ctx.config.servers
    if servers and not any(server.tls for server in servers):
        return  # plain HTTP only: a browser ignores HSTS there (RFC 6797, section 8.1)
    plain = {id(s) for server in servers if not server.tls for s in walk(server.stmt.block or [])}
    for stmt in ctx.named("add_header"):
        if is_hsts(stmt) and "always" not in stmt.args[2:] and id(stmt) not in plain:
            # unsafe: error responses start to carry the header
            yield ctx.finding(
                RULE,
                stmt,
                "HSTS is not sent on error responses without always",
                edits=_fixes.set_args(ctx, stmt, [*stmt.args[:2], "always"]),
            )
