"""The file does not parse the way nginx would read it (unbalanced braces, a directive not
terminated by `;`, an unterminated quote, binary data). nginx refuses such a config.

Sources: nginx ngx_conf_file.c (the same errors `nginx -t` prints).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(code="NGX001", name="syntax-error", severity="error", fix="fix the syntax at this line")
KIND = "syntax"


def check(ctx: Context) -> Iterator[Finding]:
    return ctx.load_problems(RULE, KIND)
