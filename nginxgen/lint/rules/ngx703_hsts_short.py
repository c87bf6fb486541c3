"""HSTS max-age under six months (or 0, which turns HSTS off).

Short lifetimes leave a window in which a returning browser can be stripped to HTTP; the
preload list asks for at least a year, Mozilla recommends two. The threshold (15768000 s, Mozilla
HTTP Observatory's six months) is the one the generator refuses below (knowledge/web.toml).

Fail: add_header Strict-Transport-Security "max-age=3600" always;
Fix:  add_header Strict-Transport-Security "max-age=63072000" always;

Sources: RFC 6797; hstspreload.org; Mozilla guideline 6.0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.knowledge import web
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._hsts import is_hsts

_AGES = web.hsts()  # the threshold and the recommended age: knowledge/web.toml, with sources
RULE = Rule(
    code="NGX703",
    name="hsts-short",
    severity=Severity.WARNING,
    fix=f"max-age={_AGES.recommended_max_age}",
    autofix=(
        Applicability.UNSAFE,
        f"sets max-age={_AGES.recommended_max_age} ({_AGES.recommended_max_age // 31536000} "
        "years), keeping the other parameters",
    ),
    triggers=("add_header",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt in ctx.named("add_header"):
        if is_hsts(stmt) and len(stmt.args) > 1:
            match = re.search(r"max-age\s*=\s*\"?(\d+)", stmt.args[1], re.IGNORECASE)
            if match is None:
                if "$" in stmt.args[1]:
                    continue  # a variable's value (a map of it, say) is known per request only
                yield ctx.finding(RULE, stmt, "HSTS without max-age is ignored by browsers")
            elif int(match[1]) < _AGES.min_max_age:
                recommended = str(_AGES.recommended_max_age)
                longer = stmt.args[1][: match.start(1)] + recommended + stmt.args[1][match.end(1) :]
                yield ctx.finding(
                    RULE,
                    stmt,
                    f"HSTS max-age={match[1]} is under {_AGES.min_max_age} ({_AGES.min_max_age // 86400} days)",
                    edits=_fixes.set_args(ctx, stmt, [stmt.args[0], longer, *stmt.args[2:]]),
                )
