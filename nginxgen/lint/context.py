"""What a rule's check() receives: the effective model (nginxgen.conf.effective) of the config
for the target, and a way to report."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Config
from nginxgen.conf.effective import Effective, server_label
from nginxgen.conf.load import Stmt
from nginxgen.lint.findings import Finding, Fix
from nginxgen.records import record
from nginxgen.target import Target

__all__ = ["Context", "Rule", "server_label"]

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.edit.source import Source, Statement
    from nginxgen.edit.tree import TreeSources


@record(frozen=True)
class Rule:
    code: str
    name: str
    severity: str  # error: nginx refuses it or a security setting silently does not apply;
    # warning: insecure or silently ignored; info: speed or hygiene
    fix: str
    # what `--fix` does for it, if anything: (class, what it changes)
    autofix: tuple[str, str] | None = None


class Context(Effective):
    """The effective model of the config for a target, and a way for a rule to report."""

    def __init__(self, config: Config, target: Target, build_fixes: bool = True) -> None:
        super().__init__(config, target)
        # build each declared fix's edits now (--fix, --diff, SARIF, the language server,
        # --into); a plain lint only needs to know that a finding is fixable
        self.build_fixes = build_fixes

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
