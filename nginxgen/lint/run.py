"""Run the rules over loaded configs and apply suppressions and selection."""

from __future__ import annotations

from collections.abc import Iterable

from nginxgen.base.records import field, record
from nginxgen.conf.config import build
from nginxgen.conf.load import Loaded
from nginxgen.knowledge.target import Target
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules import RuleEntry, triggered


@record
class Selection:
    select: set[str] = field(default_factory=set)  # codes or prefixes; empty: all
    ignore: set[str] = field(default_factory=set)
    min_severity: Severity = Severity.INFO

    def picks(self, code: str, name: str) -> bool:
        """Whether --select and --ignore leave the rule of this code and name."""
        if self.select and not any(code.startswith(s) or name == s for s in self.select):
            return False
        return not any(code.startswith(i) or name == i for i in self.ignore)

    def wants(self, finding: Finding) -> bool:
        return self.picks(finding.code, finding.name) and finding.severity.at_least(
            self.min_severity
        )


def _suppressed(finding: Finding, loaded: Loaded) -> bool:
    for sup in loaded.suppressions:
        if (
            sup.file == finding.file
            and sup.line in (finding.line, finding.line - 1)
            and finding.code in sup.codes
        ):
            sup.used = True
            return True
    return False


def lint(
    loaded: Loaded,
    target: Target,
    selection: Selection,
    report_files: Iterable[str] | None = None,
    build_fixes: bool = True,
) -> list[Finding]:
    """The findings; with `build_fixes` False each fixable one says so (`autofix`, `touches`)
    without its edits being built on the lossless model (a plain lint needs no edits)."""
    ctx = Context(build(loaded), target, build_fixes)
    rules = triggered(ctx.directive_names(), selection.picks)
    return run_rules(ctx, rules, selection, report_files)


def lint_tree(
    loaded: Loaded,
    target: Target,
    selection: Selection,
    report_files: Iterable[str] | None = None,
    build_fixes: bool = True,
) -> list[Finding]:
    """What every shell reports of a loaded tree (the command, the in-process API): its
    findings, without the fixes that would write a file another tool manages."""
    from nginxgen.lint.managed import leave_managed

    found = lint(loaded, target, selection, report_files, build_fixes)
    return leave_managed(found, loaded.texts)


def run_rules(
    ctx: Context,
    rules: Iterable[RuleEntry],
    selection: Selection,
    report_files: Iterable[str] | None = None,
) -> list[Finding]:
    """The findings of these rules on the context's config, selected and not suppressed."""
    loaded = ctx.config.loaded
    only = set(report_files) if report_files is not None else None
    findings: set[Finding] = set()
    for entry in rules:
        for finding in entry.check(ctx):
            if only is not None and finding.file not in only:
                continue
            if not selection.wants(finding) or _suppressed(finding, loaded):
                continue
            findings.add(finding)
    # the message too: two findings of one rule on one line come out in the same order each run
    return sorted(findings, key=lambda f: (f.file, f.line, f.code, f.message))
