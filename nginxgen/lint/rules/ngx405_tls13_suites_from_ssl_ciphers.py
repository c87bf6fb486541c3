"""ssl_ciphers restricts TLS 1.2 but TLS 1.3 suites are left to the library.

With OpenSSL an allow-list in ssl_ciphers does not touch TLS 1.3: the library default
(AES-256-GCM, ChaCha20, AES-128-GCM) is negotiated whatever ssl_ciphers says. Often that is fine,
but a policy that excludes ChaCha20 (BSI, NIST) is then not met.

Fix: ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:...;

Sources: trac #1529; nginx-tls-facts §7.1, P14 (reproduced: ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256
still negotiates TLS_AES_256_GCM_SHA384).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX405",
    name="tls13-suites-from-ssl-ciphers",
    severity="info",
    fix="state the TLS 1.3 suites with ssl_conf_command Ciphersuites",
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
        yield ctx.finding(
            RULE,
            ciphers[-1],
            "ssl_ciphers does not limit TLS 1.3: the library's default TLS 1.3 suites apply",
        )
