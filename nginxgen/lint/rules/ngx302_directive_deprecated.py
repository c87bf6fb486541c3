"""A deprecated directive or parameter: it still works on the target but warns, and a later
nginx refuses it (`ssl on` since 1.15.0, removed in 1.25.1; `listen ... http2` since 1.25.1).

Fail (nginx 1.26.3): listen 443 ssl http2;
Fix: listen 443 ssl; http2 on;

Sources: nginx CHANGES 1.15.0 and 1.25.1; nginx-tls-facts §6, P17, P18.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules._directives import versioned

RULE = Rule(
    code="NGX302",
    name="directive-deprecated",
    severity="warning",
    fix="use the replacement before an upgrade refuses it",
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, what, status in versioned(ctx):
        if status.available and status.deprecated:
            yield ctx.finding(
                RULE,
                stmt,
                f"{what} is deprecated on nginx {ctx.target.nginx}",
                f"use {status.replacement}" if status.replacement else None,
            )
