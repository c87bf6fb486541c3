"""ssl_ciphers enables suites that are broken or give no forward secrecy.

NULL (no encryption), anonymous (no authentication), EXPORT, RC4, single DES, 3DES (Sweet32),
MD5 MACs and static-RSA key exchange (no forward secrecy). PSK and SRP suites are not counted:
nginx sets up no pre-shared key or SRP verifier, so the library never negotiates them (an
s_client offering only a PSK suite with a key fails against nginx's default list). The string is evaluated the
way OpenSSL does (aliases, `+`, `!`, `-`), not by substring, so `!aNULL`-style allow-lists are not
misread; names that this build lacks but an older library would enable (RC4, 3DES) are flagged
when the string asks for them.

No ssl_ciphers at all is judged the same way: nginx then uses its own default,
`HIGH:!aNULL:!MD5` (in http{}, stream{} and mail{}, every release), which enables static-RSA
suites; the finding is at the http{} (or stream{}, mail{}) line, where the line would go, for
the TLS servers with a certificate and no ssl_ciphers in effect (not for a file of http{}
content linted on its own: the http{} that includes it may set one). Its fix, unsafe since clients that have
only the dropped suites can no longer connect, adds Mozilla's intermediate list there.

Fail: ssl_ciphers ALL:!ADH:RC4+RSA:+HIGH;
Fix:  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;

Sources: RFC 7465 (RC4); RFC 9325 section 4.2; OpenSSL ciphers(1); suite table read from `openssl ciphers`;
nginx's default: ngx_http_ssl_module docs (ssl_ciphers), NGX_DEFAULT_CIPHERS in nginx's
ngx_http_ssl_module.c and ngx_stream_ssl_module.c; seen on nginx 1.22.1, 1.26.3, 1.28.3 and
1.31.3 with OpenSSL (s_client negotiates AES128-SHA without ssl_ciphers;
tests/lint/test_default_ciphers_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.ciphers import suites as cipher_suites
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules._ciphers import DEFAULT_FIX, cipher_lines, default_fix

RULE = Rule(
    code="NGX402",
    name="weak-cipher",
    severity=Severity.WARNING,
    fix="list forward-secret AEAD suites only (the intermediate preset's list)",
    autofix=(Applicability.UNSAFE, DEFAULT_FIX),
    # nginx's default list applies to every TLS server with a certificate and no ssl_ciphers
    triggers=("ssl_ciphers", "ssl_certificate"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for judged in cipher_lines(ctx):
        ev = judged.evaluation
        weak: dict[str, list[str]] = {}
        for suite in ev.suites:
            if suite.psk_or_srp:
                continue  # nginx sets up no pre-shared key or SRP verifier: never negotiated
            reason = cipher_suites.suite_weakness(suite)
            if reason:
                weak.setdefault(reason, []).append(suite.name)
        for word in ev.asked_for_weak:
            weak.setdefault("asks for a broken family", []).append(word)
        if weak:
            parts = [
                f"{reason}: {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}"
                for reason, names in weak.items()
            ]
            total = sum(len(n) for n in weak.values())
            yield ctx.finding(
                RULE,
                judged.line,
                f"{judged.subject}enables {total} weak suite(s) - " + "; ".join(parts),
                edits=default_fix(ctx, judged),
            )
