"""The model against live nginx (issue 25): random multi-server trees served by each of the five
builds and probed per name with `probe --config` (tests/fuzzing/live.py says what must hold).
scripts/fuzz.py live runs it for as many trees as asked."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.live import LiveTree, check_live, live_trees

TREES = int(os.environ.get("NGINXGEN_LIVE_TREES", "12"))  # per build: 60 in all


@pytest.mark.parametrize("name", [*BUILD_NAMES, *SOURCE_BUILD_NAMES])
def test_a_server_just_started_runs_its_config(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str
) -> None:
    build = require_build(provisioned, name)
    outcomes: Counter[str] = Counter()

    @settings(max_examples=TREES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(tree=live_trees())
    def one(tree: LiveTree) -> None:
        with tempfile.TemporaryDirectory() as folder:
            outcomes[check_live(tree, build, Path(folder)).kind] += 1

    one()
    assert outcomes["agreed"] >= TREES // 2, outcomes
