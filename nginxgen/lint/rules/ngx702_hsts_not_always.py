"""HSTS without `always`: the header is not sent on error responses (404, 500, ...).

nginx's add_header only applies to 200, 201, 204, 206, 301, 302, 303, 304, 307 and 308 unless
`always` is given.

Fail: add_header Strict-Transport-Security "max-age=63072000";
Fix:  add_header Strict-Transport-Security "max-age=63072000" always;

Sources: ngx_http_headers_module docs (add_header).
"""

from __future__ import annotations

from collections.abc import Iterator

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
    for stmt in ctx.all_statements():
        if is_hsts(stmt) and "always" not in stmt.args[2:]:
            # unsafe: error responses start to carry the header
            yield ctx.finding(
                RULE,
                stmt,
                "HSTS is not sent on error responses without always",
                edits=_fixes.set_args(ctx, stmt, [*stmt.args[:2], "always"]),
            )
