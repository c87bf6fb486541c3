"""Shared by the DH parameter rules: which TLS servers can use DHE suites, and which ask for them."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context
from nginxgen.lint.rules._ciphers import LEGACY, evaluate_line


def dhe_suites(ctx: Context, server: Server) -> list[str] | None:
    """The DHE suites an explicit ssl_ciphers of this server enables (None: no explicit list or
    no TLS <= 1.2, so DHE is not in question)."""
    stmts = server.effective("ssl_ciphers")
    if not stmts or not any(p in LEGACY for p in ctx.protocols(server)):
        return None
    suites = evaluate_line(ctx, stmts[-1]).suites
    return [s.name for s in suites if s.kx == "DH" and s.au not in ("None", "PSK", "SRP")]


def dhparam_lines(ctx: Context) -> Iterator[tuple[Server, Stmt | None]]:
    """Each TLS server with the ssl_dhparam line that applies to it (None if there is none),
    once per distinct (ssl_dhparam, ssl_ciphers) pair."""
    seen: set[tuple[int, int]] = set()
    for server in ctx.tls_servers():
        dhparam = server.effective("ssl_dhparam")
        ciphers = server.effective("ssl_ciphers")
        key = (id(dhparam[-1]) if dhparam else 0, id(ciphers[-1]) if ciphers else 0)
        if key in seen:
            continue
        seen.add(key)
        yield server, dhparam[-1] if dhparam else None
