"""Fuzzing the generator (issue 7): random models for assorted targets are refused or render
into configs that re-parse to the plan, lint clean, and pass nginx -t on each real build."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import GeneratorCase, check_generate
from tests.fuzzing.models import generator_case
from tests.helpers import FUZZ_CASES

CASES = FUZZ_CASES
FUZZ = settings(
    max_examples=CASES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def sample(cases: int, build: Build | None = None) -> None:
    """`cases` random models through check_generate; a refusal checks little, so at least a
    tenth of them (about a fifth seen) must have rendered (and, with a build, passed nginx -t)."""
    outcomes: Counter[str] = Counter()

    @settings(FUZZ, max_examples=cases)
    @given(case=generator_case())
    def one(case: GeneratorCase) -> None:
        outcomes[check_generate(case, build).kind] += 1

    one()
    assert outcomes["nginx-t" if build else "rendered"] >= cases // 10, outcomes


@pytest.mark.fuzz
def test_generator_refuses_or_renders_lint_clean() -> None:
    sample(CASES)


@pytest.mark.fuzz
@pytest.mark.parametrize("name", BUILD_NAMES)
def test_generated_configs_pass_nginx_t(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    # 200 per build, as before the in-process fuzzers' share fell to 400: at 80 the share that
    # reaches nginx -t (about one in ten) fell under its bound (7 of 80 in a full run)
    sample(200, require_build(provisioned, name))
