"""What a response carries: which location answers a URI (nginx's location matching) and the
add_header lines in effect there, with nginx's inheritance (levels replace, never merge, unless
add_header_inherit) and `always` (without it a line applies to some statuses only). The one
reading of add_header: lint's HSTS rules and the probe's prediction come here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx
from nginxgen.knowledge.target import Target


class Responses:
    def __init__(self, config: Config, target: Target) -> None:
        self.config = config
        self.target = target

    @cached_property
    def add_header_inherit(self) -> bool:
        """Whether this nginx has add_header_inherit (knowledge: since 1.29.3)."""
        status = nginx.directive_status(self.target, "add_header_inherit")
        return status is not None and status.available

    def headers_in(self, server: Server, locations: Sequence[Location]) -> Headers:
        """The add_header lines of a response that the innermost of `locations` (nested,
        outermost first) answers; with none, the server itself. The one reading of add_header
        inheritance: lint's HSTS rules and the probe's prediction come here."""
        state = self._server_state(server)
        for loc in locations:
            state = _inherit(state, loc.stmt, loc.directives, self.add_header_inherit)
        lines, dropped, _ = state
        return Headers(lines, dropped, _conditional(locations[-1] if locations else None))

    def _server_state(self, server: Server) -> _State:
        """The inheritance down http{} and the server's own level: where each of its locations
        starts (a fleet's every location asked for it again)."""
        state = _inherit(_NOTHING, self.config.http_stmt, self.config.http, self.add_header_inherit)
        return _inherit(state, server.stmt, server.directives, self.add_header_inherit)

    def headers(self, server: Server, uri: str) -> Headers:
        """The add_header lines of a response to `uri` from `server`."""
        return self.headers_in(server, response_locations(server, uri))

    def location_headers(self, server: Server) -> Iterator[tuple[Location, Headers]]:
        """Every location of a server that answers requests, nested ones included (outer ones
        first, as Server.all_locations), with the lines its responses carry: none where the
        server's own `return` answers every request. Each level is inherited once: a nested
        location continues from the one that encloses it."""
        if server.own("return"):
            return
        start = self._server_state(server)
        stack = [(loc, start) for loc in reversed(server.locations)]
        while stack:
            loc, outer = stack.pop()
            state = _inherit(outer, loc.stmt, loc.directives, self.add_header_inherit)
            yield loc, Headers(state[0], state[1], _conditional(loc))
            stack.extend((inner, state) for inner in reversed(loc.locations))


def _pick(locations: list[Location], uri: str) -> Location | None:
    """The location nginx picks among siblings (ngx_http_core_find_location): an exact `=` match;
    else the longest prefix, final when it is `^~`; else the first regex (`~`, `~*`) that
    matches; else that longest prefix. Named locations (`@x`) take no URI."""
    prefix: Location | None = None
    longest = -1
    for loc in locations:
        args = loc.stmt.args
        if len(args) == 2 and args[0] == "=" and args[1] == uri:
            return loc
        plain = len(args) == 1 and not args[0].startswith("@")
        if plain or (len(args) == 2 and args[0] == "^~"):
            path = args[-1]
            if uri.startswith(path) and len(path) > longest:
                prefix, longest = loc, len(path)
    if prefix is not None and prefix.stmt.args[0] == "^~":
        return prefix
    for loc in locations:
        args = loc.stmt.args
        if len(args) == 2 and args[0] in ("~", "~*"):
            from nginxgen.base import pcre  # only for a regex location: not on every start

            # None: a PCRE construct Python's re lacks, not predictable here
            regex = pcre.compiled(args[1], ignore_case=args[0] == "~*")
            if regex is not None and regex.search(uri):
                return loc
    return prefix


def locations_for(server: Server, uri: str) -> list[Location]:
    """The locations a request for `uri` goes through, outermost first (nested ones are
    searched inside the one picked); empty when none matches."""
    chain: list[Location] = []
    candidates = server.locations
    while (picked := _pick(candidates, uri)) is not None:
        chain.append(picked)
        candidates = picked.locations
    return chain


# The response header field HSTS is (RFC 6797 section 6.1); field names compare without case.
HSTS = "strict-transport-security"

# a block (http{}, none for a file of http{} content, server, location) and its lines
Level = tuple[Stmt | None, dict[str, list[Stmt]]]


@record(frozen=True, eq=False)
class Dropped:
    """An add_header line of an outer level that does not reach a response, and why."""

    line: Stmt
    cause: Stmt  # the line that drops it: add_header_inherit off, a replacing add_header, a block
    why: str


@record(frozen=True, eq=False)
class Headers:
    """The add_header lines in effect for a response, in nginx's order (a level's own lines,
    then, with `add_header_inherit merge`, the inherited ones), and the outer levels' lines
    that do not reach it."""

    lines: tuple[Stmt, ...]
    dropped: tuple[Dropped, ...] = ()
    # `if` blocks of the answering location that set add_header lines of their own: where one
    # matches, the response carries that block's lines instead (not predicted)
    conditional: tuple[Stmt, ...] = ()

    def sent(self, status: int) -> list[Stmt]:
        """The lines whose field a response with `status` carries."""
        return [line for line in self.lines if header_sent(line, status)]

    def named(self, field: str) -> list[Stmt]:
        return [line for line in self.lines if _names(line, field)]

    def dropped_named(self, field: str) -> list[Dropped]:
        return [d for d in self.dropped if _names(d.line, field)]


def _names(line: Stmt, field: str) -> bool:
    return bool(line.args) and line.args[0].lower() == field


def header_sent(line: Stmt, status: int) -> bool:
    """Whether an add_header line adds its field to a response with this status: with
    `always` to every response, else only to the statuses add_header serves (knowledge); an
    empty value adds nothing (ngx_http_add_header skips it)."""
    if len(line.args) < 2 or line.args[1] == "":
        return False
    if "always" in line.args[2:]:
        return True
    return status in nginx.add_header().statuses_without_always


def _where(stmt: Stmt) -> str:
    return f"{stmt.file}:{stmt.line}"


def inherit_headers(levels: list[Level], inherit_directive: bool) -> Headers:
    """nginx's add_header inheritance (ngx_http_headers_merge_conf) down `levels`, outermost
    first: a level without add_header lines inherits the outer ones; a level with its own
    replaces them, unless `add_header_inherit merge` is in effect there (its own lines, then
    the inherited ones); `add_header_inherit off` drops them even where the level has none.
    The add_header_inherit mode is inherited like any setting (default `on`); it exists from
    nginx 1.29.3 (`inherit_directive`), before which such a line is no directive at all."""
    state = _NOTHING
    for block, directives in levels:
        state = _inherit(state, block, directives, inherit_directive)
    return Headers(state[0], state[1])


# what reaches a level from the ones above it: the lines in effect, the lines dropped on the
# way, and the add_header_inherit line in effect
_State = tuple[tuple[Stmt, ...], tuple[Dropped, ...], Stmt | None]
_NOTHING: _State = ((), (), None)


def _inherit(
    state: _State, block: Stmt | None, directives: dict[str, list[Stmt]], inherit_directive: bool
) -> _State:
    """One level of inherit_headers: what its responses carry, from what reaches it."""
    lines, dropped, mode = state
    modes = directives.get("add_header_inherit", []) if inherit_directive else []
    if modes and modes[-1].args:
        mode = modes[-1]
    value = mode.args[0] if mode else "on"
    own = tuple(directives.get("add_header", ()))
    if not lines or (value != "off" and not own):
        return lines or own, dropped, mode
    if value == "merge":
        return own + lines, dropped, mode
    cause, why = _dropper(block, own, mode if modes else None, mode)
    return own, dropped + tuple(Dropped(line, cause, why) for line in lines), mode


def _dropper(
    block: Stmt | None, own: tuple[Stmt, ...], off_here: Stmt | None, mode: Stmt | None
) -> tuple[Stmt, str]:
    """The line that drops the inherited add_header lines at a level, and why: its own
    `add_header_inherit off`, else its first add_header (which replaces them), else the block
    itself, where an outer `add_header_inherit off` is in effect."""
    if off_here is not None and off_here.args[0] == "off":
        return off_here, f"add_header_inherit off at {_where(off_here)} drops the inherited lines"
    if own:
        return own[0], f"the add_header lines at {_where(own[0])} replace the inherited ones"
    # the outermost level inherits nothing, so a level that drops lines has a block
    assert block is not None and mode is not None
    return block, (
        f"add_header_inherit off (at {_where(mode)}, in effect in {block.directive} "
        f"{' '.join(block.args)} at {_where(block)}) drops the inherited lines"
    )


def response_locations(server: Server, uri: str) -> list[Location]:
    """The locations whose lines a response to `uri` takes: none where the server's own
    unconditional `return` answers before any location is searched (the server rewrite phase,
    which runs with the server's configuration), else those `locations_for` picks."""
    if server.own("return"):
        return []
    return locations_for(server, uri)


def _conditional(location: Location | None) -> tuple[Stmt, ...]:
    if location is None:
        return ()
    return tuple(
        stmt
        for stmt in location.stmt.block or []
        if stmt.directive == "if"
        and any(s.directive.startswith("add_header") for s in stmt.block or [])
    )
