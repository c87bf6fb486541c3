"""Client certificates: what a TLS server asks of clients, and what happens to a request that
comes without one, or to a name other than the one its connection was made for.

The one answer to these questions: the lint rules (NGX010's missing CA list, NGX741-NGX744),
`probe --config` (through conf/per_name.py) and the live tests read it.

How nginx decides, from its source (ngx_http_request.c and ngx_http_ssl_module.c, the same in
1.22.1, 1.26.3 and 1.31.3; seen live on those releases,
tests/conf/test_client_certificates_live.py):

- The handshake: nginx starts every connection with the default server's SSL context; where the
  SNI names a server (ngx_http_ssl_servername finds it) that has a context of its own (a
  certificate, or ssl_reject_handshake on), that server's context and verify mode replace it
  (`SSL_set_SSL_CTX`, `SSL_set_verify`, `SSL_set_verify_depth`). So whether a
  CertificateRequest is sent, with which CA names and checked against which CAs, is the SNI's
  server's business, and the default server's for no SNI, a name no server has, or a server
  without a certificate of its own (conf/effective.handshake_server). The
  handshake never fails for a missing or bad certificate: nginx's verify callback accepts
  everything and judges later.
- The request: the server the Host header names answers it. Where the SNI named a server and the
  Host differs from the SNI (letter case aside), and the Host's server (or the default server,
  when no server has that name) has `ssl_verify_client` other than off, nginx answers 421
  Misdirected Request ("client attempted to request the server name different from the one that
  was negotiated"). This holds for HTTP/1.1 as for HTTP/2; what makes it matter is HTTP/2
  clients reusing one connection for every name its certificate covers (RFC 9113 9.1.1).
- Then (ngx_http_process_request) the answering server's mode: `on` without a certificate is
  400 "No required SSL certificate was sent"; a certificate that failed verification is 400
  "The SSL certificate error" (`optional_no_ca` lets an unknown issuer through); `optional`
  and `optional_no_ca` serve the request either way and leave the verdict in
  `$ssl_client_verify` (NONE, SUCCESS, FAILED:reason) for the config to act on.
- Before either 400, nginx removes the connection's session from the session cache
  (`ngx_ssl_remove_cached_session` on `c->ssl->session_ctx`, the default server's context, in
  1.22.1 to 1.31.3): that session no longer resumes by its ID, nor in TLS 1.3 from the cache;
  a ticket the client already holds still resumes (seen live,
  tests/probe/test_probe_resumption_live.py). A 421 removes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.conf.config import Config, Server, server_for_name
from nginxgen.conf.effective import handshake_server
from nginxgen.conf.files import read
from nginxgen.conf.load import Stmt, walk
from nginxgen.conf.variables import derived, mentions
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, nginx
from nginxgen.knowledge.upstream import request_passes

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.base.der import Certificate
    from nginxgen.knowledge.target import Target

MODES = ("off", "on", "optional", "optional_no_ca")
FACTS = nginx.client_certificates()  # statuses, default depth: with sources
DEFAULTS = {
    "ssl_verify_client": "off",
    "ssl_verify_depth": str(FACTS.default_depth),
    "ssl_ocsp": "off",
}
VARIABLE = "ssl_client_verify"
NO_CERTIFICATE = FACTS.no_certificate_status  # NGX_HTTPS_NO_CERT (496) answered as 400
MISDIRECTED = FACTS.misdirected_status
CERTIFICATE_ERROR = FACTS.certificate_error_status  # NGX_HTTPS_CERT_ERROR (495) as 400


@record(frozen=True)
class Setting:
    """One directive in effect in a server: its value and the line that decides it."""

    value: str | None  # the first argument (lower case for the keyword ones); None: not set
    line: Stmt | None  # None: nginx's default


@record(frozen=True)
class VerifyCheck:
    """A line that reads `$ssl_client_verify` (or a variable made from it) to act on it."""

    line: Stmt
    how: str  # "if" (the config judges), "passed" (a header or parameter to the backend)


@record(frozen=True)
class ClientCertificates:
    """The client-certificate settings in effect in one server, each with its deciding line."""

    server: Server
    verify: Setting  # off, on, optional, optional_no_ca
    client_certificate: Setting  # CA list sent to clients and trusted (path)
    trusted_certificate: Setting  # trusted, not sent (path)
    depth: Setting  # ssl_verify_depth, default 1
    crl: Setting
    ocsp: Setting  # off, on, leaf
    ocsp_responder: Setting
    checks: tuple[VerifyCheck, ...]  # looked for only where it asks for a certificate
    unknown: Stmt | None  # an include that could not be read: the checks are not all known

    @property
    def asks(self) -> bool:
        """Whether the handshake asks for a certificate (a CertificateRequest)."""
        return _asks(self.verify)

    @property
    def required(self) -> bool:
        return self.verify.value == "on"


def _asks(verify: Setting) -> bool:
    return verify.value not in (None, "off")


def _setting(server: Server, directive: str, lower: bool = False) -> Setting:
    lines = server.effective(directive)
    if not lines or not lines[-1].args:
        return Setting(DEFAULTS.get(directive), None)
    value = lines[-1].args[0]
    return Setting(value.lower() if lower else value, lines[-1])


def _checks(config: Config, server: Server) -> tuple[VerifyCheck, ...]:
    names = derived(config, server, VARIABLE)
    # directives that hand a value to the backend, which may judge it (the model cannot see it)
    passing = set(request_passes().values())
    found = []
    inside = walk(server.stmt.block or [])
    http_passing = [s for d in sorted(passing) for s in config.http.get(d, [])]
    for stmt in [*inside, *http_passing]:
        if stmt.directive == "if" and mentions(stmt.args, names):
            found.append(VerifyCheck(stmt, "if"))
        elif stmt.directive in passing and mentions(stmt.args, names):
            found.append(VerifyCheck(stmt, "passed"))
    return tuple(found)


def _unknown(config: Config, server: Server) -> Stmt | None:
    # an include is unread only where the load said so: most trees have none, and a fleet's
    # 2,000 servers were each walked to find out
    if any(p.kind == "missing-include" for p in config.loaded.problems):
        for stmt in walk(server.stmt.block or []):
            if stmt.directive == "include" and stmt.unread:
                return stmt
    return server.unknown("ssl_verify_client")


def client_certificates(config: Config, server: Server) -> ClientCertificates:
    """What `server` asks of clients and how it checks what they send."""
    verify = _setting(server, "ssl_verify_client", lower=True)
    return ClientCertificates(
        server=server,
        verify=verify,
        client_certificate=_setting(server, "ssl_client_certificate"),
        trusted_certificate=_setting(server, "ssl_trusted_certificate"),
        depth=_setting(server, "ssl_verify_depth"),
        crl=_setting(server, "ssl_crl"),
        ocsp=_setting(server, "ssl_ocsp", lower=True),
        ocsp_responder=_setting(server, "ssl_ocsp_responder"),
        # a fleet's servers rarely ask: walking each one's lines for checks was most of this
        checks=_checks(config, server) if _asks(verify) else (),
        unknown=_unknown(config, server),
    )


def ca_names(
    config: Config, settings: ClientCertificates, target: Target
) -> tuple[str, ...] | None:
    """The CA names the CertificateRequest carries (RFC 4514, each once): the subjects of the
    certificates in `ssl_client_certificate` that this nginx reads as names (before 1.27.2
    SSL_load_client_CA_file, which skips the `TRUSTED CERTIFICATE` form: knowledge
    certificate_files), in the file's order, except where that function of a library sorts them
    (knowledge: client_ca_list_sorted); none without that file (`ssl_trusted_certificate` is
    trusted but not named). None: the file cannot be read here."""
    from nginxgen.base.der import load_chain

    path = settings.client_certificate.value
    if not settings.asks or path is None:
        return ()
    data = read(config.loaded, path)
    if data is None:
        return None
    read_as = nginx.certificate_files().trusted_read(target, "client_ca_names")
    chain = load_chain(data, read_as)
    by_library = target.nginx < Version(nginx.certificate_files().ca_cached_since)
    if by_library and libraries.has(target.library, "client_ca_list_sorted"):
        chain = sorted(chain, key=lambda cert: cert.subject_order)
    return tuple(dict.fromkeys(cert.subject_text for cert in chain))


def _is_ca(cert: Certificate) -> bool:
    """A CA certificate: basicConstraints cA true (RFC 5280 4.2.1.9); without the extension
    (version 1 certificates) only a self-signed one, an old root."""
    from cryptography import x509

    try:
        found = cert.crypto().extensions.get_extension_for_class(x509.BasicConstraints)
    except x509.ExtensionNotFound:
        return cert.issuer == cert.subject
    return bool(found.value.ca)


@record(frozen=True)
class Depth:
    """The verify depth a client certificate issued by the deepest CA of the trust files needs."""

    needed: int  # CA certificates between such a leaf and its root (the root not counted)
    issuer: str  # that CA's subject


def depth_needed(config: Config, settings: ClientCertificates) -> Depth | None:
    """OpenSSL counts the certificates above the client's own up to the trust anchor, the
    anchor itself not counted: a leaf issued by a root needs depth 0, by an intermediate under
    the root 1 (nginx's default), by an intermediate two below the root 2. Only CA
    certificates issue client certificates: a server's own leaf in the files (a full chain
    named for OCSP stapling) is not counted. None: the files cannot be read, or hold no CA chain
    that reaches a self-signed root."""
    files: list[bytes] = []
    for setting in (settings.client_certificate, settings.trusted_certificate):
        if setting.value is None:
            continue
        data = read(config.loaded, setting.value)
        if data is None:
            return None
        files.append(data)
    return depth_of_files(files)


def depth_of_files(files: list[bytes]) -> Depth | None:
    """depth_needed for the contents of the CA files (the generator reads a model's `ca`)."""
    from nginxgen.base.der import TRUSTED_ALL, load_chain

    trusted = TRUSTED_ALL  # the trust store takes both PEM forms (knowledge: certificate_files)
    certs = [c for data in files for c in load_chain(data, trusted) if _is_ca(c)]
    by_subject = {c.subject: c for c in certs}
    best: Depth | None = None
    for cert in certs:
        level, at = 0, cert
        while at.issuer != at.subject and level <= len(certs):
            parent = by_subject.get(at.issuer)
            if parent is None:
                break
            level, at = level + 1, parent
        if at.issuer != at.subject:  # no root above it in the files: nothing verifies
            continue
        if best is None or level > best.needed:
            best = Depth(level, cert.subject_text)
    return best


def refuses_handshakes(server: Server) -> bool:
    """Whether nginx refuses every handshake for the server (`ssl_reject_handshake on` in
    effect, ngx_http_ssl_servername): no connection is ever made for its names, so none can be
    reused for another name on its address."""
    lines = server.effective("ssl_reject_handshake")
    return bool(lines) and flag_on(lines[-1].args)


def sharing(config: Config, socket: str, server: Server) -> list[Server]:
    """The other servers of `socket` a connection can be made for (their handshake completes):
    a request for `server` may arrive on such a connection (RFC 9113 9.1.1 reuse)."""
    return [s for s in config.sockets[socket] if s is not server and not refuses_handshakes(s)]


@record(frozen=True)
class Outcome:
    """What nginx does with one request on a connection made for `sni`."""

    handshake: Server  # whose TLS context the handshake ran on (effective.handshake_server)
    answering: Server  # the server the Host names (else the default), whose mode is judged
    status: int | None  # 421, 400 (no or bad certificate); None: served as the config says
    why: str
    kind: str  # misdirected, no-certificate, certificate-error or served

    @property
    def drops_session(self) -> bool:
        """Whether nginx removes the connection's session from the session cache on answering
        (the two 400s, not the 421)."""
        return self.kind in ("no-certificate", "certificate-error")


def request_outcome(
    config: Config,
    socket: str,
    sni: str | None,
    host: str,
    certificate: bool,
    trusts: Callable[[ClientCertificates], bool] | None = None,
) -> Outcome:
    """A request with `host` on a connection made with `sni` to `socket`; `certificate`: the
    client has one (it sends it only when asked); `trusts`: whether the CA files of a server's
    settings verify it (None: they do). The certificate is verified in the handshake, against
    the handshake server's files; the answering server judges the verdict by its own mode:
    `on` and `optional` refuse a certificate that failed (400, "The SSL certificate error"),
    `optional_no_ca` lets an unknown issuer through, `off` does not look."""

    servers = config.sockets[socket]
    default = config.default_server(socket)
    named = server_for_name(servers, sni)
    handshake = handshake_server(named or default, default)
    by_host = server_for_name(servers, host) or default
    shook = client_certificates(config, handshake)
    sent = certificate and shook.asks
    verified = sent and (trusts is None or trusts(shook))
    if named is not None and sni is not None and host.lower() != sni.lower():
        mode = client_certificates(config, by_host).verify
        if mode.value != "off":
            return Outcome(
                handshake,
                by_host,
                MISDIRECTED,
                f"the connection was made for {sni} and the Host {host} names a server with "
                f"ssl_verify_client {mode.value}",
                "misdirected",
            )
    answering = by_host if named is None or host.lower() != (sni or "").lower() else named
    judged = client_certificates(config, answering)
    if sent and not verified and judged.verify.value in ("on", "optional"):
        why = "the certificate sent does not verify against the handshake server's CA files"
        return Outcome(handshake, answering, CERTIFICATE_ERROR, why, "certificate-error")
    if judged.required and not sent:
        why = (
            "no certificate was sent"
            if shook.asks
            else f"the handshake (with {sni or 'no SNI'}) asked for none"
        )
        return Outcome(handshake, answering, NO_CERTIFICATE, why, "no-certificate")
    return Outcome(handshake, answering, None, "served", "served")
