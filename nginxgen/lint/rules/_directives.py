"""Statements and listen parameters the knowledge base has version facts about."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen import knowledge
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context


def versioned(ctx: Context) -> Iterator[tuple[Stmt, str, knowledge.DirectiveStatus]]:
    """(statement, what it uses, the target's status of it) for every versioned use."""
    directives = knowledge.known_names("directive")
    params = knowledge.known_names("listen_param")
    protocols = knowledge.known_names("protocol_param")
    for stmt in ctx.all_statements():
        if stmt.directive in directives:
            status = knowledge.directive_status(ctx.target, stmt.directive)
            if status:
                yield stmt, f'the "{stmt.directive}" directive', status
        elif stmt.directive == "listen":
            for arg in stmt.args[1:]:
                if arg in params:
                    status = knowledge.directive_status(ctx.target, arg, "listen_param")
                    if status:
                        yield stmt, f'"listen ... {arg}"', status
        elif stmt.directive == "ssl_protocols":
            for arg in stmt.args:
                if arg in protocols:
                    status = knowledge.directive_status(ctx.target, arg, "protocol_param")
                    if status:
                        yield stmt, f"ssl_protocols {arg}", status
