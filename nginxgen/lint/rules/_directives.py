"""Statements and listen parameters the knowledge base has version facts about."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.knowledge import directives, nginx
from nginxgen.lint.context import Context


def versioned(ctx: Context) -> Iterator[tuple[Stmt, str, nginx.DirectiveStatus]]:
    """(statement, what it uses, the target's status of it) for every versioned use."""
    directives = nginx.known_names("directive")
    params = nginx.known_names("listen_param")
    protocols = nginx.known_names("protocol_param")
    for stmt in ctx.named(*(directives & ctx.directive_names()), "listen", "ssl_protocols"):
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


def third_party_loaded(ctx: Context) -> str | None:
    """What brings a third-party module into this nginx (None: nothing the tree or `nginx -V`
    shows): the binary was built with one (`--add-module`, as `nginx -V` says), a load_module
    line loads a file that is not one of nginx's own, or an include at the top that could not
    be read may. A target not read from a binary may have been built with any (`added` None):
    the caller says what that means to it."""
    if ctx.target.added:
        return "a third-party module this nginx was built with"
    own = directives.own_module_files()
    for stmt in ctx.config.loaded.statements:
        if stmt.directive == "load_module" and stmt.args:
            if stmt.args[0].rsplit("/", 1)[-1] not in own:
                return f"the module {stmt.args[0]} loads"
        elif stmt.directive == "include" and stmt.unread:
            return f"the unread include {' '.join(stmt.args)}"
    return None
