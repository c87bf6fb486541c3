"""`ssl_dhparam` where no DHE suite can be negotiated: the explicit `ssl_ciphers` has none, or
only TLS 1.3 is on (TLS 1.3 uses ffdhe groups from ssl_ecdh_curve, not ssl_dhparam).

Sources: nginx docs ssl_dhparam.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import LEGACY
from nginxgen.lint.rules._dhe import dhe_suites, dhparam_lines

RULE = Rule(
    code="NGX733",
    name="dhparam-unused",
    severity=Severity.INFO,
    fix="drop ssl_dhparam (and the file), or list DHE suites if old clients need them",
    triggers=("ssl_dhparam",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, dhparam in dhparam_lines(ctx):
        if dhparam is None:
            continue
        if not any(p in LEGACY for p in ctx.protocols(server)):
            yield ctx.finding(RULE, dhparam, "only TLS 1.3 is on: ssl_dhparam is never used")
        elif dhe_suites(ctx, server) == []:
            yield ctx.finding(
                RULE, dhparam, "ssl_ciphers enables no DHE suite: ssl_dhparam is never used"
            )
