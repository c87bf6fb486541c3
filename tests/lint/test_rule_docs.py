"""Every rule has a documentation page with its sources, docs/rules/ is current, and
`nginxgen rules` / `nginxgen explain` print from the same source."""

from __future__ import annotations

import re

import pytest

from nginxgen.lint.rule_docs import pages
from nginxgen.lint.rules import catalog, render_index
from nginxgen.shell.cli import main
from tests.paths import REPO

DOCS = REPO / "docs" / "rules"


def test_docs_rules_folder_is_current() -> None:
    expected = pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(n for n in expected if on_disk.get(n) != expected[n])
    extra = sorted(set(on_disk) - set(expected))
    assert not stale and not extra, (
        f"run python scripts/render_rule_docs.py (stale: {stale}, extra: {extra})"
    )


@pytest.mark.parametrize("code", sorted(catalog()))
def test_every_rule_page_says_why_and_cites_a_source(code: str) -> None:
    entry = catalog()[code]
    assert re.fullmatch(r"NGX\d{3}", code) and re.fullmatch(
        r"[a-z0-9]+(-[a-z0-9]+)*", entry.rule.name
    )
    assert entry.rule.severity in ("error", "warning", "info")
    assert len(entry.doc.strip().splitlines()) >= 2, "a summary line and an explanation"
    assert "Sources:" in entry.doc, f"{code} names no source"
    assert entry.rule.fix


def test_explain_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "ngx721"]) == 0
    out = capsys.readouterr().out
    assert out == (DOCS / "NGX721.md").read_text(encoding="utf-8")
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(catalog())
    assert main(["explain", "NGX999"]) == 2


def test_the_rule_index_is_current() -> None:
    """lint imports only the rules the index says a tree can trigger: a stale index would run a
    rule on the wrong trees, or miss a new one."""
    index = DOCS.parent.parent / "nginxgen" / "lint" / "rules" / "_index.py"
    assert index.read_text(encoding="utf-8") == render_index(), (
        "run python scripts/render_rule_docs.py"
    )
