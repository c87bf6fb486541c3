"""The file does not parse the way nginx would read it (unbalanced braces, a directive not
terminated by `;`, an unterminated quote, binary data). nginx refuses such a config.

Also what crossplane-based tools read on but nginx refuses: a directive that lost its `;` right
before a block (`keepalive_timeout 30` then `server {`: nginx says `directive "keepalive_timeout"
is not terminated by ";"`), a block directive ended by `;` (`has no opening "{"`), a `;` or `{`
with no directive before it, a `{` inside `map`/`types`/`geo`, and a closing quote followed by
anything but whitespace, `;`, `{` or `)` (`"a"b`: nginx says `unexpected "b"`). Which directives
take a block is read off real nginx builds; a directive nginxgen does not know (another module's)
is not judged. A `}` inside a word is part of the word, as nginx reads it.

Fail:
    http { keepalive_timeout 30
        server { listen 443 ssl; ... } }
Fix:
    http { keepalive_timeout 30;
        server { listen 443 ssl; ... } }

Sources: nginx src/core/ngx_conf_file.c, ngx_conf_read_token() and ngx_conf_handler() (the same
errors `nginx -t` prints); checked against `nginx -t` of nginx 1.22.1, 1.26.3 and 1.31.3 on
mutated configs in the tests.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._grammar import unterminated_not_allowed

RULE = Rule(
    code="NGX001", name="syntax-error", severity=Severity.ERROR, fix="fix the syntax at this line"
)
KIND = "syntax"


def check(ctx: Context) -> Iterator[Finding]:
    # a directive not allowed in its block draws nginx's "not allowed here" (NGX008) alone
    said = set(unterminated_not_allowed(ctx).values())
    for finding in ctx.load_problems(RULE, KIND):
        if (finding.file, finding.line) not in said:
            yield finding
