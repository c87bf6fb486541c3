"""Run the rules over loaded configs and apply suppressions and selection."""

from __future__ import annotations

from collections.abc import Iterable

from nginxgen.conf.config import build
from nginxgen.conf.load import Loaded
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules import catalog
from nginxgen.records import field, record
from nginxgen.target import Target


@record
class Selection:
    select: set[str] = field(default_factory=set)  # codes or prefixes; empty: all
    ignore: set[str] = field(default_factory=set)
    min_severity: Severity = Severity.INFO

    def wants(self, finding: Finding) -> bool:
        code = finding.code
        if self.select and not any(code.startswith(s) or finding.name == s for s in self.select):
            return False
        if any(code.startswith(i) or finding.name == i for i in self.ignore):
            return False
        return finding.severity.at_least(self.min_severity)


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
    only = set(report_files) if report_files is not None else None
    findings: set[Finding] = set()
    for entry in catalog().values():
        for finding in entry.check(ctx):
            if only is not None and finding.file not in only:
                continue
            if not selection.wants(finding) or _suppressed(finding, loaded):
                continue
            findings.add(finding)
    # the message too: two findings of one rule on one line come out in the same order each run
    return sorted(findings, key=lambda f: (f.file, f.line, f.code, f.message))
