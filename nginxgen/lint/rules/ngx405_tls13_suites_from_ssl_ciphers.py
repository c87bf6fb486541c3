"""ssl_ciphers leaves out a cipher for TLS 1.2 that the library's default TLS 1.3 suites still use.

With OpenSSL an allow-list in ssl_ciphers does not touch TLS 1.3: the library default
(AES-256-GCM, ChaCha20, AES-128-GCM) is negotiated whatever ssl_ciphers says. That only matters
when ssl_ciphers visibly excludes one of them (no ChaCha20 for a BSI or NIST policy, only
AES-256): then the policy is not met for TLS 1.3. A list that keeps every cipher of the default
TLS 1.3 suites (Mozilla's intermediate list does) is not reported.

Fail: ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;
Fix (the TLS 1.3 suites of the policy, named where OpenSSL reads them):
    ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;
    ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256;

Sources: trac #1529; mozilla/ssl-config-generator#76; OpenSSL ciphers(1)
(-ciphersuites: TLS 1.3 suites are set apart from the cipher list).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import evaluate_line, model

RULE = Rule(
    code="NGX405",
    name="tls13-suites-from-ssl-ciphers",
    severity=Severity.INFO,
    fix="state the TLS 1.3 suites with ssl_conf_command Ciphersuites",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    if not ctx.has("tls13_suites_via_conf_command"):
        return
    seen: set[int] = set()
    for server in ctx.tls_servers():
        protocols = ctx.protocols(server)
        ciphers = server.effective("ssl_ciphers")
        if "TLSv1.3" not in protocols or not ciphers or id(ciphers[-1]) in seen:
            continue
        if server.conf_command("Ciphersuites"):
            continue
        seen.add(id(ciphers[-1]))
        kept = {suite.enc for suite in evaluate_line(ctx, ciphers[-1]).result.usable()}
        if not kept:
            continue  # enables nothing at all: NGX408's business
        cipher_model = model(ctx)
        defaults = [cipher_model.by_name[n] for n in cipher_model.default_ciphersuites]
        left_out = [s for s in defaults if s.enc not in kept]
        if not left_out:
            continue
        encs = ", ".join(dict.fromkeys(s.enc for s in left_out))
        yield ctx.finding(
            RULE,
            ciphers[-1],
            f"ssl_ciphers leaves out {encs} for TLS 1.2, but TLS 1.3 clients still get "
            f"{', '.join(s.name for s in left_out)} (the library's default TLS 1.3 suites)",
        )
