"""nginx.org's security advisories for the release a server runs (issue 27): `lint --nginx-bin`
(an info) and `doctor` name the ones that affect it; a release that fixes them draws none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.knowledge import advisories
from tests.builds import Build
from tests.conftest import require_build
from tests.live import nginx_bin_script

CONFIG = (
    "events {}\nhttp {\n  server { listen 443 ssl default_server; ssl_reject_handshake on; }\n}\n"
)


def lint_with_binary(build: Build, tmp_path: Path) -> str:
    tmp_path.mkdir()
    binary = nginx_bin_script(build, tmp_path, tmp_path / "nginx")
    conf = tmp_path / "nginx.conf"
    conf.write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--nginx-bin", str(binary), "--select",
         "NGX304", "--fail-on", "error", str(conf)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_ranges_and_fixed_branches() -> None:
    by_cve = {a.cve: a for a in advisories.advisories(Version("1.26.3"))}
    assert "CVE-2026-42533" in by_cve  # 0.9.6-1.31.2, fixed in 1.31.3 and 1.30.4
    assert "CVE-2026-42533" not in {a.cve for a in advisories.advisories(Version("1.30.4"))}
    assert "CVE-2026-42533" in {a.cve for a in advisories.advisories(Version("1.30.3"))}
    assert advisories.advisories(Version("1.31.4")) == []
    # CVE-2021-23017 (resolver, 0.6.18-1.20.0): fixed in 1.21.0 and 1.20.1
    assert "CVE-2021-23017" in {a.cve for a in advisories.advisories(Version("1.20.0"))}
    assert "CVE-2021-23017" not in {a.cve for a in advisories.advisories(Version("1.20.1"))}


def test_lint_names_them_for_the_binarys_release(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    old = lint_with_binary(require_build(provisioned, "trixie"), tmp_path / "old")
    assert "NGX304 info nginx 1.26.3 is affected by" in old and "CVE-2026-42533 (major)" in old
    new = lint_with_binary(require_build(provisioned, "wheel"), tmp_path / "new")
    assert "NGX304" not in new  # nginx 1.31.3 fixes every advisory listed


def test_a_version_given_by_hand_draws_none(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--nginx-version", "1.22.1", "--tls-library",
         "openssl-3.0", "--select", "NGX304", str(conf)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "NGX304" not in done.stdout  # Debian's 1.22.1 carries the fixes: not exact


def test_doctor_names_them(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    binary = nginx_bin_script(require_build(provisioned, "trixie"), tmp_path, tmp_path / "nginx")
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "doctor", "--nginx-bin", str(binary)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    line = next(x for x in done.stdout.splitlines() if x.startswith("security advisories"))
    assert "CVE-2026-42533" in line, done.stdout + done.stderr


@pytest.mark.parametrize("release", ["1.22.1", "1.26.3", "1.28.0", "1.31.1"])
def test_the_upgrade_named_fixes_every_advisory(release: str) -> None:
    """NGX304 names releases no advisory affects (it named 1.31.2, which fixes some but not
    CVE-2026-42533: found trying Debian's nginx as a new user), one per release line."""
    from nginxgen.lint.rules.ngx304_security_advisories import _fixing_all

    found = advisories.advisories(Version(release))
    assert found
    named = _fixing_all(found)
    assert named and len({tuple(Version(v).parts[:2]) for v in named}) == len(named)
    for version in named:
        assert advisories.advisories(Version(version)) == [], version
