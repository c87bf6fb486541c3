"""`ssl_stapling on` for a certificate that names no OCSP responder. nginx ignores stapling for
it (`"ssl_stapling" ignored, no OCSP responder URL in the certificate`). Every Let's Encrypt
certificate issued since 2025-05-07 is such a certificate; their responders are off since
2025-08-06.

Sources: nginx ngx_event_openssl_stapling.c; nginx-tls-facts §8.2, §8.4, P29.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX726",
    name="stapling-without-ocsp-url",
    severity="info",
    fix="ssl_stapling off; (the certificate has no OCSP responder to staple from)",
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        stapling = cert.server.effective("ssl_stapling")
        if not stapling or stapling[-1].args[:1] != ["on"]:
            continue
        from nginxgen.certs import ocsp_urls  # cryptography: only once a certificate was read

        if not ocsp_urls(cert.chain[0]):
            yield ctx.finding(
                RULE,
                stapling[-1],
                f"{cert.stmt.args[0]} names no OCSP responder: nginx ignores ssl_stapling for it",
            )
