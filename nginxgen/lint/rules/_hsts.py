"""Shared by the HSTS rules: which servers serve content, their HSTS add_header lines, and HSTS
sent by other modules. Which add_header lines apply where is conf/effective's answer."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.responses import HSTS, Headers
from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context


def is_hsts(stmt: Stmt) -> bool:
    """An add_header line of the Strict-Transport-Security field."""
    return stmt.directive == "add_header" and bool(stmt.args) and stmt.args[0].lower() == HSTS


def other_hsts(directives: dict[str, list[Stmt]]) -> Stmt | None:
    """HSTS sent by a module other than add_header, in these directives: headers-more's
    `more_set_headers "Strict-Transport-Security: ..."` or ngx_security_headers'
    `security_headers on` (which sends HSTS on HTTPS responses)."""
    for stmt in directives.get("more_set_headers", []):
        if any(arg.lower().startswith(HSTS + ":") for arg in stmt.args):
            return stmt
    switch = directives.get("security_headers", [])
    if switch and flag_on(switch[-1].args):
        return switch[-1]
    return None


def serves_content(server: Server) -> bool:
    """Not a catch-all that refuses the handshake or closes the connection (return 444)."""
    if flag_on(server.value("ssl_reject_handshake")):
        return False
    returns = server.own("return")
    return not (returns and returns[-1].args[:1] == ["444"])


def content_servers(ctx: Context) -> Iterator[Server]:
    return (s for s in ctx.tls_servers() if serves_content(s))


def responses(ctx: Context, server: Server) -> list[tuple[str, Headers]]:
    """The add_header lines of each kind of response a server gives: those it answers itself
    (a URI no location takes, or its own `return`), then each location's. Once per server and
    model: NGX701 and NGX704 both read them."""
    made: dict[int, list[tuple[str, Headers]]] = ctx.memo("responses", dict)
    if id(server) not in made:
        own = ("the responses the server answers itself", ctx.responses.headers_in(server, ()))
        locations = [
            (f"location {' '.join(loc.stmt.args)}", h)
            for loc, h in ctx.responses.location_headers(server)
        ]
        made[id(server)] = [own, *locations]
    return made[id(server)]
