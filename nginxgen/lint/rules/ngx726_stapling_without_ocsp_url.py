"""`ssl_stapling on` for a certificate nginx cannot staple for, so it ignores stapling for it
with a warning of `nginx -t`:

- its issuer's certificate is not in the file after it, nor in the CA files the server loads
  (ssl_trusted_certificate, and ssl_client_certificate where ssl_verify_client is on):
  `"ssl_stapling" ignored, issuer certificate not found for certificate "..."` (a self-signed
  certificate, or a file that holds the leaf alone);
- it names no OCSP responder, and no `ssl_stapling_responder` names one: `"ssl_stapling"
  ignored, no OCSP responder URL in the certificate`. Every Let's Encrypt certificate issued
  since 2025-05-07 is such a certificate; their responders are off since 2025-08-06.

nginx looks for the issuer first, and says only that where it finds none. Where the library has
no OCSP stapling (BoringSSL: NGX502) nginx asks neither. A server with
`ssl_stapling_file` staples from that file: neither is asked.

When the certificate file cannot be read (a CI runner without the secrets), a path under
`/etc/letsencrypt/` is enough to say so: Let's Encrypt certificates carry no OCSP URL since
2025-05-07.

Sources: nginx ngx_event_openssl_stapling.c (ngx_ssl_stapling, ngx_ssl_stapling_issuer,
ngx_ssl_stapling_responder); seen with nginx -t on Debian 12's and 13's nginx
(tests/lint/test_lint_files.py); letsencrypt.org/2024/07/23/replacing-ocsp-with-crls.html;
letsencrypt.org/2025/08/06/ocsp-service-has-reached-end-of-life.html.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files, resolve
from nginxgen.lint.rules._stapling import (
    from_file,
    issuer_loaded,
    no_ocsp_authority,
    responder,
    stapling_line,
)

RULE = Rule(
    code="NGX726",
    name="stapling-without-ocsp-url",
    severity=Severity.WARNING,
    # the fix of a certificate without an OCSP URL: its issuer found (nginx looks for that
    # first), more of the chain changes nothing (trial 19); a missing issuer has its own fix
    fix="ssl_stapling off; (the certificate names no OCSP responder to staple from)",
    otherwise=(
        (
            Severity.INFO,
            "no OCSP responder URL: nginx -t warns and staples nothing, and nothing else changes "
            "(every Let's Encrypt certificate since 2025-05-07)",
        ),
    ),
    triggers=("ssl_stapling",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        stapling = stapling_line(ctx, cert.server)
        if stapling is None or from_file(cert.server):
            continue  # off, not supported (NGX502), or stapled from the file: nothing asked
        found = issuer_loaded(ctx, cert)
        if found is False:
            yield ctx.finding(
                RULE,
                stapling,
                f'"ssl_stapling" ignored, issuer certificate not found for certificate '
                f'"{cert.stmt.args[0]}" (nginx -t warns): neither the file after the '
                "certificate nor the CA files this server loads hold it",
                fix="put the issuer's certificate after the certificate in its file (the full "
                "chain), or name it in ssl_trusted_certificate",
            )
            continue
        if not cert.chain[0].ocsp_urls and not responder(cert.server):
            yield ctx.finding(
                RULE,
                stapling,
                f'"ssl_stapling" ignored, no OCSP responder URL in the certificate '
                f'"{cert.stmt.args[0]}" (nginx -t warns)',
                severity=Severity.INFO,
            )

    yield from _by_path(ctx)


def _by_path(ctx: Context) -> Iterator[Finding]:
    """Unreadable certificates a CA without OCSP keeps by convention (/etc/letsencrypt/)."""
    seen: set[int] = set()
    for server in ctx.tls_servers():
        stapling = stapling_line(ctx, server)
        if stapling is None or from_file(server) or responder(server):
            continue  # no URL asked for
        for stmt in server.effective("ssl_certificate"):
            if id(stmt) in seen or not stmt.args or resolve(ctx, stmt.args[0]) is not None:
                continue
            ca = no_ocsp_authority(stmt.args[0])
            if ca is None:
                continue
            seen.add(id(stmt))
            yield ctx.finding(
                RULE,
                stapling,
                f"{stmt.args[0]} is a {ca.display} certificate: they carry no OCSP responder URL "
                f"since {ca.no_ocsp_url_since}, so nginx ignores ssl_stapling for it",
                severity=Severity.INFO,
            )
