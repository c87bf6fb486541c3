"""Fuzzing the generator (issue 7): random models for assorted targets are refused or render
into configs that re-parse to the plan, lint clean, and pass nginx -t on each real build."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import GeneratorCase, check_generate
from tests.fuzzing.models import generator_case

CASES = int(os.environ.get("NGINXGEN_FUZZ_CASES", "1000"))
FUZZ = settings(
    max_examples=CASES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(case=generator_case())
def test_generator_refuses_or_renders_lint_clean(case: GeneratorCase) -> None:
    check_generate(case)


@pytest.mark.parametrize("name", BUILD_NAMES)
def test_generated_configs_pass_nginx_t(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    build = require_build(provisioned, name)

    @settings(FUZZ, max_examples=max(CASES // 5, 20))
    @given(case=generator_case())
    def one(case: GeneratorCase) -> None:
        check_generate(case, build)

    one()
