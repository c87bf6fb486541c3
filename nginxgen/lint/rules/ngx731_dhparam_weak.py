"""`ssl_dhparam` with parameters under 2048 bits (Logjam-sized). OpenSSL 3 at security level 2
refuses them: `SSL_CTX_set_tmp_dh(...) failed (dh key too small)` and `nginx -t` fails; other
libraries use them, weakly.

Sources: OpenSSL SSL_CTX_set_security_level.pod and CHANGES 3.2.0 (security level 2 by
default); weakdh.org (Logjam); at level 2, SSL_CTX_set_tmp_dh() refuses 1024-bit
parameters and nginx -t fails.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.der import dh_prime_bits
from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._dhe import dhparam_lines
from nginxgen.lint.rules._files import read

RULE = Rule(
    code="NGX731",
    name="dhparam-weak",
    severity=Severity.WARNING,
    fix="use ffdhe2048 or larger (RFC 7919): openssl genpkey -genparam -algorithm DH "
    "-pkeyopt group:ffdhe2048 -out dhparam.pem",
    otherwise=((Severity.ERROR, "the library refuses the parameters (nginx -t fails)"),),
    triggers=("ssl_dhparam",),
)


def check(ctx: Context) -> Iterator[Finding]:
    refuses = ctx.has("refuses_small_keys")
    done: set[int] = set()
    for _, stmt in dhparam_lines(ctx):
        if stmt is None or id(stmt) in done or not stmt.args:
            continue
        done.add(id(stmt))
        data = read(ctx, stmt.args[0])
        bits = dh_prime_bits(data) if data else None
        floor = libraries.key_floor_bits("DH")
        if bits is None or floor is None or bits >= floor:
            continue
        message = f"{stmt.args[0]} holds {bits}-bit DH parameters (below {floor})"
        if refuses:
            message += f": {ctx.library()} refuses them, nginx -t fails"
        yield ctx.finding(RULE, stmt, message, severity=Severity.ERROR if refuses else None)
