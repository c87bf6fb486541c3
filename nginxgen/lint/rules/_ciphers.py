"""Shared by the cipher rules: each ssl_ciphers line that applies to a TLS server, evaluated once."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.cipherlist import Evaluation, evaluate
from nginxgen.lint.context import Context
from nginxgen.lint.load import Stmt

LEGACY = ("SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2")


def cipher_lines(ctx: Context) -> Iterator[tuple[Stmt, Evaluation]]:
    """Every effective ssl_ciphers of a TLS server that allows TLS <= 1.2 (each line once)."""
    seen: set[int] = set()
    for server in ctx.tls_servers():
        if not any(p in LEGACY for p in ctx.protocols(server)):
            continue
        stmts = server.effective("ssl_ciphers")
        if not stmts or id(stmts[-1]) in seen:
            continue
        seen.add(id(stmts[-1]))
        yield stmts[-1], evaluate(" ".join(stmts[-1].args))
