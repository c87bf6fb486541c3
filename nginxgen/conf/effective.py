"""What is in effect where: the answers lint's rules, probe --config and generate --into share
about a loaded config for a target (which server is the default of a TLS socket, which lines
apply in a server, what the TLS library can negotiate). One place, every command reads it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Server
from nginxgen.conf.load import Stmt, walk
from nginxgen.conf.responses import Responses
from nginxgen.conf.sessions import Sessions
from nginxgen.conf.upstream import BackendTls, backends
from nginxgen.conf.words import flag_on
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

    @cached_property
    def mail(self) -> Effective:
        """The mail{} servers of the same tree for the same target (conf/stream_config.py)."""
        if self.config.block == "mail":
            return self
        from nginxgen.conf.stream_config import build_mail

        return Effective(build_mail(self.config.loaded), self.target)

    def mail_tls_servers(self) -> list[Server]:
        """mail{}'s servers that set up TLS (mail_tls); none built where the tree has no
        mail{}."""
        if "mail" not in self.directive_names():
            return []
        mail = self.mail
        return [server for server in mail.config.servers if mail.mail_tls(server) is not None]

    def mail_tls(self, server: Server) -> tuple[str, Stmt] | None:
        """How a server of this mail{} model sets up TLS (ngx_mail_ssl_merge_conf), and the line
        nginx names for it: "listen ... ssl" (its last such listen), "ssl" (`ssl on`, where the
        target has the directive: until 1.25.1) or "starttls" (on or only), whose line is the
        server's last `ssl` or `starttls` line, else mail{}'s. None: it sets up none. Asked by
        NGX715 (a certificate it must have) and the cipher rules (suites it offers)."""
        listens = [listen.stmt for listen in server.listens if listen.ssl]
        if listens:
            return "listen ... ssl", listens[-1]
        status = nginx.directive_status(self.target, "ssl")
        switches = ("ssl", "starttls") if status is None or status.available else ("starttls",)
        if "ssl" in switches and flag_on(server.value("ssl")):
            mode = "ssl"
        elif (server.value("starttls") or ["off"])[0].lower() in ("on", "only"):
            mode = "starttls"
        else:
            return None
        mail = self.config.http_stmt  # the mail{} block (one: nginx refuses a second)
        top = (mail.block or []) if mail is not None else []
        for lines in (server.stmt.block or [], top):
            line = next((s for s in reversed(lines) if s.directive in switches), None)
            if line is not None:
                return mode, line
        return mode, server.stmt

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
        # TCP addresses first: a server named by a QUIC address (`*:8443/udp`) is said to miss
        # session-ID resumption, which QUIC never has (trial 15)
        sockets = sorted(self.tls_sockets(), key=lambda found: found[0].endswith("/udp"))
        for socket, default, _ in sockets:
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
        return (s for s in self.named(directive) if flag_on(s.args))

    def effective_on(
        self, directive: str, where: Callable[[Server], bool] | None = None
    ) -> Iterator[tuple[Server, Stmt]]:
        """Each `DIRECTIVE on;` in effect in a TLS server, once, with a server it applies to:
        the first one, or the first for which `where` holds (an http{}-level line is moot in
        some servers, not in others)."""
        seen: set[int] = set()
        for server in self.tls_servers():
            stmts = server.effective(directive)
            on = stmts and flag_on(stmts[-1].args) and id(stmts[-1]) not in seen
            if on and (where is None or where(server)):
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
        there; each line once (a file included in several servers too: trial 10, one line of
        an ssl-params.conf 25 servers include), with every address it is wanted for named in
        the first element (`a:443`, `a:443 and b:443`, `a:443, b:443 and 3 more`) and the first
        address's default server."""
        found: dict[tuple[str, int, int | None], tuple[list[str], Server, Stmt]] = {}
        for socket, default, _ in self.tls_sockets():
            stmts = default.effective(directive)
            if not stmts or not stmts[-1].args:
                continue
            stmt = stmts[-1]
            place = (stmt.file, stmt.line, stmt.start)
            if not wanted(default, stmt):
                continue
            if place in found:
                found[place][0].append(socket)
            else:
                found[place] = ([socket], default, stmt)
        for sockets, default, stmt in found.values():
            yield _listed(sockets), default, stmt

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

    def switched_on_uncertified(self) -> Iterator[tuple[Server, Stmt]]:
        """Each server where the old `ssl on;` is in effect (its own, or http{}'s) with no
        certificate and no `ssl_reject_handshake on`, with that `ssl` line: nginx -t refuses it
        there whether or not the server is a default one (knowledge: listen_certificate)."""
        if self.config.block != "http":
            return
        for server in self.config.servers:
            lines = server.effective("ssl")
            if lines and flag_on(lines[-1].args) and _certified(server) == "":
                yield server, lines[-1]

    def protocols(self, server: Server) -> list[str]:
        """The protocols a server allows: its ssl_protocols, else this nginx's default."""
        return server.value("ssl_protocols") or list(nginx.default_protocols(self.target))

    def dhe_usable(self, server: Server) -> bool:
        """Whether the library can negotiate DHE suites in this server's TLS context: its
        release has built-in DH parameters, or the directive they need is in effect there
        (knowledge: dh_parameters). Otherwise they are skipped, never an error."""
        needs = nginx.dhe_needs(self.target)
        return needs is None or bool(server.effective(needs))

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
                "@SECLEVEL=0" in " ".join(s.args).upper() for s in self.named("ssl_ciphers")
            ),
        )

    @cached_property
    def responses(self) -> Responses:
        """What a response carries: add_header lines and their inheritance (conf/responses)."""
        return Responses(self.config, self.target)

    @cached_property
    def sessions(self) -> Sessions:
        """Whose session ticket keys serve a server, and how many workers share them
        (conf/sessions)."""
        return Sessions(self.config, self.target)

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
        return set(self._by_name)

    def named(self, *directives: str) -> list[Stmt]:
        """Every statement of these directives, in reading order (all_statements' order)."""
        if len(directives) == 1:
            return self._by_name.get(directives[0], [])
        wanted = set(directives) & self._by_name.keys()
        if len(wanted) <= 1:
            return self._by_name.get(wanted.pop(), []) if wanted else []
        return [s for s in self._flat if s.directive in wanted]

    def names_ending(self, suffix: str) -> list[str]:
        """The tree's directive names that end so (`ssl_conf_command`: proxy_, grpc_, ...)."""
        return [name for name in self._by_name if name.endswith(suffix)]

    def unread_include(self) -> bool:
        """Whether an include of the tree could not be read (what it would set is unknown)."""
        return bool(self._unread)

    @cached_property
    def _by_name(self) -> dict[str, list[Stmt]]:
        # Most rules look at a few directives: one pass over the tree files every statement
        # under its name (2,000 vhosts: 26,000 statements, once instead of once a rule).
        index: dict[str, list[Stmt]] = {}
        for stmt in self._flat:
            some = index.get(stmt.directive)
            if some is None:
                index[stmt.directive] = [stmt]
            else:
                some.append(stmt)
        return index

    def ancestors(self, stmt: Stmt) -> Iterator[Stmt]:
        """The blocks around a statement, the nearest first."""
        outer = self._parents.get(id(stmt))
        while outer is not None:
            yield outer
            outer = self._parents.get(id(outer))

    def top_block(self, stmt: Stmt) -> str | None:
        """The main-level block a statement is inside (`http`, `stream`, `events`...; None for
        a main-level statement)."""
        outer = self._parents.get(id(stmt))
        if outer is None:
            return None
        while (up := self._parents.get(id(outer))) is not None:
            outer = up
        return outer.directive

    @cached_property
    def _parents(self) -> dict[int, Stmt]:
        # by id: statements are records compared by value, and two equal lines may stand apart
        parents: dict[int, Stmt] = {}
        for stmt in self._flat:
            if stmt.block:
                for child in stmt.block:
                    parents[id(child)] = stmt
        return parents

    @cached_property
    def _unread(self) -> list[Stmt]:
        return [s for s in self.named("include") if s.unread]

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
    if reject and flag_on(reject[-1].args):
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


def _listed(items: list[str], shown: int = 2) -> str:
    """`a`, `a and b`, `a, b and 3 more`."""
    if len(items) <= shown:
        return " and ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"
