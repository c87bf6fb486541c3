"""A plain lint builds no edits (issue 24): it knows a finding is fixable from the fix the rule
declares, and says so exactly as a run that builds the edits does."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.edit import source
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.lint.test_lint_rules import CASES


def _findings(text: str, target: tuple[str, str], folder: Path, build: bool) -> list[tuple]:
    path = folder / "nginx.conf"
    path.write_text(text)
    found = lint(load_path(str(path)), resolve(*target), Selection(), build_fixes=build)
    return [(f.code, f.file, f.line, f.message, f.autofix) for f in found]


@pytest.mark.parametrize(
    ("code", "target", "bad", "good"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_plain_lint_says_what_the_fix_run_says_without_building(
    code: str,
    target: tuple[str, str],
    bad: str,
    good: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _findings(bad, target, tmp_path, build=True)

    def refuse(*args: object) -> None:
        raise AssertionError("a plain lint built the lossless model of a file")

    monkeypatch.setattr(source.Source, "__init__", refuse)
    assert _findings(bad, target, tmp_path, build=False) == built


def test_a_dump_has_no_fixable_finding(tmp_path: Path) -> None:
    """Without the file's text (crossplane JSON in), no fix can be built: none is claimed."""
    import json

    import crossplane

    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n  server {\n    listen 443 ssl;\n    keepalive_timeout 0;\n  }\n}\n"
    )
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(crossplane.parse(str(conf))))
    target = resolve("1.26.3", "openssl-3.5")
    from_text = lint(load_path(str(conf)), target, Selection(), build_fixes=False)
    assert any(f.autofix for f in from_text), from_text  # the same tree as text: fixable
    for build in (True, False):
        found = lint(load_path(str(dump)), target, Selection(), build_fixes=build)
        assert found and all(f.autofix is None for f in found), found


def test_the_cases_above_have_fixes_to_declare(tmp_path: Path) -> None:
    fixable = {
        code
        for i, (code, target, bad, _) in enumerate(CASES)
        if any(f[4] for f in _findings(bad, target, _folder(tmp_path, i), build=False))
    }
    assert len(fixable) >= 15, sorted(fixable)


def _folder(root: Path, i: int) -> Path:
    folder = root / str(i)
    folder.mkdir()
    return folder


def test_a_fix_has_its_class_declared_by_its_rule(tmp_path: Path) -> None:
    """Fix safety is declared once, on the rule (Rule.autofix); a finding names a class only
    where it differs for that finding (NGX006, NGX201, NGX302)."""
    from nginxgen.lint.rules import catalog

    rules = catalog()
    for i, (_, target, bad, _) in enumerate(CASES):
        for code, _, _, _, autofix in _findings(bad, target, _folder(tmp_path, i), build=True):
            if autofix is not None:
                assert rules[code].rule.autofix is not None, code
