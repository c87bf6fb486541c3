"""No `ssl_protocols` on a TLS server of an nginx whose default is bad.

nginx before 1.23.4 defaults to TLSv1 TLSv1.1 TLSv1.2 - no TLS 1.3 at all; before 1.27.3 the
default still enables TLS 1.0 and 1.1. On OpenSSL 3 TLS 1.0/1.1 cannot be negotiated without
`@SECLEVEL=0`, so where a missing TLS 1.3 is not the problem too this is only info there.

Fail (nginx 1.22.1, a TLS server and no ssl_protocols anywhere):
    server { listen 443 ssl default_server; ... }
Fix (nginx 1.22.1, the protocols at http{} level):
    ssl_protocols TLSv1.2 TLSv1.3;
    server { listen 443 ssl default_server; ... }

The same for a stream{} TLS server (nginx CHANGES 1.23.4 changed both defaults).

Sources: nginx CHANGES 1.23.4 and 1.27.3; nginx docs ssl_protocols (default).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import nginx, web
from nginxgen.lint.context import Context, Rule, block_fix
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX303",
    name="default-protocols",
    severity=Severity.WARNING,
    fix="set ssl_protocols TLSv1.2 TLSv1.3; at http{} level",
    otherwise=(
        (Severity.INFO, "the default's only fault is TLS 1.0/1.1 the library cannot negotiate"),
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    default = nginx.default_protocols(ctx.target)
    problems = []
    if "TLSv1.3" not in default:
        problems.append("no TLS 1.3")
    severity = None
    if web.legacy_protocols() & set(default):
        if ctx.legacy_protocols_negotiable():
            problems.append("TLS 1.0 and 1.1 on")
        elif not problems:
            problems.append(f"TLS 1.0 and 1.1 on, though {ctx.library()} cannot negotiate them")
            severity = Severity.INFO
    if not problems:
        return
    for _socket, default_server, block in ctx.every_default_server():
        if default_server.value("ssl_protocols") is None:
            yield ctx.finding(
                RULE,
                default_server.stmt,
                f"no ssl_protocols: nginx {ctx.target.nginx} defaults to {' '.join(default)} "
                f"({', '.join(problems)})",
                severity=severity,
                fix=block_fix(RULE.fix, block),
            )
