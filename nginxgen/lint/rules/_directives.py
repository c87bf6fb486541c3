"""Statements and listen parameters the knowledge base has version facts about."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context


def versioned(ctx: Context) -> Iterator[tuple[Stmt, str, nginx.DirectiveStatus]]:
    """(statement, what it uses, the target's status of it) for every versioned use."""
    directives = nginx.known_names("directive")
    params = nginx.known_names("listen_param")
    protocols = nginx.known_names("protocol_param")
    for stmt in ctx.all_statements():
        if stmt.directive in directives:
            status = nginx.directive_status(ctx.target, stmt.directive)
            if status:
                yield stmt, f'the "{stmt.directive}" directive', status
        elif stmt.directive == "listen":
            for arg in stmt.args[1:]:
                if arg in params:
                    status = nginx.directive_status(ctx.target, arg, "listen_param")
                    if status:
                        yield stmt, f'"listen ... {arg}"', status
        elif stmt.directive == "ssl_protocols":
            for arg in stmt.args:
                if arg in protocols:
                    status = nginx.directive_status(ctx.target, arg, "protocol_param")
                    if status:
                        yield stmt, f"ssl_protocols {arg}", status
