"""An `include` of a file that does not exist (or cannot be read). nginx refuses the config
(`open() ... failed`). An include glob that matches nothing is fine, for nginx and here.

Sources: nginx ngx_conf_include().
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX002",
    name="missing-include",
    severity=Severity.ERROR,
    fix="create the file or fix the path",
)


def check(ctx: Context) -> Iterator[Finding]:
    return ctx.load_problems(RULE, "missing-include")
