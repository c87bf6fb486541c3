"""Lint as nginxgen does, checked against running every rule: lint gives a tree only the rules
one of whose triggers it holds (Rule.triggers, read from the generated index), and a wrong
trigger would lose findings in silence. The rule tests lint through `lint_checked`, so each of
their cases also checks the triggers of every rule."""

from __future__ import annotations

from nginxgen.conf.config import build
from nginxgen.conf.load import Loaded
from nginxgen.knowledge.target import Target
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules import catalog
from nginxgen.lint.run import SAID_READING, Selection, lint, run_rules, said_before_stop


def every_rule(loaded: Loaded, target: Target, selection: Selection) -> list[Finding]:
    """The findings of every rule of the catalog, triggers or not (of a tree nginx stopped
    reading, those lint gives: the rules of what nginx says as it reads, up to its first
    error)."""
    ctx = Context(build(loaded), target)
    if loaded.stopped is None:
        return run_rules(ctx, catalog().values(), selection)
    rules = [entry for entry in catalog().values() if entry.rule.code in SAID_READING]
    return said_before_stop(run_rules(ctx, rules, selection), loaded)


def lint_checked(
    loaded: Loaded, target: Target, selection: Selection | None = None
) -> list[Finding]:
    """lint()'s findings, after checking that every rule finds the same on this tree."""
    selection = selection or Selection()
    found = lint(loaded, target, selection)
    expected = every_rule(loaded, target, selection)
    assert _keys(found) == _keys(expected), (
        f"a rule's triggers lose findings: {sorted(_keys(expected) - _keys(found))}"
    )
    return found


def _keys(findings: list[Finding]) -> set[tuple[str, str, int, str]]:
    return {(f.code, f.file, f.line, f.message) for f in findings}
