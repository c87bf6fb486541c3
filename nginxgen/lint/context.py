"""What a rule's check() receives: the effective model (nginxgen.conf.effective) of the config
for the target, and a way to report."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.config import Config
from nginxgen.conf.effective import Effective, server_label
from nginxgen.conf.load import Stmt, handler_line
from nginxgen.knowledge.target import Target
from nginxgen.lint.findings import SEVERITIES, Applicability, Finding, Fix, Severity

__all__ = ["Context", "Rule", "seen_at", "server_label"]

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.edit.source import Source, SourceStatement
    from nginxgen.edit.tree_sources import TreeSources


@record(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    fix: str
    # what `--fix` does for it, if anything: (class, what it changes)
    autofix: tuple[Applicability, str] | None = None
    # the other severities a finding of it takes, each with when: (severity, when); the catalog
    # (`nginxgen rules`, docs/rules/) says them, and a finding of any other severity is refused
    otherwise: tuple[tuple[Severity, str], ...] = ()
    # the directives every finding of it needs in the tree: a tree without any of them is not
    # given to the rule, whose module is then not even imported (a pre-commit start); empty: the
    # rule runs on every tree (nginxgen/lint/rules/index.py lists them, generated)
    triggers: tuple[str, ...] = ()
    # the parts of the target its fix is right only for ("nginx": `http2 on;` does not exist
    # before 1.25.1; "library": group spellings): where that part was assumed, not read or
    # given, the fix is never applied as safe (as ruff is conservative with its default target)
    target_bound: tuple[str, ...] = ()

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity its findings take, lowest first."""
        taken = {self.severity, *(severity for severity, _ in self.otherwise)}
        return tuple(s for s in SEVERITIES if s in taken)

    @property
    def severity_range(self) -> str:
        """What `nginxgen rules` shows: the severity, or the range the findings take by case."""
        taken = self.severities
        return taken[0] if len(taken) == 1 else f"{taken[0]}-{taken[-1]}"


TARGET_PARTS = {"nginx": "nginx release", "library": "TLS library"}


def seen_at(first: Stmt, here: Stmt) -> str:
    """Where an earlier line stands, said from a later one: `line 4` in the same file, else
    `FILE:4`."""
    return f"line {first.line}" if first.file == here.file else f"{first.file}:{first.line}"


def _held_reason(target: Target, assumed: set[str] | frozenset[str]) -> str:
    """Why a safe fix is applied only with --unsafe-fixes: the part of the target it depends on
    was assumed, and how to state it."""
    shown = {"nginx": f"nginx {target.nginx}", "library": target.library.display}
    named = " and ".join(shown[part] for part in sorted(assumed))
    parts = " or ".join(f"{TARGET_PARTS[part]}s" for part in sorted(assumed))
    return (
        f"unsafe fix: {named} {'were' if len(assumed) > 1 else 'was'} assumed, and this fix is "
        f"right only for some {parts} (--unsafe-fixes applies it; --nginx-version, "
        "--tls-library, --nginx-bin or the settings file's target make it safe)"
    )


def block_fix(fix: str, config: Config) -> str:
    """A rule's fix text for the block of the finding: a stream{} server's settings go to
    stream{} level, not http{}'s."""
    return fix.replace("http{}", "stream{}") if config.block == "stream" else fix


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
        severity: Severity | None = None,
        autofix: Applicability | None = None,
        edits: Fix | None = None,
        handled: bool = False,
    ) -> Finding:
        """A finding; with `edits` (a fix on the lossless model) it carries an automatic fix, of
        the class the rule declares (or UNSAFE when it declares none) unless `autofix` names
        another for this finding. `handled`: nginx says it once it has read the statement (its
        directive's handler, a setter): the finding names the line nginx names, the statement's
        last (handler_line), not its first; other findings name where the statement starts."""
        applicability = autofix or (rule.autofix[0] if rule.autofix else Applicability.UNSAFE)
        held = ""
        assumed = self.target.guessed.intersection(rule.target_bound)
        if assumed:
            if applicability is Applicability.SAFE:
                held = _held_reason(self.target, assumed)
            applicability = Applicability.UNSAFE
        built = None
        touches: tuple[str, ...] = ()  # files of a fix declared but not built
        if edits is None:
            fixable = False
        elif self.build_fixes:
            built = edits.build()
            fixable = bool(built)
        else:
            texts = self.config.loaded.texts  # files with a lossless model (not stdin, dumps)
            fixable = all(name in texts for name in edits.files)
            touches = edits.files if fixable else ()
        if severity is not None and severity not in rule.severities:
            # the catalog says what lint does: a severity it does not declare is a rule's bug
            raise ValueError(f"{rule.code} reports {severity}, which its Rule does not declare")
        return Finding(
            code=rule.code,
            name=rule.name,
            severity=severity or rule.severity,
            file=stmt.file,
            line=handler_line(stmt) if handled else stmt.line,
            first_line=stmt.line,
            message=message,
            fix=fix or rule.fix,
            autofix=applicability if fixable else None,
            edits=tuple(built or ()),
            touches=touches,
            held=held if fixable else "",
        )

    def source(self, file: str) -> Source | None:
        """The lossless model of a file of the tree (None: stdin or a dump, not editable)."""
        return self._tree().source(file)

    def locate(self, stmt: Stmt) -> tuple[Source, SourceStatement] | None:
        """The lossless statement behind a loaded one: same file, line, name and arguments."""
        return self._tree().locate(stmt)

    def _tree(self) -> TreeSources:
        from nginxgen.edit.tree_sources import TreeSources

        loaded = self.config.loaded
        return self.memo("sources", lambda: TreeSources(loaded.texts, loaded.spans))

    def load_problems(self, rule: Rule, kind: str) -> Iterator[Finding]:
        """A finding for each problem of this kind met while reading the files, at the line
        nginx names (Problem.end_line: an include's last), a suppression above its first
        covering it."""
        for problem in self.config.loaded.problems:
            if problem.kind == kind:
                stmt = Stmt("", [], problem.line, problem.file, end_line=problem.end_line)
                yield self.finding(rule, stmt, problem.message, handled=True)
