"""nginx itself (nginx.toml): the current release, directives and features by release, its
defaults, what only the default server of an address:port decides, and what nginx does in the
cases its documentation leaves out (each fact with its source)."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import Version, in_range
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.libraries import behaves_as, has

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.builds import Target


def current_nginx() -> Version:
    return Version(toml_file("nginx")["current"]["stable"])


@record(frozen=True)
class DirectiveStatus:
    name: str
    available: bool
    released: bool  # the target's release has it (since reached), however this nginx was built
    deprecated: bool
    since: str | None
    removed: str | None
    plus_only: bool
    replacement: str | None
    source: str
    module: str | None


def directive_status(target: Target, name: str, table: str = "directive") -> DirectiveStatus | None:
    """What the target's nginx makes of a directive (`table` also: listen_param, protocol_param).

    None when the knowledge base has nothing to say about the name.
    """
    data = toml_file("nginx").get(table, {}).get(name)
    if data is None:
        return None
    version = target.nginx
    since, removed = data.get("since"), data.get("removed")
    released = in_range(version, since, None)
    available = in_range(version, since, removed)
    module = data.get("module")
    if data.get("plus_only") and not target.plus:
        available = False
    if module and target.modules is not None and module not in target.modules:
        available = False
    deprecated = data.get("deprecated") is not None and version >= Version(data["deprecated"])
    return DirectiveStatus(
        name=name,
        available=available,
        released=released,
        deprecated=deprecated,
        since=since,
        removed=removed,
        plus_only=bool(data.get("plus_only")),
        replacement=data.get("replacement"),
        source=data["source"],
        module=module,
    )


def known_names(table: str = "directive") -> frozenset[str]:
    """Directive (or listen/protocol parameter) names the knowledge base has facts about."""
    return frozenset(toml_file("nginx").get(table, {}))


def default_protocols(target: Target) -> tuple[str, ...]:
    return _default_protocols(target.nginx)


@cache
def _default_protocols(nginx: Version | None) -> tuple[str, ...]:
    for row in toml_file("nginx")["default_protocols"]:
        if in_range(nginx, row.get("since"), row.get("until")):
            return tuple(row["protocols"])
    raise LookupError(f"no default ssl_protocols for nginx {nginx}")


def listen_param_needs_protocol(param: str) -> str | None:
    """The protocol ssl_protocols must enable for a listen parameter (quic: TLSv1.3)."""
    value = toml_file("nginx")["listen_param"].get(param, {}).get("needs_protocol")
    return str(value) if value else None


def feature_available(target: Target, name: str) -> bool:
    """An nginx feature without a directive of its own (`ssl_sendfile`, ...)."""
    data = toml_file("nginx")["feature"][name]
    return in_range(target.nginx, data.get("since"), data.get("until"))


def feature_since(name: str) -> str:
    return str(toml_file("nginx")["feature"][name]["since"])


@record(frozen=True)
class Distribution:
    """The nginx and OpenSSL branch a distribution's release installs (`apt install nginx`)."""

    name: str
    nginx: str  # as --nginx-version takes it
    tls_library: str  # as --tls-library takes it
    source: str


@cache
def distributions() -> tuple[Distribution, ...]:
    return tuple(from_table(Distribution, entry) for entry in toml_file("nginx")["distribution"])


def _table(key: str) -> dict[str, Any]:
    table: dict[str, Any] = toml_file("nginx")[key]
    return table


@record(frozen=True)
class Defaults:
    """nginx's own values where no line sets them (every release nginxgen knows)."""

    ssl_ciphers: str
    ssl_session_timeout: str
    ssl_buffer_size: str
    keepalive_timeout: str
    keepalive_requests: int
    sendfile: str
    source: str


@cache
def defaults() -> Defaults:
    return from_table(Defaults, _table("defaults"))


@record(frozen=True)
class KeepaliveRequestsDefault:
    """keepalive_requests' default: `value` since `since`, `before` in older releases."""

    value: int
    before: int
    since: str
    source: str


@cache
def keepalive_requests_default() -> KeepaliveRequestsDefault:
    data = _table("keepalive_requests_default")
    return from_table(KeepaliveRequestsDefault, data, before=data["before_1_19_10"])


@record(frozen=True)
class TicketRotation:
    """The release from which nginx rotates session ticket keys itself (with a shared cache and
    no ssl_session_ticket_key)."""

    since: str
    source: str


@cache
def ticket_rotation() -> TicketRotation:
    return from_table(TicketRotation, _table("ticket_rotation"))


def auto_ticket_rotation(target: Target) -> bool:
    return target.nginx >= Version(ticket_rotation().since)


@record(frozen=True)
class DhParameters:
    """The directive DHE suites need in effect (`directive`), from the release that dropped
    nginx's built-in DH parameters (`builtin_until`) on."""

    directive: str
    builtin_until: str
    message: str  # nginx's words for a file it cannot open (`{path}`)
    unreadable: str  # and for one that holds no DH parameters
    source: str


@cache
def dh_parameters() -> DhParameters:
    return from_table(DhParameters, _table("dh_parameters"))


@record(frozen=True)
class StaplingFiles:
    """What nginx -t says of an ssl_stapling_file it cannot open (`message`) or reads no OCSP
    response in DER from (`unreadable`); `{path}`: the file."""

    directive: str
    message: str
    unreadable: str
    source: str
    seen: str


@cache
def stapling_files() -> StaplingFiles:
    return from_table(StaplingFiles, _table("stapling_files"))


def dhe_needs(target: Target) -> str | None:
    """The directive without which a server of this release negotiates no DHE suite (None:
    the release has built-in parameters)."""
    known = dh_parameters()
    return known.directive if target.nginx >= Version(known.builtin_until) else None


@record(frozen=True)
class Duplicates:
    """The directives nginx takes together when given twice in one block (`merged`); which ones
    it refuses ("is duplicate") is read from its source per release
    (nginxgen.knowledge.directives.refused_twice)."""

    merged: frozenset[str]
    source: str


@cache
def duplicates() -> Duplicates:
    return from_table(Duplicates, _table("duplicate"))


@record(frozen=True)
class ValueTypes:
    """How nginx reads each argument of these directives, so that values it treats as equal
    compare equal: times (ngx_parse_time), sizes (ngx_parse_size), flags (any letter case),
    bitmask lists (any order and case), and ssl_session_cache's `shared:NAME:SIZE`."""

    time: frozenset[str]
    size: frozenset[str]
    flag: frozenset[str]
    bitmask: frozenset[str]
    session_cache: frozenset[str]
    source: str


@cache
def value_types() -> ValueTypes:
    return from_table(ValueTypes, _table("value_types"))


@record(frozen=True)
class BackportPackage:
    """A distribution package that carries a directive before its nginx release: its nginx
    release and the TLS library branch it links against (`openssl-3.0`: kind and major.minor)."""

    name: str
    nginx: str
    library: str

    def could_be(self, target: Target) -> bool:
        """Whether the target could be this package: the same nginx release, and a library of
        the same kind and branch (a build of another library or branch is not the package)."""
        kind, _, branch = self.library.rpartition("-")
        version = target.library.version
        return (
            target.nginx == Version(self.nginx)
            and target.library.kind == kind
            and (version is None or _branch(version) == _branch(Version(branch)))
        )


def _branch(version: Version) -> tuple[int, int]:
    """major.minor (`3.0.22` -> (3, 0); Version drops trailing zeros: `3.0` is (3,))."""
    major, minor = (*version.parts, 0)[:2]
    return major, minor


@record(frozen=True)
class Backport:
    """A directive distribution packages carry before the nginx release that added it."""

    name: str
    since: str  # the nginx release that added it
    packages: tuple[BackportPackage, ...]  # the packages that carry it earlier
    source: str

    def packages_for(self, target: Target) -> tuple[BackportPackage, ...]:
        """The packages the target could be (none: nginx refuses the directive there)."""
        return tuple(p for p in self.packages if p.could_be(target))


@cache
def backports() -> dict[str, Backport]:
    return {
        name: from_table(
            Backport,
            data,
            name=name,
            packages=tuple(from_table(BackportPackage, p) for p in data["packages"]),
        )
        for name, data in _table("backported").items()
    }


@record(frozen=True)
class AddHeader:
    """The statuses add_header adds its field to without `always`."""

    statuses_without_always: frozenset[int]
    source: str


@cache
def add_header() -> AddHeader:
    return from_table(AddHeader, _table("add_header"))


@record(frozen=True)
class TicketsAgainstDefault:
    """Resumption for a name whose server turns ssl_session_tickets the other way from the
    default server that decides them, before nginx 1.29.2, with `libraries` (others follow the
    name's own value): unless a retried handshake (the default server's groups without the
    client's key share `unless_retry_from_key_share`) makes it depend on the client."""

    tls13_resumes: bool
    tls12_ticket_resumes: bool
    unless_retry_from_key_share: str
    libraries: frozenset[str]
    why: str  # why the name's own tickets line does not give what it means, in words
    source: str


def _tickets(key: str) -> TicketsAgainstDefault:
    return from_table(TicketsAgainstDefault, _table(key))


@cache
def tickets_on_under_off() -> TicketsAgainstDefault:
    """The name's tickets on, the default server's off."""
    return _tickets("tickets_on_under_off")


@cache
def tickets_off_under_on() -> TicketsAgainstDefault:
    """The name's tickets off, the default server's on."""
    return _tickets("tickets_off_under_on")


@record(frozen=True)
class VhostSessionCacheOff:
    """A virtual server's own `ssl_session_cache off` under a default server with a shared
    cache: whether its TLS 1.2 session-ID resumption is predicted at all."""

    session_id_resumption_predicted: bool
    seen: str
    source: str


@cache
def vhost_session_cache_off() -> VhostSessionCacheOff:
    return from_table(VhostSessionCacheOff, _table("vhost_session_cache_off"))


@record(frozen=True)
class ClientCertificates:
    """How nginx asks for and judges client certificates (ssl_verify_client)."""

    handshake_from: str  # the server whose settings the handshake uses: the SNI name's
    misdirected_status: int  # a request for another server than the handshake's
    no_certificate_status: int  # NGX_HTTPS_NO_CERT (496), answered as this
    no_certificate_page: str  # the page nginx sends then
    certificate_error_status: int  # NGX_HTTPS_CERT_ERROR (495), a certificate that fails: this
    certificate_error_page: str  # the page nginx sends then
    default_depth: int  # ssl_verify_depth's default
    ca_names_from: str  # the directive whose CAs the server names in its request
    ocsp_refused_with: str  # the ssl_verify_client value nginx -t refuses ssl_ocsp beside
    ocsp_message: str
    source: str


@cache
def client_certificates() -> ClientCertificates:
    return from_table(ClientCertificates, _table("client_certificates"))


@record(frozen=True)
class DefaultServerOnly:
    key: str  # a directive, or "ssl_conf_command NAME"
    why: str
    source: str  # for the block asked about: in stream{}, the stream evidence
    only_value: str | None


def default_server_only(target: Target, block: str = "http") -> dict[str, DefaultServerOnly]:
    """Settings that, on this target, only the default server of an address:port decides, in
    http{} or in stream{} servers (an entry holds in stream where it names its stream
    evidence)."""
    result: dict[str, DefaultServerOnly] = {}
    kind = behaves_as(target.library)
    for key, data in _table("default_server_only").items():
        blocks = data.get("blocks") or ["http", *(["stream"] if "stream" in data else [])]
        if block not in blocks:
            continue
        libraries = data.get("libraries")
        if libraries is not None and kind not in libraries and target.library.kind not in libraries:
            continue
        per_vhost_since = data.get("per_vhost_since")
        if per_vhost_since and target.nginx >= Version(per_vhost_since):
            per_vhost_libs = data.get("per_vhost_libraries")
            if per_vhost_libs is None or kind in per_vhost_libs:
                continue
        source = data["source"] if block == "http" else f"{data['source']}; {data['stream']}"
        result[key] = DefaultServerOnly(
            key=key, why=data["why"], source=source, only_value=data.get("only_value")
        )
    return result


def stream_virtual_servers(target: Target) -> bool:
    """Whether stream{} servers share an address:port by name (server_name, since 1.25.5)."""
    return target.nginx >= Version(_table("stream")["virtual_servers_since"])


@record(frozen=True)
class ListenCertificate:
    """A `listen ... ssl` (or quic) address needs certificates where nginx sets TLS up for it:
    its default server one in effect, or ssl_reject_handshake on; nginx -t refuses it with
    `message` (`{kind}`: ssl or quic) otherwise. stream{} checks so from
    `stream_default_server_since`, before that each server with `listen ... ssl`."""

    message: str
    stream_default_server_since: str
    seen: str
    # `ssl on;` (until 1.25.1) in effect in a server with no certificate, default or not
    ssl_directive_message: str
    ssl_directive_source: str
    # mail{}: the checks of each server with TLS on (`{mode}`: listen ... ssl, ssl, starttls)
    mail_message: str
    mail_key_message: str
    mail_keys_message: str
    mail_source: str
    source: str
    # the ssl_* lines nginx reads from the named server, not from the TLS context the handshake
    # runs on (a vhost without a certificate runs on the default server's)
    per_server: tuple[str, ...]
    context_seen: str


@cache
def listen_certificate() -> ListenCertificate:
    return from_table(ListenCertificate, _table("listen_certificate"))


@record(frozen=True)
class CertificateFiles:
    """How nginx reads certificate and CA files, and what nginx -t says of one it cannot load
    (`{path}`: the file): `message` for ssl_certificate, and for CA files from
    `ca_cached_since`; before that `ca_message_before` (OpenSSL's
    SSL_CTX_load_verify_locations), or `client_ca_message_before` where only the CA names of
    ssl_client_certificate cannot be read. Which `TRUSTED CERTIFICATE` blocks each reader takes:
    `trusted_read` (base/der.py load_chain's TRUSTED_FIRST, TRUSTED_ALL, TRUSTED_NONE)."""

    message: str
    ca_message_before: str
    ca_cached_since: str
    crl_message: str
    crl_message_before: str
    cached_missing: str
    trusted_certificate: str
    trusted_ca: str
    trusted_client_ca_names_before: str
    client_ca_message_before: str
    source: str
    trusted_source: str

    def cached(self, target: Target) -> bool:
        """Whether this nginx reads CA files itself, once (1.27.2), not through OpenSSL's
        SSL_CTX_load_verify_locations and SSL_load_client_CA_file."""
        return target.nginx >= Version(self.ca_cached_since)

    def refusal(self, target: Target, path: str, ca: bool, names: bool = False) -> str:
        """nginx -t's message for a file it cannot load; `names`: only the CA names of an
        ssl_client_certificate file cannot be read (before 1.27.2)."""
        if not ca or self.cached(target):
            template = self.message
        else:
            template = self.client_ca_message_before if names else self.ca_message_before
        return template.format(path=path)

    def crl_refusal(self, target: Target, path: str) -> str:
        """nginx -t's message for an ssl_crl file it cannot load (crl_message)."""
        template = self.crl_message if self.cached(target) else self.crl_message_before
        return template.format(path=path)

    def crl_missing(self, target: Target, path: str) -> str:
        """nginx -t's message for an ssl_crl file that does not exist: from 1.27.2 its cache
        opens the file and says which call failed (cached_missing)."""
        refusal = self.crl_refusal(target, path)
        return f"{refusal}: {self.cached_missing}" if self.cached(target) else refusal

    def crl_loads(self, target: Target, data: bytes) -> bool:
        """Whether nginx loads this ssl_crl file's text: a CRL in PEM; before 1.27.2 (OpenSSL's
        X509_LOOKUP_load_file) a certificate in PEM does too."""
        if b"-----BEGIN X509 CRL-----" in data:
            return True
        return not self.cached(target) and any(
            b"-----BEGIN " + kind + b"-----" in data
            for kind in (b"CERTIFICATE", b"TRUSTED CERTIFICATE", b"X509 CERTIFICATE")
        )

    def trusted_read(self, target: Target, kind: str) -> str:
        """Which trusted-form blocks nginx reads of a file of `kind`: "certificate" (an
        ssl_certificate file), "ca" (a trust store), "client_ca_names" (the CA names an
        ssl_client_certificate file gives clients; before 1.27.2 read apart)."""
        if kind == "certificate":
            return self.trusted_certificate
        if kind == "client_ca_names" and not self.cached(target):
            return self.trusted_client_ca_names_before
        return self.trusted_ca


@cache
def certificate_files() -> CertificateFiles:
    return from_table(CertificateFiles, _table("certificate_files"))


@record(frozen=True)
class KeyPrefix:
    """A certificate key source other than a file (`store:URI`): the release that reads it, and
    the library capability it needs (libraries.toml)."""

    prefix: str
    since: str
    capability: str | None = None


@record(frozen=True)
class CertificateKeys:
    """Where nginx reads a certificate key from: a file, or a source named by a prefix."""

    message: str  # nginx's words for a key it cannot load (`{path}`: the value)
    unsupported: str  # nginx's words for a prefix the library cannot serve (`{prefix}`)
    prefixes: tuple[KeyPrefix, ...]
    source: str

    def refusal(self, target: Target, path: str) -> str | None:
        """What nginx -t says of this key value (None: nothing known against it). A value with
        a variable is loaded per handshake; a file is NGX727's other question."""
        if "$" in path:
            return None
        found = next((p for p in self.prefixes if path.startswith(p.prefix)), None)
        if found is None:
            return None
        failed = self.message.format(path=path)
        if target.nginx < Version(found.since):
            return (
                f"{failed}: nginx {target.nginx} reads it as a file name ({found.prefix} keys "
                f"came in nginx {found.since})"
            )
        if found.capability and not has(target.library, found.capability):
            return f"{failed}: {self.unsupported.format(prefix=found.prefix)}"
        return None


@cache
def certificate_keys() -> CertificateKeys:
    data = _table("certificate_keys")
    return from_table(
        CertificateKeys, data, prefixes=tuple(from_table(KeyPrefix, p) for p in data["prefixes"])
    )


@record(frozen=True)
class DynamicModule:
    """A module built as a file of its own (`--with-NAME=dynamic`): `file` in the binary's
    --modules-path, loaded with load_module; Debian ships it in `debian_package`."""

    file: str
    debian_package: str
    source: str


@cache
def dynamic_module(name: str) -> DynamicModule:
    return from_table(DynamicModule, _table("dynamic_module")[name])


def dynamic_module_names() -> frozenset[str]:
    """The modules (block directives: `stream`) whose loadable file the knowledge names."""
    return frozenset(_table("dynamic_module"))
