"""What is in effect where: the answers lint's rules, probe --config and generate --into share
about a loaded config for a target (which server is the default of a TLS socket, which lines
apply in a server, what the TLS library can negotiate). One place, every command reads it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import cached_property

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt, walk
from nginxgen.conf.upstream import BackendTls, backends
from nginxgen.knowledge import libraries, nginx
from nginxgen.knowledge.target import Target

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


class Effective:
    def __init__(self, config: Config, target: Target) -> None:
        self.config = config
        self.target = target
        self._memo: dict[str, Any] = {}

    @cached_property
    def stream(self) -> Effective:
        """The stream{} servers of the same tree for the same target (conf/stream.py); a
        stream model's own stream is itself."""
        if self.config.block == "stream":
            return self
        from nginxgen.conf.stream_config import build_stream

        return Effective(build_stream(self.config.loaded), self.target)

    def families(self) -> tuple[Effective, ...]:
        """The models whose TLS servers a rule about default servers looks at: http{}'s and,
        where the tree has a stream{} block, stream{}'s (built only then)."""
        if self.config.block == "stream" or "stream" not in self.directive_names():
            return (self,)
        return (self, self.stream)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """What several rules derive from the same config, computed once per model."""
        if key not in self._memo:
            self._memo[key] = compute()
        value: T = self._memo[key]  # the dict holds Any: no cast (typing stays unimported)
        return value

    def tls_sockets(self) -> Iterator[tuple[str, Server, list[Server]]]:
        """(socket, its default server, the other servers) for every TLS address:port."""
        for socket, servers in self.config.sockets.items():
            if self.config.tls_socket(socket):
                default = self.config.default_server(socket)
                yield socket, default, [s for s in servers if s is not default]

    def default_servers(self) -> Iterator[tuple[str, Server]]:
        """(socket, its default server) for each server that is the default of a TLS address,
        once, at the first such address."""
        seen: set[int] = set()
        for socket, default, _ in self.tls_sockets():
            if default.index not in seen:
                seen.add(default.index)
                yield socket, default

    def every_default_server(self) -> Iterator[tuple[str, Server, Config]]:
        """default_servers of http{} and stream{} (families), each with the model of its
        block; a stream{} socket is named `stream ADDRESS:PORT`."""
        for family in self.families():
            stream = family.config.block == "stream"
            for socket, default in family.default_servers():
                yield (f"stream {socket}" if stream else socket), default, family.config

    def tls_servers(self) -> Iterator[Server]:
        return (s for s in self.config.servers if s.tls)

    def switched_on(self, directive: str) -> Iterator[Stmt]:
        """Every `DIRECTIVE on;` line anywhere in the config."""
        return (
            s for s in self.all_statements() if s.directive == directive and s.args[:1] == ["on"]
        )

    def effective_on(self, directive: str) -> Iterator[tuple[Server, Stmt]]:
        """Each `DIRECTIVE on;` in effect in a TLS server, once, with a server it applies to."""
        seen: set[int] = set()
        for server in self.tls_servers():
            stmts = server.effective(directive)
            if stmts and stmts[-1].args[:1] == ["on"] and id(stmts[-1]) not in seen:
                seen.add(id(stmts[-1]))
                yield server, stmts[-1]

    def options_on(self, option: str) -> Iterator[tuple[Server, Stmt]]:
        """Each `ssl_conf_command Options` line that turns `option` on in a TLS server, once,
        with the first server it applies to."""
        seen: set[int] = set()
        for server in self.tls_servers():
            stmt = server.conf_option(option)
            if stmt is not None and id(stmt) not in seen:
                seen.add(id(stmt))
                yield server, stmt

    def default_lines(
        self, directive: str, wanted: Callable[[Server, Stmt], bool]
    ) -> Iterator[tuple[str, Server, Stmt]]:
        """(socket, its default server, the line in effect there) for every TLS address whose
        default server has a `directive` line in effect (its own or http{}'s) that is `wanted`
        there; each line once, at the first address it is wanted for."""
        seen: set[int] = set()
        for socket, default, _ in self.tls_sockets():
            stmts = default.effective(directive)
            if (
                stmts
                and stmts[-1].args
                and id(stmts[-1]) not in seen
                and wanted(default, stmts[-1])
            ):
                seen.add(id(stmts[-1]))
                yield socket, default, stmts[-1]

    def uncertified(self) -> Iterator[Uncertified]:
        """Each server of a TLS address that has no certificate for it: no ssl_certificate in
        effect and no `ssl_reject_handshake on` (knowledge: listen_certificate). nginx -t
        refuses the tree where it is the address's default server, or any server where the
        default rejects handshakes; otherwise its names are answered with the default server's
        certificate. A server whose certificate lines may come from an include that could not
        be read is left out."""
        for socket, default, others in self.tls_sockets():
            if _certified(default) is None:
                continue
            rejects = _certified(default) == "reject"
            for server in (default, *others):
                if _certified(server) == "":
                    refused = server is default or rejects
                    yield Uncertified(socket, server, default, refused)

    def protocols(self, server: Server) -> list[str]:
        """The protocols a server allows: its ssl_protocols, else this nginx's default."""
        return server.value("ssl_protocols") or list(nginx.default_protocols(self.target))

    def dhe_usable(self, server: Server) -> bool:
        """Whether the library can negotiate DHE suites in this server's TLS context: its
        release has built-in DH parameters, or the directive they need is in effect there
        (knowledge: dh_parameters). Otherwise they are skipped, never an error."""
        needs = nginx.dhe_needs(self.target)
        return needs is None or bool(server.effective(needs))

    def ticket_keys_managed(self, server: Server) -> bool:
        """Whether this (default) server's ticket keys are the admin's or rotated by nginx:
        ssl_session_ticket_key files, or the keys nginx >= 1.23.2 keeps in a shared cache and
        rotates. Otherwise the library's own keys serve until the next reload."""
        if server.value("ssl_session_ticket_key"):
            return True
        cache = server.value("ssl_session_cache") or []
        shared = any(v.startswith("shared:") for v in cache)
        return shared and nginx.auto_ticket_rotation(self.target)

    def ticket_keys_shared(self, server: Server) -> bool:
        """Whether every worker encrypts this (default) server's tickets with the same keys, so
        that a ticket resumes on whichever worker takes the connection: managed keys, one
        worker, or a library that makes its keys with the context, in the master before the
        workers fork (knowledge: ticket_keys_made_with_context). Otherwise each worker makes
        its own on first use, and a ticket resumes only on the worker that issued it."""
        return (
            self.ticket_keys_managed(server)
            or self.single_worker()
            or self.has("ticket_keys_made_with_context")
        )

    def single_worker(self) -> bool:
        """Whether nginx runs one worker: `worker_processes 1`, or no such line in a whole
        nginx.conf (nginx's default is 1). A file of http{} content alone cannot tell."""
        loaded = self.config.loaded
        if loaded.http_level_top:
            return False
        lines = [s for s in loaded.statements if s.directive == "worker_processes"]
        return (lines[-1].args if lines else ["1"]) == ["1"]

    def legacy_protocols_negotiable(self) -> bool:
        """Whether TLS 1.0/1.1, when switched on, can be negotiated: never with BoringSSL, and
        not on OpenSSL 3 unless some ssl_ciphers lowers the security level to 0
        (`@SECLEVEL=0`)."""
        if not self.has("legacy_protocols"):
            return False
        if not self.has("legacy_protocols_need_seclevel0"):
            return True
        # asked once per ssl_protocols line: scan the config once per lint
        return self.memo(
            "seclevel0",
            lambda: any(
                s.directive == "ssl_ciphers" and "@SECLEVEL=0" in " ".join(s.args).upper()
                for s in self.all_statements()
            ),
        )

    @cached_property
    def add_header_inherit(self) -> bool:
        """Whether this nginx has add_header_inherit (knowledge: since 1.29.3)."""
        status = nginx.directive_status(self.target, "add_header_inherit")
        return status is not None and status.available

    def headers_in(self, server: Server, locations: Sequence[Location]) -> Headers:
        """The add_header lines of a response that the innermost of `locations` (nested,
        outermost first) answers; with none, the server itself. The one reading of add_header
        inheritance: lint's HSTS rules and the probe's prediction come here."""
        levels: list[Level] = [
            (self.config.http_stmt, self.config.http),
            (server.stmt, server.directives),
            *((loc.stmt, loc.directives) for loc in locations),
        ]
        found = inherit_headers(levels, self.add_header_inherit)
        return Headers(
            found.lines, found.dropped, _conditional(locations[-1] if locations else None)
        )

    def headers(self, server: Server, uri: str) -> Headers:
        """The add_header lines of a response to `uri` from `server`."""
        return self.headers_in(server, response_locations(server, uri))

    def location_headers(self, server: Server) -> Iterator[tuple[Location, Headers]]:
        """Every location of a server that answers requests, nested ones included, with the
        lines its responses carry: none where the server's own `return` answers every request."""
        if server.own("return"):
            return
        for chain in server.all_locations():
            yield chain[-1], self.headers_in(server, chain)

    def backends(self) -> list[BackendTls]:
        """Every location that passes to a TLS backend, with the client-side TLS in effect
        there (conf/upstream): once per model, every NGX8xx rule reads the same."""
        return self.memo("backends", lambda: list(backends(self.config, self.target)))

    def has(self, capability: str) -> bool:
        return libraries.has(self.target.library, capability)

    def library(self) -> str:
        return self.target.library.display

    def all_statements(self) -> Iterator[Stmt]:
        return iter(self._flat)

    def statement_count(self) -> int:
        return len(self._flat)

    def directive_names(self) -> set[str]:
        """Every directive name the tree holds (a rule or check with nothing to look at in a
        tree is not run there)."""
        return self.memo("directive names", lambda: {stmt.directive for stmt in self._flat})

    @cached_property
    def _flat(self) -> list[Stmt]:
        # Several rules scan every statement: flatten the tree once per lint.
        return walk(self.config.loaded.statements)


@record(frozen=True, eq=False)
class Uncertified:
    """A server of a TLS address without a certificate for it (Effective.uncertified)."""

    socket: str
    server: Server
    default: Server  # the address's default server
    refused: bool  # nginx -t refuses the tree; else the default server's certificate answers


def _certified(server: Server) -> str | None:
    """ "certificate", "reject" (ssl_reject_handshake on, no certificate), "" (neither), or None
    where an unread include may set them."""
    if server.effective("ssl_certificate"):
        return "certificate"
    reject = server.effective("ssl_reject_handshake")
    if reject and [a.lower() for a in reject[-1].args] == ["on"]:
        return "reject"
    if server.unknown("ssl_certificate") or server.unknown("ssl_reject_handshake"):
        return None
    return ""


def handshake_server(server: Server, default: Server) -> Server:
    """The server whose TLS context the handshake runs on, for a connection whose SNI selected
    `server` (the default server where no name selects one): nginx starts every connection on
    the default server's context and switches to the selected server's only where it made that
    server one, with ssl_certificate in effect or `ssl_reject_handshake on` (a server whose
    lines an unread include may set is taken to have one); a server with neither keeps the
    default server's (knowledge: listen_certificate). What the request gets is still
    `server`'s."""
    return server if _certified(server) != "" else default


def in_context(key: str) -> bool:
    """Whether a setting (a directive, or `ssl_conf_command NAME`) is one of the TLS context a
    handshake runs on (handshake_server), rather than the selected server's own: the ssl_*
    lines, except those nginx reads from the selected server (knowledge:
    listen_certificate.per_server)."""
    directive = key.split(" ", 1)[0]
    return directive.startswith("ssl_") and directive not in nginx.listen_certificate().per_server


def server_label(server: Server) -> str:
    name = server.names[0] if server.names else "(no server_name)"
    block = "stream server" if server.block == "stream" else "server"
    return f"{block} {name} ({server.stmt.file}:{server.stmt.line})"


def _pick(locations: list[Location], uri: str) -> Location | None:
    """The location nginx picks among siblings (ngx_http_core_find_location): an exact `=` match;
    else the longest prefix, final when it is `^~`; else the first regex (`~`, `~*`) that
    matches; else that longest prefix. Named locations (`@x`) take no URI."""
    import re

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
            try:
                flags = re.IGNORECASE if args[0] == "~*" else 0
                if re.search(args[1], uri, flags):
                    return loc
            except re.error:  # a PCRE construct Python's re lacks: not predictable here
                continue
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
    lines: tuple[Stmt, ...] = ()
    dropped: list[Dropped] = []
    mode: Stmt | None = None  # the add_header_inherit line in effect
    for block, directives in levels:
        modes = directives.get("add_header_inherit", []) if inherit_directive else []
        if modes and modes[-1].args:
            mode = modes[-1]
        value = mode.args[0] if mode else "on"
        own = tuple(directives.get("add_header", []))
        if not lines or (value != "off" and not own):
            lines = lines or own
            continue
        if value == "merge":
            lines = own + lines
            continue
        cause, why = _dropper(block, own, mode if modes else None, mode)
        dropped += [Dropped(line, cause, why) for line in lines]
        lines = own
    return Headers(lines, tuple(dropped))


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
