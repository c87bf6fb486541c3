"""An `ssl_ciphers` string that enables no TLS 1.2 or older suite for the target's library.

nginx passes the string to SSL_CTX_set_cipher_list(), which fails when nothing matches, and
nginx refuses to start (`SSL_CTX_set_cipher_list("...") failed (SSL: ... no cipher match)`),
even with `ssl_protocols TLSv1.3` only. `DEFAULT:!ALL`, `AES128+CAMELLIA` (no suite has both) and
a misspelt name such as `AES128-SHA128` all do this. `nginxgen ciphers` shows what a string
enables. A library that takes TLS 1.3 suites from ssl_ciphers too (LibreSSL) is enabled by
their names alone (`ssl_ciphers TLS_AES_128_GCM_SHA256;`, what `generate` writes for it).
nginx as a client does the same with proxy_ssl_ciphers (grpc_, uwsgi_, stream's) wherever a pass
goes to TLS (https://, grpcs://, suwsgi://, a variable, stream's `proxy_ssl on`); beside a
plain-text pass nginx never reads the line.

Fail: ssl_ciphers AES128-SHA128;
Fix:  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;

Sources: OpenSSL SSL_CTX_set_cipher_list(3) ("returns 1 if any cipher could be selected and 0 on
complete failure"); nginx ngx_event_openssl.c ngx_ssl_ciphers(); reproduced with `nginx -t` on
nginx 1.22.1/OpenSSL 3.0, 1.26.3/OpenSSL 3.5 and 1.31.3/OpenSSL 3.3; LibreSSL's
SSL_CTX_set_cipher_list(3) (TLSv1.3 suites), found by the generator's fuzzer; nginx
ngx_http_proxy_set_ssl() and its grpc, uwsgi and stream twins (tests/lint/test_backend_ciphers_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.knowledge import library_tables
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules import ngx410_cipher_string_refused as ngx410
from nginxgen.lint.rules._ciphers import BACKEND_LINES, all_cipher_lines

RULE = Rule(
    code="NGX408",
    name="no-cipher-match",
    severity=Severity.ERROR,
    fix="list suites the library has (nginxgen ciphers -- 'STRING' shows what a string enables)",
    triggers=("ssl_ciphers", *BACKEND_LINES),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, ev in all_cipher_lines(ctx):
        result = ev.result
        if result.model.approximate and _blind(ctx, stmt):
            continue  # the model lacks suites the library has for a word of the string
        if ev.tls13_names and ctx.has("tls13_suites_via_ssl_ciphers"):
            continue  # LibreSSL: the string's TLS 1.3 names are suites it enables
        if result.error and not result.suites:
            yield ctx.finding(
                RULE,
                stmt,
                f"{stmt.directive} {' '.join(stmt.args)} enables no suite on {ctx.library()}: nginx "
                f"refuses to start ({_reason(result.error)})",
            )


def _blind(ctx: Context, stmt: Stmt) -> bool:
    table = library_tables.library_table(ctx.target.library)
    return table is not None and ngx410.blind_word(table, " ".join(stmt.args)) is not None


def _reason(error: str) -> str:
    """The library's reason, as nginx prints it: `no cipher match`, or `invalid command` for a
    character OpenSSL takes for no command (a BoringSSL `[a|b]` group; trial 21)."""
    return "invalid command" if error.startswith("invalid command") else "no cipher match"
