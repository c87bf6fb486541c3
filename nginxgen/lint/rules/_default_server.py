"""Shared by the default-server rules: compare a vhost's own setting with its default server's."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen import knowledge
from nginxgen.lint.config import Server
from nginxgen.lint.context import Context
from nginxgen.lint.load import Stmt
from nginxgen.records import record


@record
class Misplaced:
    socket: str
    key: str
    stmt: Stmt
    default: Server
    why: str
    default_value: str


def _setting(server: Server, key: str, own: bool) -> Stmt | None:
    if key.startswith("ssl_conf_command "):
        found = server.conf_command(key.split(" ", 1)[1], own=own)
        return found[-1] if found else None
    stmts = server.own(key) if own else server.effective(key)
    return stmts[-1] if stmts else None


def _text(stmt: Stmt | None, key: str) -> str:
    if stmt is None:
        return "(not set)"
    args = stmt.args[1:] if key.startswith("ssl_conf_command ") else stmt.args
    return " ".join(args)


def misplaced(ctx: Context, keys: tuple[str, ...]) -> Iterator[Misplaced]:
    """Settings a non-default server makes that the target ignores there."""
    only = knowledge.default_server_only(ctx.target)
    for socket, default, others in ctx.tls_sockets():
        for key in keys:
            entry = only.get(key)
            if entry is None:
                continue
            default_value = _text(_setting(default, key, own=False), key)
            for server in others:
                stmt = _setting(server, key, own=True)
                if stmt is None:
                    continue
                value = _text(stmt, key)
                if value == default_value:
                    continue
                if entry.only_value and value != entry.only_value:
                    continue
                yield Misplaced(socket, key, stmt, default, entry.why, default_value)
