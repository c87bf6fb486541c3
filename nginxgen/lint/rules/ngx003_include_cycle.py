"""A file that includes itself, directly or through others: nginx would recurse until it fails.

Sources: nginx ngx_conf_include() (no cycle detection).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX003",
    name="include-cycle",
    severity=Severity.ERROR,
    fix="break the include cycle",
    triggers=("include",),  # the load's problems of this kind come from these lines only
)


def check(ctx: Context) -> Iterator[Finding]:
    return ctx.load_problems(RULE, "include-cycle")
