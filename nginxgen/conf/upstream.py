"""TLS that nginx speaks as a client: for each location that passes to a TLS backend
(`proxy_pass https://...`, `grpc_pass grpcs://...`, `uwsgi_pass suwsgi://...`), the client-side
settings in effect there, each with the line that decides it, and whether the connection is kept
for the next request.

The one answer to "what applies to this upstream connection": lint's NGX8xx rules read it, and
so may the generator's `upstream:` field and the live differential. nginx merges each of the
module's `*_ssl_*` directives on its own down http{} -> server -> location -> nested location
(ngx_http_proxy_merge_loc_conf, and grpc's and uwsgi's alike): a level's own line wins, else the
enclosing level's, else nginx's default (knowledge: upstream_tls). `*_ssl_conf_command` and
`proxy_set_header` are lists merged whole: a level with any line of its own replaces all the
enclosing ones.

Passes in `if` and `limit_except` blocks, and passes whose scheme is a variable
(`proxy_pass $url;`, TLS or not only at run time), are not modelled: nothing is said of them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.groups import parse_groups
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import tls_groups
from nginxgen.knowledge.upstream import (
    PassModule,
    pass_modules,
    upstream_default_protocols,
    upstream_keepalive_defaults,
    upstream_tls_defaults,
)
from nginxgen.records import record
from nginxgen.target import Target

# the levels a location's lines are merged from, outermost first: (level, its block, its lines)
Level = tuple[str, Stmt | None, dict[str, list[Stmt]]]


@record(frozen=True)
class Flag:
    """An on/off setting in effect, the line that decides it and that line's level."""

    value: bool
    line: Stmt | None  # None: nginx's default
    level: str  # "http", "server", "location", or "default"


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
    """Where a pass line sends requests."""

    url: str  # as written
    host: str | None  # the URL's host without port; None: a variable decides it per request
    port: str | None
    upstream: Stmt | None  # the upstream{} block the host names (a literal host, no port)


@record(frozen=True)
class Name:
    """The name nginx verifies the backend's certificate against and, with `*_ssl_server_name
    on`, sends as SNI: the `*_ssl_name` line's, else the URL's host ($proxy_host), which is the
    upstream{} block's name where the URL names one. Any port is stripped (as nginx does)."""

    value: str | None  # None: a variable decides it per request
    line: Stmt | None  # the *_ssl_name line; None: the default
    level: str
    upstream: Stmt | None  # the upstream{} block whose name it is, by default

    @property
    def hostname(self) -> bool | None:
        """Whether nginx can send it as SNI: a host name, not an IP address literal (RFC 6066:
        nginx skips SNI for those) nor a unix socket. None: not known before a request."""
        if self.value is None:
            return None
        return is_hostname(self.value)


@record(frozen=True)
class Keepalive:
    """Whether a connection to the backend is kept for the next request (no new TCP and TLS
    handshake), and the lines that decide it."""

    block: Stmt | None  # the upstream{} block; None: an implicit upstream, which keeps none
    line: Stmt | None  # the block's keepalive line
    connections: int  # kept per worker (0: none)
    http_version: Text | None  # proxy_pass only: the HTTP version it speaks to the backend
    connection: Text | None  # proxy_pass only: the Connection header it sends ("": none)
    kept: bool | None  # None: not known before a request (a variable, a Connection variable)


def is_hostname(name: str) -> bool:
    if not name or name.startswith(("[", "unix:")) or "$" in name:
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return True
    return False


def strip_port(name: str) -> str:
    """A name without its port, as ngx_http_upstream_ssl_name strips it: `[::1]:443` -> `[::1]`,
    `host:443` -> `host`."""
    if name.startswith("["):
        end = name.find("]")
        return name[: end + 1] if end != -1 else name
    return name.split(":", 1)[0]


def upstream_blocks(config: Config) -> dict[str, Stmt]:
    """The upstream{} blocks of http{}, by name (lower case: nginx compares names without
    case, ngx_http_upstream_add)."""
    return {
        s.args[0].lower(): s
        for s in config.http.get("upstream", [])
        if s.args and s.block is not None
    }


def _split_host(hostport: str) -> tuple[str, str | None]:
    if hostport.startswith("["):
        end = hostport.find("]")
        rest = hostport[end + 1 :] if end != -1 else ""
        return hostport[: end + 1], rest[1:] if rest.startswith(":") else None
    host, sep, port = hostport.partition(":")
    return host, port if sep else None


def destination(url: str, upstreams: dict[str, Stmt]) -> Destination:
    """What a pass URL (its scheme already known to be TLS) names."""
    rest = url.split("://", 1)[1] if "://" in url else url
    if rest.lower().startswith("unix:"):
        # nginx's host for a socket is its path: a name it never sends as SNI
        return Destination(url, "unix:" + rest[5:].split(":", 1)[0], None, None)
    hostport = rest.split("/", 1)[0]
    if "$" in hostport:
        return Destination(url, None, None, None)
    host, port = _split_host(hostport)
    # an upstream{} block is named by a literal host without port; nginx refuses one with a port
    block = upstreams.get(host.lower()) if port is None else None
    return Destination(url, host, port, block)


def _tls_scheme(module: PassModule, url: str) -> bool:
    return url.lower().startswith(module.schemes)


class BackendTls:
    """The client-side TLS of one location's pass to a TLS backend: one method per setting,
    each the value in effect with its deciding line."""

    def __init__(
        self,
        config: Config,
        target: Target,
        server: Server,
        locations: tuple[Location, ...],
        module: PassModule,
        pass_line: Stmt,
    ) -> None:
        self.config = config
        self.target = target
        self.server = server
        self.locations = locations  # outermost first; the pass line is in the last
        self.module = module
        self.pass_line = pass_line
        self.levels: list[Level] = [
            ("http", config.http_stmt, config.http),
            ("server", server.stmt, server.directives),
            *(("location", loc.stmt, loc.directives) for loc in locations),
        ]
        self.destination = destination(pass_line.args[0], upstream_blocks(config))

    @property
    def location(self) -> Location:
        return self.locations[-1]

    def directive(self, key: str) -> str:
        """This module's directive for a setting: `verify` -> proxy_ssl_verify."""
        return f"{self.module.prefix}_ssl_{key}"

    def deciding(self, directive: str) -> tuple[Stmt | None, str]:
        """The line of `directive` in effect here and its level: the innermost level's last."""
        for level, _, lines in reversed(self.levels):
            if lines.get(directive):
                return lines[directive][-1], level
        return None, "default"

    def _flag(self, key: str, default: bool) -> Flag:
        line, level = self.deciding(self.directive(key))
        return Flag(line.args[:1] == ["on"] if line else default, line, level)

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
        """Whether the backend's certificate is verified (default off)."""
        return self._flag("verify", upstream_tls_defaults().verify)

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
        dest = self.destination  # the default, $proxy_host, written or not
        return Name(dest.host, line, level, dest.upstream)

    def server_name(self) -> Flag:
        """Whether SNI is sent (default off)."""
        return self._flag("server_name", upstream_tls_defaults().server_name)

    def sni(self) -> str | None:
        """The SNI the backend sees: the name, where server_name is on and it is a host name;
        None: no SNI (or, for a variable name, not known before a request)."""
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

    def keepalive(self) -> Keepalive:
        """Whether the connection is kept for the next request (knowledge: upstream_keepalive):
        only through an upstream{} block with connections to keep, and for proxy_pass only with
        HTTP/1.1 and no `Connection: close`."""
        defaults = upstream_keepalive_defaults(self.target)
        block = self.destination.upstream
        inside = block.block or [] if block is not None else []
        line = next((s for s in inside if s.directive == "keepalive"), None)
        if block is None:
            connections = 0
        elif line is not None and line.args and line.args[0].isdigit():
            connections = int(line.args[0])
        else:
            connections = defaults.connections
        version = connection = None
        if self.module.keeps_connections == "http11":
            v_line, v_level = self.deciding("proxy_http_version")
            default_version = "1.1" if defaults.proxy_http11 else "1.0"
            version = Text(v_line.args[0] if v_line else default_version, v_line, v_level)
            connection = self._connection(defaults.proxy_http11)
        kept: bool | None
        if self.module.keeps_connections == "never" or (block is None and self.destination.host):
            kept = False
        elif block is None:
            kept = None  # a variable host: an upstream{} block only at run time, perhaps
        elif connections == 0:
            kept = False
        elif version is None or connection is None:
            kept = True  # grpc: HTTP/2, kept whenever the block keeps connections
        elif version.value != "1.1" or connection.value == "close":
            kept = False
        else:
            kept = True if connection.value == "" else None
        return Keepalive(block, line, connections, version, connection, kept)

    def _connection(self, http11_default: bool) -> Text:
        """The Connection header proxy_pass sends: a proxy_set_header Connection line among
        those in effect, else nginx's default list (`close` before 1.29.7, none since)."""
        headers = self._list("proxy_set_header")
        for line in reversed(headers.lines):
            if len(line.args) >= 2 and line.args[0].lower() == "connection":
                return Text(line.args[1], line, headers.level)
        return Text("" if http11_default else "close", None, "default")


def backend_tls(
    config: Config, target: Target, server: Server, locations: tuple[Location, ...]
) -> BackendTls | None:
    """The TLS backend the innermost of `locations` passes to, if it passes to one."""
    modules = pass_modules()
    for directive, lines in locations[-1].directives.items():
        module = modules.get(directive)
        if module and lines and lines[-1].args and _tls_scheme(module, lines[-1].args[0]):
            return BackendTls(config, target, server, locations, module, lines[-1])
    return None


def backends(config: Config, target: Target) -> Iterator[BackendTls]:
    """Every location of every server that passes to a TLS backend, nested ones included."""
    for server in config.servers:
        for chain in server.all_locations():
            found = backend_tls(config, target, server, chain)
            if found is not None:
                yield found
