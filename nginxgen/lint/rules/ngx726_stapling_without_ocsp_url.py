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

from nginxgen.base.records import replace
from nginxgen.conf.client_certificates import client_certificates
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, pki
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import CertificateFile, certificate_files, load_chain, read, resolve

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
    if not libraries.capability(ctx.target.library, "ocsp_stapling").available:
        return  # nginx ignores ssl_stapling altogether there (NGX502): no issuer or URL asked
    for cert in certificate_files(ctx):
        stapling = cert.server.effective("ssl_stapling")
        if not stapling or not flag_on(stapling[-1].args):
            continue
        if cert.server.effective("ssl_stapling_file"):
            continue  # stapled from the file: no issuer or responder asked
        found = _issuer_loaded(ctx, cert)
        if found is False:
            yield ctx.finding(
                RULE,
                stapling[-1],
                f'"ssl_stapling" ignored, issuer certificate not found for certificate '
                f'"{cert.stmt.args[0]}" (nginx -t warns): neither the file after the '
                "certificate nor the CA files this server loads hold it",
                fix="put the issuer's certificate after the certificate in its file (the full "
                "chain), or name it in ssl_trusted_certificate",
            )
            continue
        if not cert.chain[0].ocsp_urls and not _responder(cert.server):
            yield ctx.finding(
                RULE,
                stapling[-1],
                f'"ssl_stapling" ignored, no OCSP responder URL in the certificate '
                f'"{cert.stmt.args[0]}" (nginx -t warns)',
                severity=Severity.INFO,
            )

    yield from _by_path(ctx)


def _issuer_loaded(ctx: Context, cert: CertificateFile) -> bool | None:
    """Whether nginx finds the leaf's issuer where it looks (ngx_ssl_stapling_issuer): the
    certificates after it in its file, then the server's certificate store (the CA files it
    loads). None: a CA file that cannot be read here may hold it."""
    leaf = cert.chain[0]
    candidates = list(cert.chain[1:])
    settings = client_certificates(ctx.config, cert.server)
    files = [settings.trusted_certificate.value]
    if settings.asks:  # nginx loads the client CA file only where it verifies
        files.append(settings.client_certificate.value)
    for path in (f for f in files if isinstance(f, str) and f):
        data = read(ctx, path)
        if data is None:
            return None
        candidates += load_chain(data)
    # by name, as X509_check_issued first compares (its key identifier check left out: a lint
    # that reads certificates does not load cryptography, and the names tell apart all but
    # a CA that changed its key under one name)
    return any(candidate.subject == leaf.issuer for candidate in candidates)


def _by_path(ctx: Context) -> Iterator[Finding]:
    """Unreadable certificates a CA without OCSP keeps by convention (/etc/letsencrypt/)."""
    seen: set[int] = set()
    for server in ctx.tls_servers():
        stapling = server.effective("ssl_stapling")
        if not stapling or not flag_on(stapling[-1].args):
            continue
        if server.effective("ssl_stapling_file") or _responder(server):
            continue  # no URL asked for
        for stmt in server.effective("ssl_certificate"):
            if id(stmt) in seen or not stmt.args or resolve(ctx, stmt.args[0]) is not None:
                continue
            ca = _no_ocsp_authority(stmt.args[0])
            if ca is None:
                continue
            seen.add(id(stmt))
            yield ctx.finding(
                RULE,
                stapling[-1],
                f"{stmt.args[0]} is a {ca.display} certificate: they carry no OCSP responder URL "
                f"since {ca.no_ocsp_url_since}, so nginx ignores ssl_stapling for it",
                severity=Severity.INFO,
            )


def _no_ocsp_authority(path: str) -> pki.CertificateAuthority | None:
    ca = pki.authority_by_path(path)
    return ca if ca is not None and ca.no_ocsp_url_since is not None else None


def _responder(server: Server) -> bool:
    """`ssl_stapling_responder` names the responder: nginx then asks the certificate for none
    (ngx_ssl_stapling_responder; nginx -t on Debian 13's nginx: no warning for a certificate
    without an OCSP URL)."""
    responder = server.effective("ssl_stapling_responder")
    return bool(responder and responder[-1].args and responder[-1].args[0])


def stapling_ignored(ctx: Context, server: Server) -> bool:
    """Whether nginx ignores `ssl_stapling on` for every certificate of this TLS server, each
    with a warning of nginx -t: the library has no OCSP stapling (NGX502: `"ssl_stapling"
    ignored, not supported`), or each certificate is one this rule says nginx staples nothing
    for (no issuer, no OCSP URL). There stapling advice (a resolver, NGX711; a trusted
    certificate to verify responses, NGX712) is moot: nginx neither looks up nor asks a
    responder (trial 19: three findings for one ignored line, and NGX711's "looked up once at
    start-up" false). False where a certificate may be stapled: one unreadable here (but for a
    path of a CA without OCSP), one named with variables, a server with ssl_stapling_file."""
    if not libraries.has(ctx.target.library, "ocsp_stapling"):
        return True
    # per server asked, once: NGX711 asks one server per line, of a tree of thousands
    known: dict[int, bool] = ctx.memo("ngx726_stapling_ignored", dict)
    if id(server) not in known:
        known[id(server)] = _ignored_server(ctx, server)
    return known[id(server)]


def _ignored_server(ctx: Context, server: Server) -> bool:
    # certificate_files holds an inherited ssl_certificate line once, under its first server:
    # its chain is the same for every server, what nginx finds its issuer in is each server's
    chains = ctx.memo(
        "ngx726_chains", lambda: {id(cert.stmt): cert for cert in certificate_files(ctx)}
    )
    stapling = server.effective("ssl_stapling")
    if not stapling or not flag_on(stapling[-1].args) or server.effective("ssl_stapling_file"):
        return False
    certs = server.effective("ssl_certificate")
    return bool(certs) and all(
        _ignored_for(ctx, server, stmt, chains.get(id(stmt))) for stmt in certs
    )


def _ignored_for(ctx: Context, server: Server, stmt: Stmt, cert: CertificateFile | None) -> bool:
    if cert is None:  # not read here: only a path of a CA without OCSP URLs says
        return (
            bool(stmt.args)
            and "$" not in stmt.args[0]
            and resolve(ctx, stmt.args[0]) is None
            and not _responder(server)
            and _no_ocsp_authority(stmt.args[0]) is not None
        )
    cert = replace(cert, server=server)
    # nginx asks for the issuer first, then the URL: either missing, it staples nothing
    # (a CA file not read here, None, leaves the URL to say)
    if _issuer_loaded(ctx, cert) is False:
        return True
    return not cert.chain[0].ocsp_urls and not _responder(server)
