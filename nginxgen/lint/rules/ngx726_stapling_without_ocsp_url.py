"""`ssl_stapling on` for a certificate that names no OCSP responder. nginx ignores stapling for
it (`"ssl_stapling" ignored, no OCSP responder URL in the certificate`). Every Let's Encrypt
certificate issued since 2025-05-07 is such a certificate; their responders are off since
2025-08-06.

When the certificate file cannot be read (a CI runner without the secrets), a path under
`/etc/letsencrypt/` is enough to say so: Let's Encrypt certificates carry no OCSP URL since
2025-05-07.

Sources: nginx ngx_event_openssl_stapling.c; letsencrypt.org/2024/07/23/replacing-ocsp-with-crls.html;
letsencrypt.org/2025/08/06/ocsp-service-has-reached-end-of-life.html.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import pki
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files, resolve

RULE = Rule(
    code="NGX726",
    name="stapling-without-ocsp-url",
    severity=Severity.INFO,
    fix="ssl_stapling off; (the certificate has no OCSP responder to staple from)",
    triggers=("ssl_stapling",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        stapling = cert.server.effective("ssl_stapling")
        if not stapling or stapling[-1].args[:1] != ["on"]:
            continue
        if not cert.chain[0].ocsp_urls:
            yield ctx.finding(
                RULE,
                stapling[-1],
                f"{cert.stmt.args[0]} names no OCSP responder: nginx ignores ssl_stapling for it",
            )

    yield from _by_path(ctx)


def _by_path(ctx: Context) -> Iterator[Finding]:
    """Unreadable certificates a CA without OCSP keeps by convention (/etc/letsencrypt/)."""
    seen: set[int] = set()
    for server in ctx.tls_servers():
        stapling = server.effective("ssl_stapling")
        if not stapling or stapling[-1].args[:1] != ["on"]:
            continue
        for stmt in server.effective("ssl_certificate"):
            if id(stmt) in seen or not stmt.args or resolve(ctx, stmt.args[0]) is not None:
                continue
            ca = pki.authority_by_path(stmt.args[0])
            if ca is None or ca.no_ocsp_url_since is None:
                continue
            seen.add(id(stmt))
            yield ctx.finding(
                RULE,
                stapling[-1],
                f"{stmt.args[0]} is a {ca.display} certificate: they carry no OCSP responder URL "
                f"since {ca.no_ocsp_url_since}, so nginx ignores ssl_stapling for it",
            )
