"""nginx as a TLS client: for one connection nginx makes to a TLS backend, the client-side
settings in effect, each with the line that decides it and that line's level.

The one model of this for every block that has the directives: an http{} location's
`proxy_pass https://`, `grpc_pass grpcs://` and `uwsgi_pass suwsgi://` (conf/upstream.py adds
what only http has: the location, the pass line, keepalive), and a stream{} server's
`proxy_ssl on` (conf/stream.py). A caller gives the directive family's prefix (`proxy`, `grpc`,
`uwsgi`) and the levels its block inherits from, outermost first (http{} -> server ->
location -> nested location; stream{} -> server); nginx merges each `*_ssl_*` directive on its
own down those levels (ngx_http_proxy_merge_loc_conf, ngx_stream_proxy_merge_srv_conf): a
level's own line wins, else the enclosing level's, else nginx's default (knowledge:
upstream_tls). `*_ssl_conf_command` and `proxy_set_header` are lists merged whole: a level with
any line of its own replaces all the enclosing ones.
"""

from __future__ import annotations

from nginxgen.base.records import record
from nginxgen.conf.groups import parse_groups
from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import tls_groups
from nginxgen.knowledge.target import Target
from nginxgen.knowledge.upstream import upstream_default_protocols, upstream_tls_defaults

# the levels a connection's lines are merged from, outermost first: (level, its block, its lines)
Level = tuple[str, Stmt | None, dict[str, list[Stmt]]]


@record(frozen=True)
class Flag:
    """An on/off setting in effect, the line that decides it and that line's level."""

    value: bool
    line: Stmt | None  # None: nginx's default
    level: str  # "http", "stream", "server", "location", or "default"


@record(frozen=True)
class Text:
    """A one-value setting in effect (None: not set and no default nginx applies)."""

    value: str | None
    line: Stmt | None
    level: str


@record(frozen=True)
class Words:
    """A setting of several words in effect (protocols)."""

    value: tuple[str, ...]
    line: Stmt | None
    level: str


@record(frozen=True)
class Lines:
    """A list directive in effect: the lines of the innermost level that has any."""

    lines: tuple[Stmt, ...]
    level: str

    def named(self, name: str) -> tuple[Stmt, ...]:
        """`*_ssl_conf_command NAME ...` lines among them (names compare without case)."""
        return tuple(s for s in self.lines if s.args and s.args[0].lower() == name.lower())


@record(frozen=True)
class Destination:
    """Where a pass line sends connections."""

    url: str  # as written
    host: str | None  # the host without port; None: a variable decides it per connection
    port: str | None
    upstream: Stmt | None  # the upstream{} block the host names (a literal host, no port)


@record(frozen=True)
class Name:
    """The name nginx verifies the backend's certificate against and, with `*_ssl_server_name
    on`, sends as SNI: the `*_ssl_name` line's, else the pass's host ($proxy_host in http),
    which is the upstream{} block's name where the pass names one. Any port is stripped (as
    nginx does, ngx_http_upstream_ssl_name and ngx_stream_proxy_ssl_name alike)."""

    value: str | None  # None: a variable decides it per connection
    line: Stmt | None  # the *_ssl_name line; None: the default
    level: str
    upstream: Stmt | None  # the upstream{} block whose name it is, by default

    @property
    def hostname(self) -> bool | None:
        """Whether nginx can send it as SNI: a host name, not an IP address literal (RFC 6066:
        nginx skips SNI for those) nor a unix socket. None: not known before a connection."""
        if self.value is None:
            return None
        return is_hostname(self.value)


def is_hostname(name: str) -> bool:
    if not name or name.startswith(("[", "unix:")) or "$" in name:
        return False
    import ipaddress  # only for a backend's name: most lints of a commit have none

    try:
        ipaddress.ip_address(name)
    except ValueError:
        return True
    return False


def strip_port(name: str) -> str:
    """A name without its port, as nginx strips it: `[::1]:443` -> `[::1]`, `host:443` ->
    `host`."""
    if name.startswith("["):
        end = name.find("]")
        return name[: end + 1] if end != -1 else name
    return name.split(":", 1)[0]


def _split_host(hostport: str) -> tuple[str, str | None]:
    if hostport.startswith("["):
        end = hostport.find("]")
        rest = hostport[end + 1 :] if end != -1 else ""
        return hostport[: end + 1], rest[1:] if rest.startswith(":") else None
    host, sep, port = hostport.partition(":")
    return host, port if sep else None


def upstream_blocks(lines: dict[str, list[Stmt]]) -> dict[str, Stmt]:
    """The upstream{} blocks among a block's lines (http{}'s or stream{}'s), by name in lower
    case: nginx compares names without case (ngx_http_upstream_add, ngx_stream_upstream_add)."""
    return {
        s.args[0].lower(): s for s in lines.get("upstream", []) if s.args and s.block is not None
    }


def destination(url: str, upstreams: dict[str, Stmt]) -> Destination:
    """What a pass names: an http URL (its scheme already known to be TLS) or a stream
    `proxy_pass` address (`host:port`, an upstream{} block's name, `unix:/path`), among the
    block's `upstreams` (upstream_blocks)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    if rest.lower().startswith("unix:"):
        # nginx's host for a socket is its path: a name it never sends as SNI
        return Destination(url, "unix:" + rest[5:].split(":", 1)[0], None, None)
    hostport = rest.split("/", 1)[0]
    if "$" in hostport or not hostport:
        return Destination(url, None, None, None)
    host, port = _split_host(hostport)
    # an upstream{} block is named by a literal host without port; nginx refuses one with a port
    block = upstreams.get(host.lower()) if port is None else None
    return Destination(url, host, port, block)


class ClientTls:
    """The client-side TLS of one connection to a backend: one method per setting, each the
    value in effect with its deciding line (resolved over `levels` for the directive family
    `prefix`)."""

    def __init__(
        self, target: Target, prefix: str, levels: list[Level], destination: Destination
    ) -> None:
        self.target = target
        self.prefix = prefix  # "proxy", "grpc", "uwsgi"
        self.levels = levels  # outermost first
        self.destination = destination

    def directive(self, key: str) -> str:
        """This family's directive for a setting: `verify` -> proxy_ssl_verify."""
        return f"{self.prefix}_ssl_{key}"

    def deciding(self, directive: str) -> tuple[Stmt | None, str]:
        """The line of `directive` in effect here and its level: the innermost level's last."""
        for level, _, lines in reversed(self.levels):
            if lines.get(directive):
                return lines[directive][-1], level
        return None, "default"

    def _flag(self, key: str, default: bool) -> Flag:
        line, level = self.deciding(self.directive(key))
        return Flag(flag_on(line.args) if line else default, line, level)

    def _text(self, key: str, default: str | None = None) -> Text:
        line, level = self.deciding(self.directive(key))
        return Text(line.args[0] if line and line.args else default, line, level)

    def _list(self, directive: str) -> Lines:
        for level, _, lines in reversed(self.levels):
            if lines.get(directive):
                return Lines(tuple(lines[directive]), level)
        return Lines((), "default")

    # --- the settings ---------------------------------------------------------------------------

    def verify(self) -> Flag:
        """Whether the backend's certificate (and name) is verified (default off)."""
        return self._flag("verify", upstream_tls_defaults().verify)

    @property
    def unverified(self) -> bool:
        """Whether anyone on the path can stand in for the backend: verification is off."""
        return not self.verify().value

    def trusted_certificate(self) -> Text:
        """The CA file verification trusts (none by default: nginx -t refuses verify on without
        it, NGX010)."""
        return self._text("trusted_certificate")

    def verify_depth(self) -> Text:
        return self._text("verify_depth", str(upstream_tls_defaults().verify_depth))

    def crl(self) -> Text:
        return self._text("crl")

    def name(self) -> Name:
        """The name verified, and sent as SNI where server_name is on."""
        line, level = self.deciding(self.directive("name"))
        if line is not None and line.args and line.args[0] != "$proxy_host":
            value = None if "$" in line.args[0] else strip_port(line.args[0])
            return Name(value, line, level, None)
        dest = self.destination  # the default ($proxy_host in http), written or not
        return Name(dest.host, line, level, dest.upstream)

    def server_name(self) -> Flag:
        """Whether SNI is sent (default off)."""
        return self._flag("server_name", upstream_tls_defaults().server_name)

    def sni(self) -> str | None:
        """The SNI the backend sees: the name, where server_name is on and it is a host name;
        None: no SNI (or, for a variable name, not known before a connection)."""
        name = self.name()
        return name.value if self.server_name().value and name.hostname else None

    def protocols(self) -> Words:
        """The protocols offered (default: this nginx release's, knowledge)."""
        line, level = self.deciding(self.directive("protocols"))
        if line is not None:
            return Words(tuple(line.args), line, level)
        return Words(upstream_default_protocols(self.target), None, level)

    def ciphers(self) -> Text:
        return self._text("ciphers", upstream_tls_defaults().ciphers)

    def conf_commands(self) -> Lines:
        """The `*_ssl_conf_command` lines in effect (those of the innermost level that has any)."""
        return self._list(self.directive("conf_command"))

    def groups(self) -> tuple[frozenset[str] | None, Stmt | None]:
        """The ids of the key-exchange groups offered to the backend, and the line that chooses
        them: the last `Groups` (or `Curves`) conf_command, else the library's default (nginx has
        no proxy_ssl_ecdh_curve). None: not known for this library."""
        commands = self.conf_commands()
        chosen = [*commands.named("Groups"), *commands.named("Curves")]
        if chosen:
            line = max(chosen, key=lambda s: commands.lines.index(s))
            entries = parse_groups(line.args[1]) if len(line.args) > 1 else []
            ids = frozenset(g.id for e in entries if (g := tls_groups.find_group(e.name)))
            return ids, line
        return tls_groups.default_groups(self.target.library), None

    def session_reuse(self) -> Flag:
        return self._flag("session_reuse", upstream_tls_defaults().session_reuse)

    def certificate(self) -> Text:
        """The client certificate presented to the backend (mutual TLS); None: none."""
        return self._text("certificate")

    def certificate_key(self) -> Text:
        return self._text("certificate_key")
