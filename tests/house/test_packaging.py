"""`pip install .` (not editable) gives a working `nginxgen generate` from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import make_cert, missing_real_part
from tests.paths import REPO

ROOT = REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        missing_real_part(
            f"cannot build a wheel here: {result.stderr.strip()[-200:]}",
            f"building the wheel failed: {result.stderr}",
        )
    (path,) = out.glob("nginxgen-*.whl")
    return path


@pytest.mark.live
def test_wheel_ships_templates_and_presets(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    templates = {Path(n).name for n in names if n.startswith("nginxgen/templates/")}
    presets = {Path(n).name for n in names if n.startswith("nginxgen/presets/")}
    assert {p.name for p in (ROOT / "templates").iterdir()} == templates
    assert {p.name for p in (ROOT / "presets").iterdir()} == presets
    assert any(n.startswith("nginxgen/knowledge/") and n.endswith(".toml") for n in names)


@pytest.mark.live
def test_installed_wheel_generates_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    pair = make_cert(elsewhere, "example.com")
    env = {**os.environ, "PYTHONPATH": str(site)}
    args = ["generate", "--preset", "intermediate", "--domain", "example.com", "--out", "out"]
    args += ["--cert", pair.cert.name, "--key", pair.key.name]
    result = subprocess.run(
        [sys.executable, "-m", "nginxgen", *args],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (elsewhere / "out" / "tls.conf").is_file()
    probe = subprocess.run(
        [sys.executable, "-c", "import nginxgen, sys; print(nginxgen.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.startswith(str(site))  # the installed copy ran, not the checkout
