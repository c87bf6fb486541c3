"""A certificate or CA file nginx cannot load: it does not exist, or holds no PEM certificate
(garbage, a key, a DER file); a certificate key or DH parameters file (ssl_dhparam) that does
not exist (`cannot load certificate key`, `BIO_new_file(...) failed`); a DH parameters file
that holds no DH parameters in PEM (`PEM_read_bio_DHparams(...) failed (SSL: ...no start
line...)`: empty, DER, a certificate; `BEGIN X9.42 DH PARAMETERS` is read by OpenSSL, not by
BoringSSL or AWS-LC). `nginx -t` refuses the config: "cannot load certificate" for
`ssl_certificate`, and for the CA files (`ssl_client_certificate`, `ssl_trusted_certificate`,
`proxy_ssl_trusted_certificate` and its grpc and uwsgi twins, stream's too) the same message
from nginx 1.27.2, `SSL_CTX_load_verify_locations(...) failed` before.

Only the lines nginx loads are read: `ssl_certificate` of every server with certificates,
`ssl_trusted_certificate` of every server with TLS settings, `ssl_client_certificate` where
`ssl_verify_client` is on, the backend CA where its verification is on. A file that exists
but cannot be read here says nothing (as every file rule); a missing one is reported only
where the tree is the one the `--nginx-bin` binary reads (its `--conf-path` folder): elsewhere
it may be on the server while lint runs on a machine without it (`generate` says so for the CA
files it writes). A CA file holding only CRLs is reported from nginx 1.27.2 only (OpenSSL's
loader took it before).

The PEM forms are read as nginx reads them on the target: a certificate in the `TRUSTED
CERTIFICATE` form (`openssl x509 -trustout`) loads as an ssl_certificate leaf on every release
(an intermediate in that form is left out of the chain, NGX722), and in every CA file from
1.27.2; before, the CA names of `ssl_client_certificate` are read with a reader that skips that
form, and a file with no certificate in the plain form fails with `SSL_load_client_CA_file(...)
failed` (the trust files `ssl_trusted_certificate` and the backend CAs load).

A CRL file (`ssl_crl`, read for every server with certificates; a backend's `proxy_ssl_crl`
and its grpc, uwsgi and stream twins, read only where the backend is verified) that does not
exist (from 1.27.2 `cannot load CRL "...": BIO_new_file() failed`), or from which nginx reads
nothing: from nginx 1.27.2 nginx reads its `X509 CRL` blocks itself and wants one (`cannot load
CRL "...": PEM_read_bio_X509_CRL() failed`), a file of certificates alone included; before,
OpenSSL's lookup takes certificates and CRLs alike and fails where it finds neither
(`X509_LOOKUP_load_file("...") failed`).

An OCSP response file (`ssl_stapling_file`, read where `ssl_stapling` is on, for each
certificate loaded at start-up: none is for a certificate named with variables) that does not
exist (`BIO_new_file("...") failed`) or holds no OCSP response in DER, as `openssl ocsp
-respout` writes it (`d2i_OCSP_RESPONSE_bio("...") failed`: an empty file, text, a PEM-wrapped
response, a certificate). With BoringSSL nginx ignores ssl_stapling and reads no file.

A key file that holds no private key in PEM, or an encrypted one where no ssl_password_file
gives the password: `cannot load certificate key "...": PEM_read_bio_PrivateKey() failed`.

A certificate key named by another source than a file is refused where this nginx or its
library cannot read that source: `store:URI` (an OpenSSL provider's store) before nginx 1.29.0
(read as a file name) or with a library without OSSL_STORE (BoringSSL, AWS-LC), `engine:NAME:ID`
with a library without engines (BoringSSL, AWS-LC, OpenSSL 4.0): nginx's `cannot load
certificate key`, for ssl_certificate_key and a backend's proxy_ssl_certificate_key (and grpc_,
uwsgi_, stream's).

For example `ssl_client_certificate /etc/nginx/client-ca.pem;` where that file holds a private
key, or the HTML page a download saved in its place: the fix is the CA certificates in PEM
(`-----BEGIN CERTIFICATE-----`), or the line pointed at them.

Sources: nginx src/event/ngx_event_openssl.c ngx_ssl_certificate, ngx_ssl_client_certificate,
ngx_ssl_trusted_certificate; src/event/ngx_event_openssl_cache.c (1.27.2) ngx_ssl_cache_cert_create,
ngx_ssl_cache_ca_create, ngx_ssl_cache_init_key and ngx_ssl_cache_pkey_create
(nginxgen/knowledge/nginx.toml, certificate_files and certificate_keys); nginx CHANGES 1.27.2
(certificates cached on start; OCSP stapling in stream), 1.7.9 (engine:) and 1.29.0 (store:);
ngx_event_openssl_stapling.c ngx_ssl_stapling_file and the ngx_http_ssl_module docs
(ssl_stapling_file: DER) (stapling_files); ngx_http_proxy_set_ssl (the CRL after the CA, under
proxy_ssl_verify); ngx_ssl_dhparam and the PEM blocks each library's PEM_read_bio_DHparams
takes (nginxgen/knowledge/libraries.toml, dh_parameter_blocks); seen with nginx -t on 1.22.1,
1.26.3, 1.28.3 and 1.31.3, the trusted form, the DH parameters, CRL and stapling files on all
seven builds (tests/lint/test_trusted_certificates_live.py, tests/lint/test_dhparam_live.py,
tests/lint/test_crl_live.py, tests/lint/test_stapling_file_live.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from nginxgen.base.records import record
from nginxgen.conf import files
from nginxgen.conf.as_client import ClientTls
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.stream import Stream
from nginxgen.knowledge import libraries, nginx
from nginxgen.knowledge.directives import nginx_directive
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._client_certs import verifying
from nginxgen.lint.rules._files import load_chain, read
from nginxgen.lint.rules._stapling import stapling_line

RULE = Rule(
    code="NGX727",
    name="certificate-file-unloadable",
    severity=Severity.ERROR,
    fix="point the line at the PEM file (for a CA: the CA certificates, PEM)",
)
DH_FIX = (
    "point ssl_dhparam at DH parameters in PEM (openssl genpkey -genparam -algorithm DH -pkeyopt "
    "group:ffdhe2048 -out dhparam.pem), or remove the line"
)
KEY_FIX = "load the key from a file (PEM), or from a source this nginx and its library read"


@record(frozen=True)
class Loaded:
    """A line whose file nginx loads: a certificate file, a CA file, and for a CA file whether
    nginx also reads the CA names it sends clients from it (ssl_client_certificate)."""

    line: Stmt
    ca: bool
    names: bool = False


def _loaded(ctx: Context) -> Iterator[Loaded]:
    """Each line whose file nginx loads."""
    for server in ctx.config.servers:
        yield from (Loaded(s, False) for s in server.effective("ssl_certificate"))
    for settings in verifying(ctx):
        if settings.trusted_certificate.line is not None:
            yield Loaded(settings.trusted_certificate.line, True)
        if settings.asks and settings.client_certificate.line is not None:
            yield Loaded(settings.client_certificate.line, True, names=True)
    for client in _verifying_clients(ctx):
        if (line := client.trusted_certificate().line) is not None:
            yield Loaded(line, True)
    for server in Stream(ctx).config.servers:
        if server.tls:
            yield from (Loaded(s, False) for s in server.effective("ssl_certificate"))


def _missing(ctx: Context, line: Stmt, fails: str) -> Finding:
    """A line whose file does not exist, with nginx -t's words for it."""
    return ctx.finding(RULE, line, f"{line.args[0]} does not exist: nginx -t fails: {fails}")


def _clients(ctx: Context) -> Iterator[ClientTls]:
    """The client side of each connection to a TLS backend: http{}'s passes, stream{}'s
    servers with proxy_ssl on."""
    yield from ctx.backends()
    stream = Stream(ctx)
    for server in stream.config.servers:
        if (client := stream.upstream_tls(server)) is not None:
            yield client


def _verifying_clients(ctx: Context) -> Iterator[ClientTls]:
    """The backends whose certificate nginx verifies: only there it loads their CA and CRL
    files (ngx_http_proxy_set_ssl and its grpc, uwsgi and stream twins)."""
    return (client for client in _clients(ctx) if client.verify().value)


def _certified(ctx: Context) -> Iterator[tuple[str, Server]]:
    """Each server with certificates, http{} and stream{} alike, with the context its lines
    are in (`server`, `stream_server`): nginx sets up their TLS context, reading its files."""
    for family in ctx.families():
        context = "stream_server" if family.config.block == "stream" else "server"
        for server in family.config.servers:
            if server.effective("ssl_certificate"):
                yield context, server


def _server_files(ctx: Context, directive: str) -> Iterator[Stmt]:
    """The line of `directive` (ssl_dhparam, ssl_crl) nginx opens for every server with
    certificates: it reads the file when it sets up the server's TLS context (ngx_ssl_dhparam,
    ngx_ssl_crl)."""
    for _, server in _certified(ctx):
        yield from server.effective(directive)[-1:]


def _crl_files(ctx: Context) -> Iterator[Stmt]:
    """The CRL lines nginx loads: each server's ssl_crl, and a backend's proxy_ssl_crl (grpc_,
    uwsgi_, stream's) where it verifies the backend (nginx -t passes with a garbage file and
    verification off)."""
    yield from _server_files(ctx, "ssl_crl")
    for client in _verifying_clients(ctx):
        if (line := client.crl().line) is not None:
            yield line


def _stapling_files(ctx: Context) -> Iterator[Stmt]:
    """The ssl_stapling_file line nginx reads, once per certificate it loads at start-up
    (ngx_ssl_stapling_certificate): where ssl_stapling is on in a server with a certificate
    without variables (those are loaded per handshake: nothing is stapled for them). Not with a
    library without OCSP stapling (BoringSSL: nginx ignores ssl_stapling, NGX502), nor in
    stream{} before its ssl_stapling came (1.27.2: refused there as not allowed, NGX008)."""
    entries = nginx_directive(ctx.target, "ssl_stapling") or ()
    for context, server in _certified(ctx):
        if stapling_line(ctx, server) is None:
            continue
        loaded = any(s.args and "$" not in s.args[0] for s in server.effective("ssl_certificate"))
        if loaded and any(e.allows(context) for e in entries):
            yield from server.effective("ssl_stapling_file")[-1:]


def _no_crl(ctx: Context, line: Stmt, facts: nginx.CertificateFiles) -> Iterator[Finding]:
    """A CRL file nginx reads nothing from, in nginx -t's words: from 1.27.2 its own
    reader's, which wants a CRL (the library's `no start line`); before, OpenSSL's lookup's,
    which takes a certificate too."""
    path = line.args[0]
    data = read(ctx, path)
    if data is None or facts.crl_loads(ctx.target, data):
        return
    fails = facts.crl_refusal(ctx.target, path)
    if facts.cached(ctx.target):
        what = "no CRL in PEM (BEGIN X509 CRL)"
        reason = libraries.pem_no_start_line(ctx.target.library, "X509 CRL")
        fails += f": PEM_read_bio_X509_CRL() failed (SSL: {reason})" if reason else ""
    else:
        what = "no CRL or certificate in PEM"
    fix = (
        f"point {line.directive} at the CA's revocation list in PEM (BEGIN X509 CRL), or "
        "remove the line"
    )
    yield ctx.finding(RULE, line, f"{path} holds {what}: nginx -t fails: {fails}", fix)


def _keys(ctx: Context) -> Iterator[Stmt]:
    """Each key line nginx loads beside a certificate: servers' and backends' (mutual TLS)."""
    for server in ctx.config.servers:
        if server.effective("ssl_certificate"):
            yield from server.effective("ssl_certificate_key")
    for client in _clients(ctx):
        if client.certificate().value and (line := client.certificate_key().line):
            yield line
    for server in Stream(ctx).config.servers:
        if server.tls:
            yield from server.effective("ssl_certificate_key")


def check(ctx: Context) -> Iterator[Finding]:
    seen: set[int] = set()
    for opened in _opened(ctx):
        line = opened.line
        if id(line) in seen or not line.args:
            continue
        seen.add(id(line))
        path = line.args[0]
        if (refused := opened.refused(path)) is not None:
            yield ctx.finding(RULE, line, refused, KEY_FIX)
        elif files.absent(ctx.config.loaded, path, ctx.target.conf_path):
            yield _missing(ctx, line, opened.missing(path))
        else:
            yield from opened.judge(line)


def _never(_: str) -> str | None:
    return None


@record(frozen=True)
class _Opened:
    """A line whose file nginx opens at start-up, with what nginx -t says of it: `refused`,
    of a name it takes for no file (a key from an engine it lacks), `missing` where the file
    does not exist, `judge` of the file as it is."""

    line: Stmt
    missing: Callable[[str], str]
    judge: Callable[[Stmt], Iterator[Finding]]
    refused: Callable[[str], str | None] = _never


def _opened(ctx: Context) -> Iterator[_Opened]:
    """Every line of a file nginx opens, in the order nginx -t says of them: keys, DH
    parameters, stapling files, CRLs, and the certificates and CA files it loads."""
    keys = nginx.certificate_keys()

    def refused_key(path: str) -> str | None:
        return keys.refusal(ctx.target, path)

    def missing_key(path: str) -> str:
        return keys.message.format(path=path)

    for line in _keys(ctx):
        yield _Opened(line, missing_key, lambda line: _no_key(ctx, line), refused_key)
    dh = nginx.dh_parameters()
    for line in _server_files(ctx, "ssl_dhparam"):
        yield _Opened(
            line,
            lambda path: dh.message.format(path=path),
            lambda line: _no_dh_parameters(ctx, line, dh),
        )
    stapling = nginx.stapling_files()
    for line in _stapling_files(ctx):
        yield _Opened(
            line,
            lambda path: stapling.message.format(path=path),
            lambda line: _no_stapling_file(ctx, line, stapling),
        )
    facts = nginx.certificate_files()
    for line in _crl_files(ctx):
        if line.args and "$" not in line.args[0]:
            yield _Opened(
                line,
                lambda path: facts.crl_missing(ctx.target, path),
                lambda line: _no_crl(ctx, line, facts),
            )
    for loaded in _loaded(ctx):
        yield _loaded_file(ctx, loaded, facts)


def _loaded_file(ctx: Context, loaded: Loaded, facts: nginx.CertificateFiles) -> _Opened:
    def missing(path: str) -> str:
        return facts.refusal(ctx.target, path, loaded.ca)

    return _Opened(loaded.line, missing, lambda _: _not_loadable(ctx, loaded, facts))


def _not_loadable(ctx: Context, loaded: Loaded, facts: nginx.CertificateFiles) -> Iterator[Finding]:
    """A certificate or CA file nginx opens and loads nothing it wants from."""
    path = loaded.line.args[0]
    data = read(ctx, path)
    problem = _unloadable(ctx, data, loaded) if data is not None else None
    if problem is not None:
        what, names = problem
        fails = facts.refusal(ctx.target, path, loaded.ca, names)
        yield ctx.finding(RULE, loaded.line, f"{path} holds {what}: nginx -t fails: {fails}")


def _no_stapling_file(ctx: Context, line: Stmt, stapling: nginx.StaplingFiles) -> Iterator[Finding]:
    """An ssl_stapling_file nginx reads no OCSP response from: one that is no response in DER
    (a PEM one, a certificate, an empty file)."""
    path = line.args[0]
    from nginxgen.base.der import not_ocsp_response  # a stapling file is rare: off start-up

    if (data := read(ctx, path)) is not None and not_ocsp_response(data):
        fails = stapling.unreadable.format(path=path)
        fix = (
            "point ssl_stapling_file at the OCSP response in DER (openssl ocsp ... -respout "
            "FILE), or remove the line"
        )
        yield ctx.finding(
            RULE, line, f"{path} holds no OCSP response in DER: nginx -t fails: {fails}", fix
        )


def _no_key(ctx: Context, line: Stmt) -> Iterator[Finding]:
    """A key file nginx opens and reads no key from (trial 11): no PEM private key in it, or
    an encrypted one where the tree has no ssl_password_file (nginx asks no one for the
    password: `bad password read`)."""
    path = line.args[0]
    data = read(ctx, path)
    if data is None:
        return
    fails = f'cannot load certificate key "{path}": PEM_read_bio_PrivateKey() failed'
    if b"PRIVATE KEY-----" not in data:
        yield ctx.finding(RULE, line, f"{path} holds no private key in PEM: nginx -t fails: "
                          f"{fails}", "point the line at the certificate's private key (PEM)")  # fmt: skip
        return
    encrypted = b"ENCRYPTED PRIVATE KEY-----" in data or b"Proc-Type: 4,ENCRYPTED" in data
    passwords = any(s.directive.endswith("ssl_password_file") for s in ctx.all_statements())
    if encrypted and not passwords:
        yield ctx.finding(
            RULE,
            line,
            f"{path} holds an encrypted key and no ssl_password_file gives its password: "
            f"nginx -t fails: {fails} (bad password read)",
            "give ssl_password_file FILE beside it, or store the key unencrypted "
            "(openssl pkey -in KEY -out KEY.plain)",
        )


def _no_dh_parameters(ctx: Context, line: Stmt, dh: nginx.DhParameters) -> Iterator[Finding]:
    """A DH parameters file nginx opens but reads nothing from: PEM_read_bio_DHparams skips
    blocks of other names and fails where none is left (an empty file, DER, a certificate; X9.42
    parameters with BoringSSL and AWS-LC)."""
    path = line.args[0]
    data = read(ctx, path)
    blocks = libraries.dh_parameter_blocks(ctx.target.library)
    if data is None or any(b"-----BEGIN " + b.encode() + b"-----" in data for b in blocks):
        return
    fails = dh.unreadable.format(path=path)
    reason = libraries.pem_no_start_line(ctx.target.library, blocks[0])
    if reason is not None:
        fails += f" (SSL: {reason})"
    what = " or ".join(f"BEGIN {block}" for block in blocks)
    yield ctx.finding(RULE, line, f"{path} holds no DH parameters in PEM ({what}): nginx -t "
                      f"fails: {fails}", DH_FIX)  # fmt: skip


def _unloadable(ctx: Context, data: bytes, loaded: Loaded) -> tuple[str, bool] | None:
    """What the file lacks for nginx, and whether only the CA names cannot be read; None: it
    loads. The PEM forms each reader takes are the knowledge's (certificate_files)."""
    facts = nginx.certificate_files()
    if not loaded.ca:
        read_as = facts.trusted_read(ctx.target, "certificate")
        return None if load_chain(data, read_as) else ("no certificate in PEM", False)
    if load_chain(data, facts.trusted_read(ctx.target, "ca")):
        if not loaded.names:
            return None
        names = load_chain(data, facts.trusted_read(ctx.target, "client_ca_names"))
        what = "no CA certificate in the plain PEM form (BEGIN CERTIFICATE) for the CA names"
        return None if names else (what, True)
    # OpenSSL's SSL_CTX_load_verify_locations takes a file of CRLs alone; nginx's own reader
    # (1.27.2) wants a certificate
    if not facts.cached(ctx.target) and b"-----BEGIN X509 CRL-----" in data:
        return None
    return "no CA certificate in PEM", False
