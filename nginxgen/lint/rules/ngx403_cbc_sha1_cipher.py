"""ssl_ciphers enables CBC suites with SHA-1 MACs.

They are only needed by TLS 1.0/1.1-era clients, are vulnerable to padding-oracle attacks
(Lucky13), and every TLS 1.2 client has an AEAD alternative.

Fail: ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA;
Fix (no `*-SHA` CBC suites; AES-GCM and ChaCha20-Poly1305 stay):
    ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305;

Sources: Mozilla server-side TLS guideline 6.0 (intermediate has no CBC); RFC 7457.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.ciphers import suites as cipher_suites
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import cipher_lines

RULE = Rule(
    code=rule_codes.CBC_SHA1_CIPHER,  # the generator names it too
    name="cbc-sha1-cipher",
    severity=Severity.WARNING,
    fix="drop the CBC SHA-1 suites; keep AES-GCM and ChaCha20-Poly1305",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, ev in cipher_lines(ctx):
        cbc = [
            s.name
            for s in ev.suites
            if cipher_suites.suite_is_cbc_sha1(s) and not cipher_suites.suite_weakness(s)
        ]
        if cbc:
            yield ctx.finding(
                RULE,
                stmt,
                f"enables {len(cbc)} CBC suite(s) with SHA-1: {', '.join(cbc[:3])}{' ...' if len(cbc) > 3 else ''}",
            )
