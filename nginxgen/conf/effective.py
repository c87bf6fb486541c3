"""What is in effect where: the answers lint's rules, probe --config and generate --into share
about a loaded config for a target (which server is the default of a TLS socket, which lines
apply in a server, what the TLS library can negotiate). One place, every command reads it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property

from nginxgen import knowledge
from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt, walk
from nginxgen.target import Target

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


class Effective:
    def __init__(self, config: Config, target: Target) -> None:
        self.config = config
        self.target = target
        self._memo: dict[str, Any] = {}

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

    def protocols(self, server: Server) -> list[str]:
        """The protocols a server allows: its ssl_protocols, else this nginx's default."""
        return server.value("ssl_protocols") or list(knowledge.default_protocols(self.target))

    def ticket_keys_managed(self, server: Server) -> bool:
        """Whether this (default) server's ticket keys are the admin's or rotated by nginx:
        ssl_session_ticket_key files, or the keys nginx >= 1.23.2 keeps in a shared cache and
        rotates. Otherwise the library's own keys serve until the next reload."""
        if server.value("ssl_session_ticket_key"):
            return True
        cache = server.value("ssl_session_cache") or []
        shared = any(v.startswith("shared:") for v in cache)
        return shared and knowledge.auto_ticket_rotation(self.target)

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

    def has(self, capability: str) -> bool:
        return knowledge.has(self.target.library, capability)

    def library(self) -> str:
        return self.target.library.display

    def all_statements(self) -> Iterator[Stmt]:
        return iter(self._flat)

    @cached_property
    def _flat(self) -> list[Stmt]:
        # Several rules scan every statement: flatten the tree once per lint.
        return walk(self.config.loaded.statements)


def server_label(server: Server) -> str:
    name = server.names[0] if server.names else "(no server_name)"
    return f"server {name} ({server.stmt.file}:{server.stmt.line})"


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


def headers_for(config: Config, server: Server, uri: str) -> list[Stmt]:
    """The add_header lines of a response to `uri`: those of the innermost level that has any
    (http{}, server, enclosing locations, location); levels replace each other, never merge,
    unless `add_header_inherit merge` (nginx >= 1.29.3) is in effect there, and
    `add_header_inherit off` drops what a level without lines of its own would inherit."""
    levels = [
        config.http,
        server.directives,
        *(loc.directives for loc in locations_for(server, uri)),
    ]
    lines: list[Stmt] = []
    mode = "on"
    for level in levels:
        if level.get("add_header_inherit") and level["add_header_inherit"][-1].args:
            mode = level["add_header_inherit"][-1].args[0]
        own = level.get("add_header", [])
        if own:
            lines = [*lines, *own] if mode == "merge" else list(own)
        elif mode == "off":
            lines = []
    return lines


def header_sent(line: Stmt, status: int) -> bool:
    """Whether an add_header line adds its field to a response with this status."""
    if "always" in line.args[2:]:
        return True
    return status in knowledge.nginx_fact("add_header")["statuses_without_always"]
