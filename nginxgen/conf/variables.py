"""Where a config acts on one of nginx's variables (`$ssl_client_verify`, `$ssl_early_data`):
the variables made from it, the `if` blocks that refuse a request on it, and the header or
parameter lines that hand it to the backend a request is passed to.

The one answer to "does anything act on this variable": the client-certificate model
(conf/client_certificates.py, NGX741) and the early-data rule (NGX713) read it. Copying a
variable into a response header (`add_header`) or a log line acts on nothing: only a refusal
by nginx, or the backend that receives the request, can.

How nginx runs what is read here (ngx_http_rewrite_module, the pass modules' merge_loc_conf):
an `if` directly in a server block runs for every request of that server (the server rewrite
phase); one directly in a location runs for requests that location answers, and not for those a
nested location answers (rewrite directives are not inherited). A pass's header or parameter
lines are those of the innermost level (http{}, server, location, nested location) that has any
(knowledge: request_passes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt, walk
from nginxgen.knowledge.upstream import request_passes


def mentions(words: Sequence[str], names: set[str]) -> bool:
    """Whether `words` (a line's arguments) read one of the variables `names` (`$name` or
    `${name}`)."""
    text = " ".join(words)
    return any(re.search(r"\$\{?" + re.escape(name) + r"\b", text) for name in names)


def derived(config: Config, server: Server, variable: str) -> set[str]:
    """`variable` and the variables made from it: http{}-level `map`s whose source reads it,
    `set` lines of the server; a map of a map too (a few rounds)."""
    names = {variable}
    maps = [s for s in config.http.get("map", []) if len(s.args) >= 2]
    sets = [s for s in walk(server.stmt.block or []) if s.directive == "set" and len(s.args) >= 2]
    for _ in range(3):
        for stmt in maps:
            if mentions(stmt.args[:1], names):
                names.add(stmt.args[1].lstrip("$"))
        for stmt in sets:
            if mentions(stmt.args[1:], names):
                names.add(stmt.args[0].lstrip("$"))
    return names


MAP_PARAMETERS = frozenset({"hostnames", "volatile", "include"})  # map{} lines that are no entry


def values(config: Config, server: Server, variable: str) -> list[str] | None:
    """The values `variable` can take from the server's `set` lines and http{}'s `map`s: each
    value of a map, its default included ("" where it has none, as nginx gives). None where
    neither makes it (one of nginx's own variables, or one an unread include may make)."""
    found: list[str] = []
    made = False
    for stmt in config.http.get("map", []):
        if len(stmt.args) >= 2 and stmt.args[1].lstrip("$") in (variable, f"{{{variable}}}"):
            made = True
            entries = [e for e in stmt.block or [] if e.directive not in MAP_PARAMETERS]
            found += [e.args[-1] if e.args else "" for e in entries if e.directive != "#"]
            if not any(e.directive == "default" for e in entries):
                found.append("")
    for stmt in walk(server.stmt.block or []):
        if stmt.directive == "set" and len(stmt.args) >= 2 and stmt.args[0] == f"${variable}":
            made = True
            found.append(stmt.args[1])
    return found if made else None


def refusing(block: Sequence[Stmt], names: set[str]) -> Stmt | None:
    """The first `if` directly in `block` whose condition reads one of `names` and whose body
    answers the request itself (`return`): nginx refuses it before any backend sees it."""
    for stmt in block:
        if (
            stmt.directive == "if"
            and mentions(stmt.args, names)
            and any(inner.directive == "return" for inner in stmt.block or [])
        ):
            return stmt
    return None


def backend_pass(location: Location) -> Stmt | None:
    """The line of a location that hands its requests to a backend (proxy_pass, fastcgi_pass,
    ...; knowledge: request_passes), if any."""
    for directive in request_passes():
        lines = location.directives.get(directive)
        if lines and lines[-1].args:
            return lines[-1]
    return None


def passed_lines(config: Config, server: Server, chain: Sequence[Location]) -> list[Stmt]:
    """The header or parameter lines the backend of the innermost location of `chain` receives:
    those of the innermost level that has any lines of its pass's list directive."""
    found = backend_pass(chain[-1]) if chain else None
    if found is None:
        return []
    directive = request_passes()[found.directive]
    levels = [config.http, server.directives, *(loc.directives for loc in chain)]
    for lines in reversed(levels):
        if lines.get(directive):
            return list(lines[directive])
    return []


def unread_include(config: Config, server: Server) -> Stmt | None:
    """An include of the server, or of http{}, that could not be read (NGX002): it may hold a
    map, an `if` or a header line, so what acts on a variable there is not all known."""
    for stmt in [*walk(server.stmt.block or []), *config.http.get("include", [])]:
        if stmt.directive == "include" and stmt.unread:
            return stmt
    return None
