"""DHE suites listed in `ssl_ciphers` without `ssl_dhparam`. Since nginx 1.11.0 there are no
built-in DH parameters: without the directive the DHE suites are silently never used (the
model's answer, Effective.dhe_usable, which the probe's expectations read too).

Sources: nginx docs ssl_dhparam (no DHE suites without it); nginx CHANGES 1.11.0.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._dhe import dhe_suites, dhparam_lines

RULE = Rule(
    code="NGX732",
    name="dhe-without-dhparam",
    severity=Severity.INFO,
    fix="ssl_dhparam /etc/nginx/ffdhe2048.pem; (RFC 7919 group), or drop the DHE suites",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, _dhparam in dhparam_lines(ctx):
        suites = dhe_suites(ctx, server)
        if suites and not ctx.dhe_usable(server):
            stmt = server.effective("ssl_ciphers")[-1]
            yield ctx.finding(
                RULE,
                stmt,
                f"{len(suites)} DHE suites ({suites[0]}, ...) are never used: no ssl_dhparam",
            )
