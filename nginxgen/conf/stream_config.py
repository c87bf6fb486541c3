"""The stream{} blocks of a loaded tree as a Config (conf/config.py's types, block "stream"):
what the config says, without what is in effect (conf/stream.py answers that). Built here,
below the effective model, so that http{}'s Effective can hand out the same tree's stream{}
model (Effective.stream) without reaching up to the model that reads it."""

from __future__ import annotations

from nginxgen.conf.config import (
    Config,
    Listen,
    Server,
    index_sockets,
    listen_socket,
    tls_addresses,
)
from nginxgen.conf.load import Loaded, Stmt


def _listen(stmt: Stmt) -> Listen | None:
    """A stream `listen` line: address:port with `ssl`, `udp` (a socket of its own: nginx's
    stream TLS is TCP only), `proxy_protocol`, `default_server`."""
    if not stmt.args:
        return None
    params = {a.split("=", 1)[0] for a in stmt.args[1:]}
    udp = "udp" in params
    socket = listen_socket(stmt.args[:1]) + ("/udp" if udp else "")
    return Listen(
        socket=socket,
        stmt=stmt,
        default="default_server" in params,
        ssl="ssl" in params and not udp,
        http2=False,
        quic=False,
        proxy_protocol="proxy_protocol" in params,
        udp=udp,
    )


def _directives(block: list[Stmt]) -> dict[str, list[Stmt]]:
    out: dict[str, list[Stmt]] = {}
    for stmt in block:
        # upstream{} blocks stay, as in http{}'s model: proxy_pass names them (conf/client_tls)
        if stmt.directive not in ("server", "map", "geo", "split_clients"):
            out.setdefault(stmt.directive, []).append(stmt)
    return out


def build_stream(loaded: Loaded) -> Config:
    """The stream{} blocks of a loaded tree as a Config of block "stream": its servers with
    their listens and names, the stream{} level's lines as the outer level, and the servers of
    each address:port in nginx's order. A file of http{} content has none."""
    blocks = [] if loaded.http_level_top else loaded.statements
    stream_stmts = [s for s in blocks if s.directive == "stream" and s.block is not None]
    stream_block = [stmt for s in stream_stmts for stmt in (s.block or [])]
    outer = _directives(stream_block)
    servers: list[Server] = []
    for stmt in stream_block:
        if stmt.directive != "server" or stmt.block is None:
            continue
        own = _directives(stmt.block)
        listens = [lst for s in own.get("listen", []) if (lst := _listen(s))]
        if not listens:  # nginx -t: no "listen" is defined for server (not a server at all)
            continue
        names = [n for s in own.get("server_name", []) for n in s.args]
        servers.append(Server(stmt, len(servers), listens, names, own, [], outer, "stream"))
    first = stream_stmts[0] if stream_stmts else None
    return tls_addresses(index_sockets(Config(loaded, outer, first, servers, block="stream")))
