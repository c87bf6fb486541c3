"""The stream{} and mail{} blocks of a loaded tree as a Config (conf/config.py's types, block
"stream" or "mail"): what the config says, without what is in effect (conf/stream.py answers
that for stream{}). Built here, below the effective model, so that http{}'s Effective can hand
out the same tree's other models (Effective.stream, Effective.mail) without reaching up to the
model that reads it."""

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
    return _build(loaded, "stream")


def build_mail(loaded: Loaded) -> Config:
    """The mail{} blocks as a Config of block "mail", as build_stream reads stream{}. Each mail
    server has a TLS context of its own (ngx_mail_ssl_merge_conf): no default server decides
    for another, and STARTTLS (`starttls on|only`) sets one up as `listen ... ssl` does."""
    return _build(loaded, "mail")


def _build(loaded: Loaded, kind: str) -> Config:
    blocks = [] if loaded.http_level_top else loaded.statements
    stmts = [s for s in blocks if s.directive == kind and s.block is not None]
    block = [stmt for s in stmts for stmt in (s.block or [])]
    outer = _directives(block)
    servers: list[Server] = []
    for stmt in block:
        if stmt.directive != "server" or stmt.block is None:
            continue
        own = _directives(stmt.block)
        listens = [lst for s in own.get("listen", []) if (lst := _listen(s))]
        if not listens:  # nginx -t: no "listen" is defined for server (not a server at all)
            continue
        names = [n for s in own.get("server_name", []) for n in s.args]
        servers.append(Server(stmt, len(servers), listens, names, own, [], outer, kind))
    first = stmts[0] if stmts else None
    return tls_addresses(index_sockets(Config(loaded, outer, first, servers, block=kind)))
