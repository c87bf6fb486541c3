"""stream{}: TCP (and UDP) servers, with the types of http{}'s model (conf/config.py).

A stream server listens on address:port with `ssl` (nginx terminates TLS: the stream
ssl_* directives), or reads the ClientHello without terminating it (`ssl_preread on`), and
passes the connection on with `proxy_pass`, to a TLS backend with `proxy_ssl on`. Since nginx
1.25.5 several stream servers share an address:port by `server_name`, and the default server
question of http{} arises: which server a name reaches (`route`), and which TLS settings apply
to it (conf/per_name.NameModel over this block's knowledge: `tls`).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.as_client import ClientTls, Level, destination, upstream_blocks
from nginxgen.conf.config import Server, server_for_name
from nginxgen.conf.effective import Effective, server_label
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import Ignored, NameModel, by_name
from nginxgen.conf.words import flag_on


@record(frozen=True)
class Route:
    """Where a connection to `socket` that names `sni` (None: no name) goes in stream{}."""

    socket: str
    sni: str | None
    server: Server  # the server whose proxy_pass, return and proxy_ssl lines serve it
    chosen_by: str  # "tls" (SNI of a TLS handshake nginx ends), "preread", "default"
    terminates: bool  # nginx ends TLS here (listen ... ssl): the stream ssl_* lines apply
    preread: bool  # the ClientHello is read without ending TLS: no ssl_* line applies
    ignored: tuple[Ignored, ...] = ()  # a virtual server's ssl_preread that never runs

    @property
    def proxy_pass(self) -> Stmt | None:
        found = self.server.effective("proxy_pass")
        return found[-1] if found else None


def _flag_on(server: Server, directive: str) -> Stmt | None:
    found = server.effective(directive)
    return found[-1] if found and flag_on(found[-1].args) else None


class Stream:
    """The stream{} model of a tree for a target: routes by name, the TLS in effect for a name
    on a socket nginx terminates, and the client side towards each server's backend."""

    def __init__(self, effective: Effective) -> None:
        self.effective = effective.stream
        self.config = self.effective.config
        self.target = self.effective.target

    def route(self, socket: str, sni: str | None) -> Route:
        """The server a connection reaches (ngx_stream_find_virtual_server, the same lookup as
        http's). On a TLS socket the SNI selects it; on a plain one only where the default
        server has `ssl_preread on`, since the preread phase runs with the default server's
        configuration (knowledge: default_server_only.ssl_preread): a virtual server's own
        ssl_preread is ignored, and no name reaches it."""
        default = self.config.default_server(socket)
        servers = self.config.sockets[socket]
        terminates = self.config.tls_socket(socket)
        preread = not terminates and _flag_on(default, "ssl_preread") is not None
        found = None
        if (terminates or preread) and by_name(self.effective):
            found = server_for_name(servers, sni)
        ignored: tuple[Ignored, ...] = ()
        if not terminates and not preread:
            why = (
                f"{server_label(default)} is the default server of {socket} and has no "
                "ssl_preread on: the server name is never read"
            )
            cause = default.effective("ssl_preread") or [default.stmt]
            ignored = tuple(
                Ignored(line, True, why, cause[-1])
                for server in servers
                if server is not default and (line := _flag_on(server, "ssl_preread"))
            )
        chosen_by = "default" if found is None else ("tls" if terminates else "preread")
        server = found or default
        return Route(socket, sni, server, chosen_by, terminates, preread, ignored)

    def tls(self, socket: str, sni: str | None) -> NameModel:
        """What applies to `sni` on a stream socket nginx terminates TLS on: per_name's answers
        with stream's knowledge of what only the default server decides."""
        if not self.config.tls_socket(socket):
            raise ValueError(f"stream socket {socket} does not terminate TLS (no listen ... ssl)")
        return NameModel(self.effective, socket, sni, self.route(socket, sni).server)

    def upstream_tls(self, server: Server) -> ClientTls | None:
        """The client side of a server's connections to its backend (conf/client_tls over
        stream{} -> server): None without `proxy_ssl on` (the backend is spoken to in the
        clear)."""
        if _flag_on(server, "proxy_ssl") is None:
            return None
        passes = server.effective("proxy_pass")
        target = passes[-1].args[0] if passes and passes[-1].args else ""
        levels: list[Level] = [
            ("stream", self.config.http_stmt, self.config.http),
            ("server", server.stmt, server.directives),
        ]
        where = destination(target, upstream_blocks(self.config.http))
        return ClientTls(self.target, "proxy", levels, where)

    def shared_sockets(self) -> Iterator[tuple[str, Server, list[Server], str]]:
        """(socket, its default server, the other servers, what the default decides) for each
        stream address:port where a name selects among several servers (from nginx 1.25.5;
        before, one address:port takes one stream server): one nginx ends TLS on, whose default
        server decides the settings only it decides (knowledge: default_server_only), and a
        plain one where a server has `ssl_preread on`, whose default server decides whether
        the name is read at all (`route`)."""
        if not by_name(self.effective):
            return
        for socket, servers in self.config.sockets.items():
            if len(servers) < 2:
                continue
            default = self.config.default_server(socket)
            others = [s for s in servers if s is not default]
            if self.config.tls_socket(socket):
                yield socket, default, others, "the shared TLS settings"
            elif any(_flag_on(s, "ssl_preread") for s in servers):
                yield socket, default, others, "whether the server name is read (ssl_preread)"

    def preread_sockets(self) -> list[str]:
        """The plain sockets whose default server routes by the ClientHello's name."""
        return [
            socket
            for socket in self.config.sockets
            if not self.config.tls_socket(socket)
            and _flag_on(self.config.default_server(socket), "ssl_preread")
        ]
