"""TLS that nginx speaks as a client in http{}: for each location that passes to a TLS backend
(`proxy_pass https://...`, `grpc_pass grpcs://...`, `uwsgi_pass suwsgi://...`), the client-side
settings in effect there (conf/client_tls.py, the one model of nginx as a TLS client, over the
levels http{} -> server -> location -> nested location), and whether the connection is kept for
the next request.

The one answer to "what applies to this upstream connection": lint's NGX8xx rules read it, and
so may the generator's `upstream:` field and the live differential.

Passes in `if` and `limit_except` blocks, and passes whose scheme is a variable
(`proxy_pass $url;`, TLS or not only at run time), are not modelled: nothing is said of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.conf.as_client import ClientTls, Level, Text, destination, upstream_blocks
from nginxgen.conf.as_client import Destination as Destination
from nginxgen.conf.as_client import Flag as Flag
from nginxgen.conf.as_client import Lines as Lines
from nginxgen.conf.as_client import Name as Name
from nginxgen.conf.as_client import Words as Words
from nginxgen.conf.as_client import is_hostname as is_hostname
from nginxgen.conf.as_client import strip_port as strip_port
from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.variables import values
from nginxgen.knowledge import nginx_values
from nginxgen.knowledge.target import Target
from nginxgen.knowledge.upstream import (
    PassModule,
    UpstreamKeepaliveDefaults,
    pass_modules,
    upstream_keepalive_defaults,
)


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
    # a balancing method's line after the keepalive line, which (before nginx 1.29.7) takes
    # keepalive's place: the block keeps no connection (keepalive_dropped_by)
    dropped_by: Stmt | None = None


def keepalive_dropped_by(block: list[Stmt], keepalive: Stmt, target: Target) -> Stmt | None:
    """The http upstream{}'s balancing method line after its keepalive line, where the target's
    nginx lets it take keepalive's place (nginx_values.toml [method_redefined]: before 1.29.7);
    None: keepalive stands. The one answer NGX006 and the backends' keepalive read."""
    grammar = nginx_values.custom_grammars()
    if target.nginx >= Version(grammar.method_redefined.keepalive_until):
        return None
    methods = grammar.balancing_methods
    at = next((i for i, s in enumerate(block) if s is keepalive), len(block))
    return next((s for s in block[at + 1 :] if ("http", s.directive) in methods), None)


def _tls_scheme(module: PassModule, url: str) -> bool:
    return url.lower().startswith(module.schemes)


_LONE_VARIABLE = re.compile(r"\$\{?(\w+)\}?")


def _tls_pass(config: Config, server: Server, module: PassModule, url: str) -> bool:
    """Whether a pass's URL is a TLS one: its scheme, or where the URL is one variable, the
    scheme of any value a `set` or `map` gives it (`set $backend https://api;` then
    `proxy_pass $backend;`: the requests that get that value go to a TLS backend)."""
    if _tls_scheme(module, url):
        return True
    lone = _LONE_VARIABLE.fullmatch(url)
    given = values(config, server, lone[1]) if lone else None
    return any(_tls_scheme(module, value) for value in given or [])


class BackendTls(ClientTls):
    """The client-side TLS of one location's pass to a TLS backend (conf/client_tls's model
    over http{} -> server -> locations), with what only http has: keepalive."""

    def __init__(
        self,
        config: Config,
        target: Target,
        server: Server,
        locations: tuple[Location, ...],
        module: PassModule,
        pass_line: Stmt,
    ) -> None:
        levels: list[Level] = [
            ("http", config.http_stmt, config.http),
            ("server", server.stmt, server.directives),
            *(("location", loc.stmt, loc.directives) for loc in locations),
        ]
        upstreams = upstream_blocks(config.http)
        super().__init__(target, module.prefix, levels, destination(pass_line.args[0], upstreams))
        self.config = config
        self.server = server
        self.locations = locations  # outermost first; the pass line is in the last
        self.module = module
        self.pass_line = pass_line

    @property
    def location(self) -> Location:
        return self.locations[-1]

    def keepalive(self) -> Keepalive:
        """Whether the connection is kept for the next request (knowledge: upstream_keepalive):
        only through an upstream{} block with connections to keep, and for proxy_pass only where
        the request asks the backend to keep it (`_persistent`)."""
        defaults = upstream_keepalive_defaults(self.target)
        block = self.destination.upstream
        inside = block.block or [] if block is not None else []
        line = next((s for s in inside if s.directive == "keepalive"), None)
        dropped = keepalive_dropped_by(inside, line, self.target) if line is not None else None
        if block is None or dropped is not None:
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
        else:
            kept = _persistent(version.value, connection.value, defaults)
        return Keepalive(block, line, connections, version, connection, kept, dropped)

    def _connection(self, http11_default: bool) -> Text:
        """The Connection header proxy_pass sends: a proxy_set_header Connection line among
        those in effect, else nginx's default list (`close` before 1.29.7, none since)."""
        headers = self._list("proxy_set_header")
        for line in reversed(headers.lines):
            if len(line.args) >= 2 and line.args[0].lower() == "connection":
                return Text(line.args[1], line, headers.level)
        return Text("" if http11_default else "close", None, "default")


def _persistent(
    version: str | None, connection: str | None, facts: UpstreamKeepaliveDefaults
) -> bool | None:
    """Whether an HTTP/1.1 backend keeps the connection after a request of HTTP `version`
    with the Connection header `connection` ("": none), so that nginx keeps it: HTTP/1.1 unless
    the header has `close`, HTTP/1.0 only with `keep-alive` (knowledge: upstream_keepalive).
    None: a variable decides the header per request."""
    if connection is None or "$" in connection:
        return None
    options = {option.strip().lower() for option in connection.split(",")}
    if facts.closing_option in options:
        return False
    return version == "1.1" or facts.http10_keeping_option in options


def backend_tls(
    config: Config, target: Target, server: Server, locations: tuple[Location, ...]
) -> BackendTls | None:
    """The TLS backend the innermost of `locations` passes to, if it passes to one."""
    modules = pass_modules()
    for directive, lines in locations[-1].directives.items():
        module = modules.get(directive)
        if not (module and lines and lines[-1].args):
            continue
        if _tls_pass(config, server, module, lines[-1].args[0]):
            return BackendTls(config, target, server, locations, module, lines[-1])
    return None


def backends(config: Config, target: Target) -> Iterator[BackendTls]:
    """Every location of every server that passes to a TLS backend, nested ones included."""
    for server in config.servers:
        for chain in server.all_locations():
            found = backend_tls(config, target, server, chain)
            if found is not None:
                yield found
