"""A `# nginxgen: ignore[CODE]` comment without a reason after it.

A suppression is a decision; the reason tells the next reader why the finding does not apply.

Fail: ssl_protocols TLSv1 TLSv1.2;  # nginxgen: ignore[NGX401]
Fix:  ssl_protocols TLSv1 TLSv1.2;  # nginxgen: ignore[NGX401] kiosk clients on Android 4.1

Sources: nginxgen's suppression syntax (README, Lint); the issue that asked for it (issue 3).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX004",
    name="suppression-without-reason",
    severity=Severity.WARNING,
    fix="write why after the ]",
)


def check(ctx: Context) -> Iterator[Finding]:
    for sup in ctx.config.loaded.suppressions:
        if not sup.reason:
            yield ctx.finding(
                RULE,
                Stmt("", [], sup.line, sup.file),
                f"ignore[{','.join(sorted(sup.codes))}] without a reason",
            )
