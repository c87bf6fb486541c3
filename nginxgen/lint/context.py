"""What a rule's check() receives: the config model, the target, and a way to report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property

from nginxgen import knowledge
from nginxgen.lint.config import Config, Server
from nginxgen.lint.findings import Finding, Fix
from nginxgen.lint.load import Stmt, walk
from nginxgen.records import field, record
from nginxgen.target import Target

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from nginxgen.edit.source import Source, Statement
    from nginxgen.edit.tree import TreeSources

    T = TypeVar("T")


@record(frozen=True)
class Rule:
    code: str
    name: str
    severity: str  # error: nginx refuses it or a security setting silently does not apply;
    # warning: insecure or silently ignored; info: speed or hygiene
    fix: str
    # what `--fix` does for it, if anything: (class, what it changes)
    autofix: tuple[str, str] | None = None


@record
class Context:
    config: Config
    target: Target
    # build each declared fix's edits now (--fix, --diff, SARIF, the language server, --into);
    # a plain lint only needs to know that a finding is fixable
    build_fixes: bool = True
    _memo: dict[str, Any] = field(default_factory=dict)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """What several rules derive from the same config, computed once per lint."""
        if key not in self._memo:
            self._memo[key] = compute()
        value: T = self._memo[key]  # the dict holds Any: no cast (typing stays unimported)
        return value

    def finding(
        self,
        rule: Rule,
        stmt: Stmt,
        message: str,
        fix: str | None = None,
        severity: str | None = None,
        autofix: str | None = None,
        edits: Fix | None = None,
        unsafe_edits: Fix | None = None,
    ) -> Finding:
        """A finding; with `edits` (a fix on the lossless model) it carries an automatic fix of
        class `autofix` ("safe": nothing but the defect changes; "unsafe": clients may notice),
        with `unsafe_edits` a second one used instead under --unsafe-fixes."""
        built = built_unsafe = None
        touches: tuple[str, ...] = ()  # files of a fix declared but not built
        if self.build_fixes:
            built = edits.build() if edits is not None else None
            built_unsafe = unsafe_edits.build() if unsafe_edits is not None else None
            safe, unsafe = bool(built), bool(built_unsafe)
        else:
            texts = self.config.loaded.texts  # files with a lossless model (not stdin, dumps)
            editable = [f for f in (edits, unsafe_edits) if f and all(n in texts for n in f.files)]
            safe, unsafe = edits in editable, unsafe_edits in editable
            touches = tuple(dict.fromkeys(n for f in editable for n in f.files))
        return Finding(
            code=rule.code,
            name=rule.name,
            severity=severity or rule.severity,
            file=stmt.file,
            line=stmt.line,
            message=message,
            fix=fix or rule.fix,
            autofix=(autofix if safe else None) or ("unsafe" if unsafe else None),
            edits=tuple(built or ()),
            unsafe_edits=tuple(built_unsafe or ()),
            touches=touches,
        )

    def source(self, file: str) -> Source | None:
        """The lossless model of a file of the tree (None: stdin or a dump, not editable)."""
        return self._tree().source(file)

    def locate(self, stmt: Stmt) -> tuple[Source, Statement] | None:
        """The lossless statement behind a loaded one: same file, line, name and arguments."""
        return self._tree().locate(stmt)

    def _tree(self) -> TreeSources:
        from nginxgen.edit.tree import TreeSources

        return self.memo("sources", lambda: TreeSources(self.config.loaded.texts))

    def load_problems(self, rule: Rule, kind: str) -> Iterator[Finding]:
        """A finding for each problem of this kind met while reading the files."""
        for problem in self.config.loaded.problems:
            if problem.kind == kind:
                yield self.finding(rule, Stmt("", [], problem.line, problem.file), problem.message)

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

    def ticket_keys_shared(self, server: Server) -> bool:
        """Whether every worker encrypts this (default) server's tickets with the same keys:
        ssl_session_ticket_key files, or the keys nginx >= 1.23.2 rotates in a shared cache.
        Without that, a ticket resumes only on the worker that issued it."""
        if server.value("ssl_session_ticket_key"):
            return True
        cache = server.value("ssl_session_cache") or []
        shared = any(v.startswith("shared:") for v in cache)
        return shared and knowledge.auto_ticket_rotation(self.target)

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
