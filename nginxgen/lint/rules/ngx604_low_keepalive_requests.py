"""`keepalive_requests` set low: connections (and TLS sessions) are closed after few requests.

nginx raised the default from 100 to 1000 in 1.19.10; HTTP/2 multiplexes many requests per
connection, so a low limit forces reconnects and handshakes.

Fail: keepalive_requests 100;
Fix (or no line: the default is 1000): keepalive_requests 1000;

Sources: nginx CHANGES 1.19.10; ngx_http_core_module docs (keepalive_requests).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX604",
    name="low-keepalive-requests",
    severity=Severity.INFO,
    fix="keepalive_requests 1000;",
    autofix=(Applicability.UNSAFE, "sets keepalive_requests to nginx's default (1000)"),
    triggers=("keepalive_requests",),
)


def check(ctx: Context) -> Iterator[Finding]:
    default = nginx.keepalive_requests_default().value  # 1000 since 1.19.10
    for stmt in ctx.named("keepalive_requests"):
        if (
            stmt.directive == "keepalive_requests"
            and stmt.args
            and stmt.args[0].isdigit()
            and int(stmt.args[0]) < default
        ):
            yield ctx.finding(
                RULE,
                stmt,
                f"keepalive_requests {stmt.args[0]} closes connections early (default {default})",
                edits=_fixes.set_args(ctx, stmt, [str(default)]),
            )
