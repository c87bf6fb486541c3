"""Whether nginx staples OCSP responses for a server, asked once for the rules that depend on
it: the stapling file nginx reads (NGX727), the certificates it staples nothing for (NGX726),
and the advice that is moot where it staples nothing (a resolver, NGX711; a trusted
certificate to verify responses, NGX712).

Sources: nginx ngx_event_openssl_stapling.c (ngx_ssl_stapling, ngx_ssl_stapling_file,
ngx_ssl_stapling_issuer, ngx_ssl_stapling_responder); BoringSSL has no OCSP stapling, and nginx
ignores ssl_stapling there with a warning (NGX502).
"""

from __future__ import annotations

from nginxgen.base.records import replace
from nginxgen.conf.client_certificates import client_certificates
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, pki
from nginxgen.lint.context import Context
from nginxgen.lint.rules._files import CertificateFile, certificate_files, load_chain, read, resolve


def stapling_line(ctx: Context, server: Server) -> Stmt | None:
    """The `ssl_stapling on` line in effect in this server, where the library staples at all;
    None where stapling is off, or the library has no OCSP stapling (nginx ignores the line:
    NGX502)."""
    if not libraries.has(ctx.target.library, "ocsp_stapling"):
        return None
    stapling = server.effective("ssl_stapling")
    return stapling[-1] if stapling and flag_on(stapling[-1].args) else None


def from_file(server: Server) -> bool:
    """`ssl_stapling_file` is in effect: nginx staples that file's response and asks no issuer,
    responder URL or resolver (ngx_ssl_stapling_file)."""
    return bool(server.effective("ssl_stapling_file"))


def responder(server: Server) -> bool:
    """`ssl_stapling_responder` names the responder: nginx then asks the certificate for none
    (ngx_ssl_stapling_responder; nginx -t on Debian 13's nginx: no warning for a certificate
    without an OCSP URL)."""
    named = server.effective("ssl_stapling_responder")
    return bool(named and named[-1].args and named[-1].args[0])


def issuer_loaded(ctx: Context, cert: CertificateFile) -> bool | None:
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


def no_ocsp_authority(path: str) -> pki.CertificateAuthority | None:
    """The CA whose certificates live under this path by convention (/etc/letsencrypt/), where
    it issues them without an OCSP responder URL."""
    ca = pki.authority_by_path(path)
    return ca if ca is not None and ca.no_ocsp_url_since is not None else None


def stapling_ignored(ctx: Context, server: Server) -> bool:
    """Whether nginx ignores `ssl_stapling on` for every certificate of this TLS server, each
    with a warning of nginx -t: the library has no OCSP stapling (NGX502: `"ssl_stapling"
    ignored, not supported`), or each certificate is one nginx staples nothing for (no issuer,
    no OCSP URL: NGX726). There stapling advice (a resolver, NGX711; a trusted certificate to
    verify responses, NGX712) is moot: nginx neither looks up nor asks a responder (trial 19:
    three findings for one ignored line, and NGX711's "looked up once at start-up" false).
    False where a certificate may be stapled: one unreadable here (but for a path of a CA
    without OCSP), one named with variables, a server with ssl_stapling_file."""
    if not libraries.has(ctx.target.library, "ocsp_stapling"):
        return True
    # per server asked, once: NGX711 asks one server per line, of a tree of thousands
    known: dict[int, bool] = ctx.memo("stapling_ignored", dict)
    if id(server) not in known:
        known[id(server)] = _ignored_server(ctx, server)
    return known[id(server)]


def _ignored_server(ctx: Context, server: Server) -> bool:
    # certificate_files holds an inherited ssl_certificate line once, under its first server:
    # its chain is the same for every server, what nginx finds its issuer in is each server's
    chains = ctx.memo(
        "stapling_chains", lambda: {id(cert.stmt): cert for cert in certificate_files(ctx)}
    )
    if stapling_line(ctx, server) is None or from_file(server):
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
            and not responder(server)
            and no_ocsp_authority(stmt.args[0]) is not None
        )
    cert = replace(cert, server=server)
    # nginx asks for the issuer first, then the URL: either missing, it staples nothing
    # (a CA file not read here, None, leaves the URL to say)
    if issuer_loaded(ctx, cert) is False:
        return True
    return not cert.chain[0].ocsp_urls and not responder(server)
