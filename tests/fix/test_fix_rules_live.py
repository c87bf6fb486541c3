"""Each fixable rule on each real build whose target it applies to (issue 13): the rule's failing
case (tests/lint/test_lint_rules.py, certificates pointed at real files) passes that build's `nginx
-t`; `--unsafe-fixes` of that rule alone makes the finding go, and `nginx -t` still passes. A
case nginx refuses as it is counts when the fix makes nginx accept it (NGX407: QUIC without TLS
1.3 is refused by nginx itself)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from nginxgen.conf.load import Loaded, load_path
from nginxgen.knowledge.target import Target
from nginxgen.lint.findings import Finding, fix_classes
from nginxgen.lint.fix import run_fixes
from nginxgen.lint.rules import catalog
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t
from tests.fix.test_lint_fix import fixable_cases
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.structure import point_files

CLASSES = fix_classes(unsafe=True)
# Fixable rules that no build of the tests can show: why, and what would.
NOT_ON_THESE_BUILDS: dict[str, str] = {}


def _fixable_findings(loaded: Loaded, target: Target, code: str) -> list[Finding]:
    return [f for f in lint(loaded, target, Selection(select={code})) if f.edits]


def _fix_on(build: Build, code: str, bad: str, folder: Path) -> str | None:
    """None when the case does not apply to this build (no fixable finding on its target, or its
    nginx -t refuses the case both before and after the fix); else how nginx -t saw it."""
    target = build_target(build)
    text = point_files(bad)
    conf = folder / "case" / "nginx.conf"
    conf.parent.mkdir()
    conf.write_text(text)
    if not _fixable_findings(load_path(str(conf)), target, code):
        return None
    (folder / "before").mkdir()
    was = nginx_t(build, text, folder / "before")
    outcome = run_fixes(
        lambda overlay: load_path(str(conf), overlay=overlay),
        lambda loaded: _fixable_findings(loaded, target, code),
        CLASSES,
    )
    fixed = outcome.changed[str(conf)]
    assert not [f for f in outcome.findings if f.code == code], (build.name, code, fixed)
    (folder / "after").mkdir()
    refused = nginx_t(build, fixed, folder / "after")
    if was:
        return None if refused else "mended"
    assert not refused, f"{code} on {build.name}: nginx -t refuses the fixed config: {refused}"
    return "kept"


def test_each_fix_keeps_nginx_t_passing_on_each_build(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    builds = [require_build(provisioned, name) for name in ALL_BUILD_NAMES]
    covered: dict[str, list[str]] = {}
    for index, (code, _, bad) in enumerate(fixable_cases()):
        for build in builds:
            with tempfile.TemporaryDirectory(prefix=f"nginxgen-fix-{index}-") as tmp:
                seen = _fix_on(build, code, bad, Path(tmp))
                if seen is not None:
                    covered.setdefault(code, []).append(f"{build.name} ({seen})")
    fixable = {code for code, entry in catalog().items() if entry.rule.autofix}
    assert set(covered) == fixable - set(NOT_ON_THESE_BUILDS), sorted(
        fixable - set(NOT_ON_THESE_BUILDS) - set(covered)
    )
