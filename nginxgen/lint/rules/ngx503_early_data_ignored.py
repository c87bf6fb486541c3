"""`ssl_early_data on` with LibreSSL: silently ignored.

nginx takes the OpenSSL code path, but LibreSSL's SSL_CTX_set_max_early_data() is a stub that
returns success: no 0-RTT, no warning.

Fail (LibreSSL 3.9): ssl_early_data on;
Fix (the line removed, or): ssl_early_data off;

Sources: libressl ssl_lib.c; nginx ngx_ssl_early_data().
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX503",
    name="early-data-ignored",
    severity=Severity.WARNING,
    fix="remove ssl_early_data",
    triggers=("ssl_early_data",),
)


def check(ctx: Context) -> Iterator[Finding]:
    capability = libraries.capability(ctx.target.library, "early_data")
    if capability.available:
        return
    for stmt in ctx.switched_on("ssl_early_data"):
        yield ctx.finding(RULE, stmt, f"{ctx.library()}: {capability.refusal}")
