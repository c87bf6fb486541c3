"""The markers of pyproject.toml in a pytest run of their own, with tests/conftest.py as its
plugin: asking for a build marks a test live, a hypothesis test is fuzz, and a test that reaches
a real part without the mark fails (tests/real_parts.py), so `pytest -m "not live"` provably
needs no real part."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO

TESTS = """
import pytest
from hypothesis import given, strategies as st

from tests.builds import load_builds
from tests.browser import chromium_binary
from tests.helpers import require_program


def test_unmarked_reaches_the_builds():
    load_builds()


def test_unmarked_reaches_a_program():
    require_program("sh", "a shell")


@pytest.mark.live
def test_marked_reaches_the_builds():
    load_builds()


def test_asks_for_a_build(provisioned):
    pass


@pytest.mark.live
def test_live_is_not_enough_for_chromium():
    chromium_binary()


@pytest.mark.browser
def test_browser_is_live_too():
    load_builds()


def test_unmarked_again_after_a_marked_one():
    load_builds()


@given(st.integers())
def test_a_property(number):
    pass


def test_runs_a_property_inside():
    @given(st.integers())
    def one(number):
        pass

    one()


def test_quick():
    pass
"""


def run_pytest(folder: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NGINXGEN_BUILDS": str(folder / "no-builds")}
    env.pop("CI", None)  # a missing part skips here: the test is about the marks, not CI
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
         "-q", "-rA", "-W", "ignore::pytest.PytestUnknownMarkWarning", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.stdout


def test_the_marks_select_and_an_unmarked_real_part_fails(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(TESTS)
    quick = run_pytest(tmp_path, "--collect-only", "-m", "not live and not fuzz")
    assert sorted(line.split("::")[1] for line in quick.splitlines() if "::" in line) == [
        "test_quick",
        "test_unmarked_again_after_a_marked_one",
        "test_unmarked_reaches_a_program",
        "test_unmarked_reaches_the_builds",
    ], quick
    out = run_pytest(tmp_path)
    outcomes = {
        line.split("::")[1].split()[0]: line.split()[0]
        for line in out.splitlines()
        if line.startswith(("PASSED", "FAILED", "SKIPPED", "ERROR")) and "::" in line
    }
    assert outcomes == {
        "test_unmarked_reaches_the_builds": "FAILED",
        "test_unmarked_reaches_a_program": "FAILED",
        "test_marked_reaches_the_builds": "PASSED",
        "test_asks_for_a_build": "PASSED",
        "test_live_is_not_enough_for_chromium": "FAILED",
        "test_browser_is_live_too": "PASSED",
        "test_unmarked_again_after_a_marked_one": "FAILED",
        "test_a_property": "PASSED",
        "test_runs_a_property_inside": "PASSED",
        "test_quick": "PASSED",
    }, out
    assert "test_unmarked_reaches_the_builds reaches the nginx builds but is not marked live" in out
    assert "reaches the program chromium but is not marked browser" in out
