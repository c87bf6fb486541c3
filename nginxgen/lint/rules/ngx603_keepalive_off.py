"""`keepalive_timeout 0`: every HTTP request over TLS pays a new connection and handshake.

Fail: keepalive_timeout 0;
Fix (the nginx default): keepalive_timeout 75s;

Sources: ngx_http_core_module docs (keepalive_timeout).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX603",
    name="keepalive-off",
    severity=Severity.INFO,
    fix="keepalive_timeout 75s;",
    autofix=(
        Applicability.UNSAFE,
        "deletes the keepalive_timeout 0 line, back to nginx's default (75s)",
    ),
    triggers=("keepalive_timeout",),
)


def check(ctx: Context) -> Iterator[Finding]:
    if not any(True for _ in ctx.tls_servers()):
        return
    for stmt in ctx.named("keepalive_timeout"):
        if stmt.directive == "keepalive_timeout" and stmt.args and stmt.args[0] in ("0", "0s"):
            yield ctx.finding(
                RULE,
                stmt,
                "keepalive off: a full TLS handshake for every request",
                edits=_fixes.delete(ctx, stmt),
            )
