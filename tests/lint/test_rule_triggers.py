"""Rule triggers (Rule.triggers, nginxgen/lint/rules/_index.py): lint gives a tree only the rules
it can trigger, and imports no other. The oracle is every rule of the catalog run on the same
model (tests/every_rule.py): on the corpus of real configs, on the generated trees of the lint
fuzzer, and (through lint_checked) on every case of the rule tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from nginxgen.conf.load import LoadError, load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.rules import catalog
from nginxgen.lint.rules._index import INDEX
from tests.every_rule import lint_checked
from tests.fuzzing.configs import Tree, trees
from tests.fuzzing.lint_check import TARGETS
from tests.helpers import FUZZ_CASES
from tests.paths import REPO

# 150 of the in-process fuzzers' 400: each case lints a tree with every rule twice
CASES = max(FUZZ_CASES * 3 // 8, 20)

DATA = REPO / "tests" / "data"
REPO = DATA.parent.parent


def test_the_index_names_every_rule_of_the_catalog() -> None:
    assert [code for code, _, _, _ in INDEX] == list(catalog())
    for code, name, _, triggers in INDEX:
        assert catalog()[code].rule.name == name
        assert catalog()[code].rule.triggers == triggers


def test_the_corpus_loses_no_finding() -> None:
    """Every real config of the corpus, each on one of the fuzzer's targets in turn."""
    checked = 0
    for index, path in enumerate(sorted((DATA / "corpus").rglob("*.conf"))):
        try:
            loaded = load_path(str(path))
        except LoadError:
            continue  # a file lint refuses whole: no rule runs on it
        lint_checked(loaded, resolve(*TARGETS[index % len(TARGETS)]))
        checked += 1
    assert checked >= 200


@pytest.mark.fuzz
def test_generated_trees_lose_no_finding() -> None:
    """A tree lint refuses whole (LoadError) is thrown away (assume) and replaced: every one of
    the cases hypothesis counts ran both the indexed rules and every rule. CI's fixed seed
    draws a tree of thousands of include lines, where a lint took minutes: each rule asked
    each server whether an unread include might set a directive, a walk over all of them
    (Server.unknown, now found once per server)."""
    checked = 0

    @settings(
        max_examples=CASES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(tree=trees, target=st.sampled_from(TARGETS))
    def one(tree: Tree, target: tuple[str, str]) -> None:
        nonlocal checked
        with tempfile.TemporaryDirectory(prefix="nginxgen-triggers-") as tmp:
            for name, data in tree.files.items():
                path = Path(tmp) / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            try:
                loaded = load_path(str(Path(tmp) / tree.main))
            except LoadError:
                reject()
            lint_checked(loaded, resolve(*target))
        checked += 1

    one()
    assert checked >= CASES, checked


def _imported_rules(tmp_path: Path, text: str) -> set[str]:
    """The rule modules a real `nginxgen lint` of this file imported."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    probe = (
        "import json, sys\n"
        "from nginxgen.shell.cli import main\n"
        "main(['lint', '--format', 'json', sys.argv[1]])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('nginxgen.lint.rules.ngx'))),"
        " file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(conf)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("ssl_dhparam /etc/ssl/dh.pem;", "ngx731_dhparam_weak"),
        ("ssl_ciphers HIGH:!aNULL;", "ngx402_weak_cipher"),
        ("ssl_verify_client optional;", "ngx741_client_verify_unchecked"),
    ],
)
def test_a_rule_is_imported_only_for_a_tree_that_can_trigger_it(
    tmp_path: Path, line: str, module: str
) -> None:
    server = "events {{}} http {{ server {{ listen 443 ssl; server_name a.example; {} }} }}\n"
    without = _imported_rules(tmp_path, server.format(""))
    with_line = _imported_rules(tmp_path, server.format(line))
    name = f"nginxgen.lint.rules.{module}"
    assert name not in without and name in with_line
    assert "nginxgen.lint.rules.ngx001_syntax_error" in without  # a rule without triggers
