"""Fuzzing the linter (issue 7): seeded and bounded here; scripts/fuzz.py runs the same check
for as many cases as asked. Crashes it found are pinned in tests/generate/test_fuzz_regressions.py."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzzing.configs import Tree, trees
from tests.fuzzing.lint_check import TARGETS, check_lint
from tests.helpers import FUZZ_CASES

CASES = FUZZ_CASES


@settings(
    max_examples=CASES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tree=trees, target=st.sampled_from(TARGETS))
def test_lint_survives_any_input(tree: Tree, target: tuple[str, str]) -> None:
    check_lint(tree, target)
