"""The pre-commit hook, run by the real `pre-commit` tool against this repository
(`pre-commit try-repo`, which installs nginxgen from the repository into its own environment)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import IN_CI

REPO = Path(__file__).resolve().parent.parent
# pre-commit keeps the environment it builds; reusing it keeps reruns fast.
HOME = REPO / ".cache" / "pre-commit"
GOOD = (
    "events {}\nhttp {\n ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:S:1m;\n"
    " server { listen 443 ssl default_server; ssl_reject_handshake on; }\n}\n"
)
BAD = GOOD.replace(
    "ssl_reject_handshake on; }",
    "ssl_reject_handshake on; }\n server { listen 443 ssl; server_name b.example;"
    " ssl_certificate c; ssl_certificate_key k; ssl_ecdh_curve X25519; }",
)


def pre_commit(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("pre-commit")
    if not exe.exists():
        if IN_CI:
            pytest.fail("pre-commit is not installed (pip install '.[test]')")
        pytest.skip("pre-commit is not installed")
    env = dict(os.environ, PRE_COMMIT_HOME=str(HOME), PRE_COMMIT_COLOR="never")
    return subprocess.run(
        [str(exe), *args], cwd=folder, capture_output=True, text=True, env=env, timeout=600
    )


def test_hook_passes_a_clean_file_and_fails_on_a_pitfall(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.fail("the pre-commit test needs git and this repository's .git")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "good.conf").write_text(GOOD)
    (project / "bad.conf").write_text(BAD)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    # try-repo installs the working tree (uncommitted changes included) with the hook's defaults.
    hook = ("try-repo", str(REPO), "nginxgen-lint", "--verbose")
    good = pre_commit(project, *hook, "--files", "good.conf")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
    bad = pre_commit(project, *hook, "--files", "bad.conf")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "bad.conf:5: NGX101" in bad.stdout
