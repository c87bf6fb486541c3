"""ssl_ciphers enables CBC suites with SHA-1 MACs.

They are only needed by TLS 1.0/1.1-era clients, are vulnerable to padding-oracle attacks
(Lucky13), and every TLS 1.2 client has an AEAD alternative.

No ssl_ciphers at all is judged the same way: nginx's own default, `HIGH:!aNULL:!MD5`, enables
them (reported at the http{}, stream{} or mail{} line, with NGX402's unsafe fix: Mozilla's intermediate
list).

Fail: ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA;
Fix (no `*-SHA` CBC suites; AES-GCM and ChaCha20-Poly1305 stay):
    ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305;

Sources: Mozilla server-side TLS guideline 6.0 (intermediate has no CBC); RFC 7457; nginx's
default: ngx_http_ssl_module docs (ssl_ciphers), seen negotiated without ssl_ciphers
(tests/lint/test_default_ciphers_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.ciphers import suites as cipher_suites
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules._ciphers import DEFAULT_FIX, cipher_lines, default_fix

RULE = Rule(
    code=rule_codes.CBC_SHA1_CIPHER,  # the generator names it too
    name="cbc-sha1-cipher",
    severity=Severity.WARNING,
    fix="drop the CBC SHA-1 suites; keep AES-GCM and ChaCha20-Poly1305",
    autofix=(Applicability.UNSAFE, DEFAULT_FIX),
    # nginx's default list applies to every TLS server with a certificate and no ssl_ciphers
    triggers=("ssl_ciphers", "ssl_certificate"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for judged in cipher_lines(ctx):
        cbc = [
            s.name
            for s in judged.evaluation.suites
            if cipher_suites.suite_is_cbc_sha1(s) and not cipher_suites.suite_weakness(s)
        ]
        if cbc:
            more = " ..." if len(cbc) > 3 else ""
            yield ctx.finding(
                RULE,
                judged.line,
                f"{judged.subject}enables {len(cbc)} CBC suite(s) with SHA-1: "
                f"{', '.join(cbc[:3])}{more}",
                edits=default_fix(ctx, judged),
            )
