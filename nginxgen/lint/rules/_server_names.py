"""How nginx reads the server names of an address:port into its hash (ngx_http_server_names,
ngx_hash_add_key with NGX_HASH_WILDCARD_KEY): NGX017 reports the names it refuses as taken,
NGX018 hashes the rest."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt


def printable(socket: str, servers: list[Server]) -> bool:
    """Whether nginx prints this address as lint does: an IP address or wildcard (not a host
    name it resolves), or a unix: path; and each server's listen known (not one an unread
    include may hold)."""
    host = socket.removesuffix("/udp").rpartition(":")[0]
    named = not (
        socket.startswith("unix:")
        or host in ("*", "")
        or host.startswith("[")
        or host.replace(".", "").isdigit()
    )
    return not named and all(server.unknown("listen") is None for server in servers)


def hashed(servers: list[Server], socket: str) -> Iterator[tuple[Stmt, str, bool]]:
    """Each name nginx reads for the address's hash, lower-cased, with its line and whether
    it is refused as taken (`conflicting server name`); regular expressions and names nginx
    declines as invalid (it stops on those) left out."""
    exact: set[str] = set()
    head: set[str] = set()  # leading wildcards (`*.name`, `.name`), as `name`
    tail: set[str] = set()  # trailing ones (`name.*`), as `name.`
    for server in servers:
        for stmt, name in _names(server, socket):
            if _valid(name):
                yield stmt, name, _busy(name, exact, head, tail)


def declined(servers: list[Server], socket: str) -> tuple[Stmt, str] | None:
    """The first name, in nginx's order, that ngx_hash_add_key declines for the address's hash
    (nginx stops there: `invalid server name or wildcard`), with its line; None: none."""
    for server in servers:
        for stmt, name in _names(server, socket):
            if not _valid(name) and not refused_name(name):  # those stop nginx earlier
                return stmt, name
    return None


def _names(server: Server, socket: str) -> Iterator[tuple[Stmt, str]]:
    """The names nginx hashes for a server, lower-cased, each with its line."""
    lines = server.own("server_name")
    if not lines:
        if server.unknown("server_name") is None:
            listen = next(lst for lst in server.listens if lst.socket == socket)
            yield listen.stmt, ""
        return
    for stmt in lines:
        for name in stmt.args:
            if not name.startswith("~"):  # `$hostname` stays itself: the machine's name
                yield stmt, name.lower()


def refused_name(name: str) -> bool:
    """Whether server_name itself refuses the name (ngx_http_core_server_name, and stream's):
    a `*` first not followed by `.` and more, or `.` alone."""
    return (name[:1] == "*" and (len(name) < 3 or name[1] != ".")) or name == "."


def _valid(name: str) -> bool:
    if name.count("*") > 1 or ".." in name or "\0" in name:
        return False
    wild = name.startswith("*.") or name.endswith(".*")
    return "*" not in name or (wild and len(name) > 2)


def _busy(name: str, exact: set[str], head: set[str], tail: set[str]) -> bool:
    """Whether ngx_hash_add_key (NGX_HASH_WILDCARD_KEY) refuses the name as taken, adding it
    where it is not."""
    if len(name) > 1 and name[0] == ".":
        if name[1:] in exact:
            return True
        exact.add(name[1:])
        return _taken(name[1:], head)
    if len(name) > 2 and name.startswith("*."):
        return _taken(name[2:], head)
    if len(name) > 2 and name.endswith(".*"):
        return _taken(name[:-1], tail)
    return _taken(name, exact)


def _taken(key: str, keys: set[str]) -> bool:
    if key in keys:
        return True
    keys.add(key)
    return False
