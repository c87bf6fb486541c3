"""Connections to a backend that several locations share: an upstream{} block's keepalive cache.

nginx keeps idle backend connections per upstream{} block and hands one to the next request
for the same peer address, whichever location that request is in
(ngx_http_upstream_get_keepalive_peer compares the address only; knowledge:
upstream_keepalive), unless the block keeps them per location (`keepalive N local`, the default
from nginx 1.29.7). A kept connection carries the TLS its handshake made: the certificate
verified (or not) against the opening location's CA and name, its SNI, its protocol. So where
locations that pass to one block differ in their client-side TLS settings, a request may be
served over a connection made with another location's settings: with verification on, over a
connection whose certificate nobody verified.

The one answer to "which locations share connections, and which settings do they not agree
on"; it reads conf/upstream's per-location settings and never recomputes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from nginxgen.base.records import record
from nginxgen.conf.load import Stmt
from nginxgen.conf.upstream import BackendTls
from nginxgen.knowledge.upstream import upstream_keepalive_defaults

# What a connection's handshake fixed, per setting: the key a finding names (the directive
# after the module's prefix) and how a location's value is read.
HANDSHAKE: tuple[tuple[str, Callable[[BackendTls], object]], ...] = (
    ("verify", lambda b: b.verify().value),
    ("trusted_certificate", lambda b: b.trusted_certificate().value),
    ("verify_depth", lambda b: b.verify_depth().value),
    ("name", lambda b: b.name().value),
    ("server_name", lambda b: b.server_name().value),
    ("protocols", lambda b: tuple(sorted(b.protocols().value))),
    ("ciphers", lambda b: b.ciphers().value),
    ("certificate", lambda b: b.certificate().value),
    ("conf_command", lambda b: tuple(tuple(s.args) for s in b.conf_commands().lines)),
)


@record(frozen=True)
class SharedPool:
    """An upstream{} block whose kept connections serve several locations."""

    block: Stmt
    backends: tuple[BackendTls, ...]  # the locations that pass to it, in file order
    differ: tuple[str, ...]  # the settings (HANDSHAKE keys) they do not agree on

    def handshake(self, backend: BackendTls) -> tuple[object, ...]:
        """What a connection opened by `backend`'s location was made with."""
        return handshake(backend)


def handshake(backend: BackendTls) -> tuple[object, ...]:
    return tuple(read(backend) for _, read in HANDSHAKE)


def local(backend: BackendTls) -> bool:
    """Whether the block keeps its connections per location: `keepalive N local`, or no
    keepalive line where the release's default is local (knowledge: upstream_keepalive)."""
    keepalive = backend.keepalive()
    facts = upstream_keepalive_defaults(backend.target)
    if keepalive.line is None:
        return keepalive.connections > 0 and facts.default_local
    return "local" in keepalive.line.args[1:]


def shared_pools(backends: Iterable[BackendTls]) -> list[SharedPool]:
    """Every upstream{} block that keeps connections for every location (not `local`) and that
    two or more locations pass to (through the same module: a proxy_pass and a grpc_pass
    connection are not interchangeable)."""
    by_block: dict[tuple[int, str, str], list[BackendTls]] = {}
    for backend in backends:
        block = backend.destination.upstream
        if block is None or backend.keepalive().connections == 0 or local(backend):
            continue
        key = (id(block), block.file, backend.module.directive)
        by_block.setdefault(key, []).append(backend)
    pools = []
    for members in by_block.values():
        if len(members) < 2:
            continue
        differ = tuple(
            name
            for index, (name, _) in enumerate(HANDSHAKE)
            if len({repr(handshake(b)[index]) for b in members}) > 1
        )
        block = members[0].destination.upstream
        assert block is not None
        pools.append(SharedPool(block, tuple(members), differ))
    return pools
