"""A certificate key below today's floor: RSA under 2048 bits or an elliptic curve under 256.
OpenSSL 3 at its default security level 2 (Debian's default, OpenSSL's since 3.2) refuses to
load such a certificate, so `nginx -t` fails ("ee key too small", seen with OpenSSL 3.0.22,
3.3.7 and 3.5.7); elsewhere it is merely weak.

Sources: NIST SP 800-57 Part 1 (112-bit minimum); OpenSSL SSL_CTX_set_security_level.pod.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX724",
    name="certificate-weak-key",
    severity=Severity.WARNING,
    fix="issue a new certificate with an ECDSA P-256 key (or RSA 2048 or more)",
    otherwise=((Severity.ERROR, "the library refuses the key at its default security level"),),
)


def check(ctx: Context) -> Iterator[Finding]:
    refuses = ctx.has("refuses_small_keys")
    for cert in certificate_files(ctx):
        kind, bits = cert.chain[0].key
        floor = libraries.key_floor_bits(kind)
        if floor is None or bits >= floor:
            continue
        message = f"{cert.stmt.args[0]} has a {kind} {bits}-bit key (below {floor})"
        if refuses:
            message += f": {ctx.library()} refuses it at its default security level"
        yield ctx.finding(RULE, cert.stmt, message, severity=Severity.ERROR if refuses else None)
