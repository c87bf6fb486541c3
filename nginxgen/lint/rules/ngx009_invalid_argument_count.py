"""A directive with a number of arguments its definition does not take: `nginx -t` stops with
`invalid number of arguments in "ssl_certificate" directive`.

The counts are the NGX_CONF_TAKE*, FLAG, 1MORE, 2MORE and ANY flags of the directive's
definition in the target's release; where two modules define the name (http and stream
`ssl_certificate`), the one allowed in that block decides.

Fail: ssl_session_cache shared:SSL:10m builtin:1000 extra;
Fix:  ssl_session_cache shared:SSL:10m builtin:1000;

Sources: nginx src/core/ngx_conf_file.c ngx_conf_handler() (argument_number[] and the
NGX_CONF_*ARGS flags).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._grammar import findings

RULE = Rule(
    code="NGX009",
    name="invalid-argument-count",
    severity=Severity.ERROR,
    fix="give it the number of arguments its syntax takes (nginx's documentation gives the Syntax)",
)


def check(ctx: Context) -> Iterator[Finding]:
    return findings(ctx, RULE)
