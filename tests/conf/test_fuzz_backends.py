"""nginx as a TLS client, and client certificates, against live nginx (issue 38): a seeded
sample of the random trees of tests/fuzzing/backends.py (which says what must hold), a few on
every build, each in front of a backend nginx of its own build. scripts/fuzz.py backends runs
it for as many trees as asked."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.backends import (
    BackendOutcome,
    BackendPool,
    BackendTree,
    backend_trees,
    check_backends,
)

TREES = 2  # per build


def _sample(build: Build, pool: BackendPool, number: int, trees: int) -> list[BackendOutcome]:
    """`trees` seeded trees on `build`; their outcomes."""
    outcomes: list[BackendOutcome] = []

    @seed(number)
    @settings(max_examples=trees, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(tree=backend_trees())
    def one(tree: BackendTree) -> None:
        with tempfile.TemporaryDirectory() as folder:
            outcomes.append(check_backends(tree, build, pool, Path(folder)))

    one()
    return outcomes


@pytest.mark.fuzz
def test_every_location_and_request_as_the_model_says(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    values: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    wrong: list[tuple[str, object]] = []
    for number, name in enumerate(ALL_BUILD_NAMES):
        build = require_build(provisioned, name)
        with BackendPool(build, tmp_path / name) as pool:
            for outcome in _sample(build, pool, number, TREES):
                kinds[outcome.kind] += 1
                values.update(outcome.values)
                wrong.extend((name, d) for d in outcome.disagreements)
    assert wrong == []
    assert kinds["agreed"] >= len(ALL_BUILD_NAMES), kinds
    # the sample reaches each outcome the oracle tells apart
    for value in ("status=200", "status=502", "kept=True", "kept=False", "resumed=True",
                  "client_status=served", "client_status=misdirected",
                  "client_status=no-certificate", "client_status=certificate-error"):  # fmt: skip
        assert values[value] > 0, (value, values)
