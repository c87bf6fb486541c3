"""Files that include each other several times over, so that the directives multiply with every
level (a file including the next one twice, twenty levels deep, is a million copies). nginx
expands all of it, slowly and in memory; the linter stops at 500,000 included directives and
lints what it has read.

Sources: nginx ngx_conf_include() (every include is parsed in full, no limit).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX005",
    name="runaway-include",
    severity=Severity.WARNING,
    fix="include each snippet once per block; do not include a file from several levels",
    triggers=("include",),  # the load's problems of this kind come from these lines only
)


def check(ctx: Context) -> Iterator[Finding]:
    return ctx.load_problems(RULE, "include-expansion")
