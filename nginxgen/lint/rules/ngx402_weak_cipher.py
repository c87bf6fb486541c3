"""ssl_ciphers enables suites that are broken or give no forward secrecy.

NULL (no encryption), anonymous (no authentication), EXPORT, RC4, single DES, 3DES (Sweet32),
MD5 MACs, PSK/SRP and static-RSA key exchange (no forward secrecy). The string is evaluated the
way OpenSSL does (aliases, `+`, `!`, `-`), not by substring, so `!aNULL`-style allow-lists are not
misread; names that this build lacks but an older library would enable (RC4, 3DES) are flagged
when the string asks for them.

Fail: ssl_ciphers ALL:!ADH:RC4+RSA:+HIGH;
Fix:  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;

Sources: RFC 7465 (RC4); RFC 9325 section 4.2; OpenSSL ciphers(1); suite table read from `openssl ciphers`.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.ciphers import suites as cipher_suites
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import cipher_lines

RULE = Rule(
    code="NGX402",
    name="weak-cipher",
    severity=Severity.WARNING,
    fix="list forward-secret AEAD suites only (the intermediate preset's list)",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, ev in cipher_lines(ctx):
        weak: dict[str, list[str]] = {}
        for suite in ev.suites:
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
            yield ctx.finding(RULE, stmt, f"enables {total} weak suite(s) - " + "; ".join(parts))
