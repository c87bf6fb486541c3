"""The pre-commit hook, run by the real `pre-commit` tool against this repository: a
`.pre-commit-config.yaml` names a snapshot of the working tree (uncommitted changes included, as
`pre-commit try-repo` takes them), and pre-commit installs nginxgen from it into its own
environment, once for the session (try-repo built a new one in a new store at each call, about
15 s of CPU each)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import missing_real_part
from tests.paths import REPO
from tests.real_parts import reach

HOOK = "nginxgen-lint"
# Mozilla's intermediate guideline (5.7/6.0 values: protocols, suites, groups, session and
# stapling settings) as a site would write it: it must pass the hook (issue 12: NGX405, an info,
# used to fail it).
MOZILLA_INTERMEDIATE = """events {}
http {
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ecdh_curve X25519:prime256v1:secp384r1;
    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305;
    ssl_prefer_server_ciphers off;
    ssl_session_timeout 1d;
    ssl_session_cache shared:MozSSL:10m;
    ssl_dhparam /etc/nginx/ffdhe2048.pem;
    ssl_stapling on;
    ssl_stapling_verify on;
    ssl_trusted_certificate /etc/ssl/example.com/chain.pem;
    resolver 127.0.0.1;

    server {
        listen 80 default_server;
        return 301 https://$host$request_uri;
    }
    server {
        listen 443 ssl;
        http2 on;
        server_name example.com;
        ssl_certificate /etc/ssl/example.com/fullchain.pem;
        ssl_certificate_key /etc/ssl/example.com/key.pem;
        add_header Strict-Transport-Security "max-age=63072000" always;
    }
}
"""
GOOD = (
    "events {}\nhttp {\n ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:S:1m;\n"
    " server { listen 443 ssl default_server; ssl_reject_handshake on; }\n}\n"
)
# The seed's pitfall: groups set in a vhost that is not the default server.
BAD = GOOD.replace(
    "ssl_reject_handshake on; }",
    "ssl_reject_handshake on; }\n server { listen 443 ssl; server_name b.example;"
    " ssl_certificate c; ssl_certificate_key k; ssl_ecdh_curve X25519; }",
)


@pytest.fixture(scope="module")
def hook_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A .pre-commit-config.yaml whose repository is this working tree as it is now: its
    tracked and unignored files, committed into a new repository (what try-repo does)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.fail("the pre-commit test needs git and this repository's .git")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():  # a file deleted but not yet staged is listed too
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=snapshot, check=True)
    subprocess.run(["git", "add", "-A"], cwd=snapshot, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "snapshot"], cwd=snapshot, check=True)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=snapshot, capture_output=True, text=True, check=True
    ).stdout.strip()
    config = snapshot.parent / "hook-config.yaml"
    config.write_text(
        f"repos:\n-   repo: {snapshot}\n    rev: {rev}\n    hooks:\n    -   id: {HOOK}\n"
    )
    return config


def run_hook(folder: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the store beside the snapshot: the environment pre-commit builds for it serves the session
    store = config.parent / "pre-commit-home"
    return pre_commit(folder, "run", HOOK, "--config", str(config), "--verbose", *args, home=store)


def pre_commit(
    folder: Path, *args: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    reach("pre-commit")
    exe = Path(sys.executable).with_name("pre-commit")
    if not exe.exists():
        missing_real_part("pre-commit is not installed (pip install '.[test]')")
    env = dict(
        os.environ,
        PRE_COMMIT_HOME=str(home or folder / ".pre-commit-home"),
        PRE_COMMIT_COLOR="never",
    )
    return subprocess.run(
        [str(exe), *args], cwd=folder, capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.live
def test_hook_passes_a_clean_file_and_fails_on_a_pitfall(tmp_path: Path, hook_config: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "good.conf").write_text(GOOD)
    (project / "mozilla.conf").write_text(MOZILLA_INTERMEDIATE)
    (project / "bad.conf").write_text(BAD)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    # the working tree's hook (uncommitted changes included) with the hook's defaults
    good = run_hook(project, hook_config, "--files", "good.conf")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
    mozilla = run_hook(project, hook_config, "--files", "mozilla.conf")
    assert mozilla.returncode == 0, mozilla.stdout + mozilla.stderr
    bad = run_hook(project, hook_config, "--files", "bad.conf")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "bad.conf:5: NGX101" in bad.stdout


@pytest.mark.live
def test_hook_sees_nginx_configs_without_conf(tmp_path: Path, hook_config: Path) -> None:
    """Debian's vhosts have no .conf (issue 44): with --all-files the hook's own `files` pattern
    decides, and it must take sites-available/app, conf.d/*, *.nginx and nginx.conf, and leave
    other files alone."""
    project = tmp_path / "project"
    for folder in ("sites-available", "conf.d", "docs"):
        (project / folder).mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "sites-available" / "app").write_text(BAD)
    (project / "conf.d" / "shop").write_text(BAD)
    (project / "api.nginx").write_text(BAD)
    (project / "docs" / "notes.txt").write_text(BAD)  # not a config: never linted
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    run = run_hook(project, hook_config, "--all-files")
    assert run.returncode == 1, run.stdout + run.stderr
    for name in ("sites-available/app", "conf.d/shop", "api.nginx"):
        assert f"{name}:5: NGX101" in run.stdout, run.stdout
    assert "notes.txt" not in run.stdout


@pytest.mark.live
def test_the_readme_config_is_one_pre_commit_takes(tmp_path: Path) -> None:
    """The README's .pre-commit-config.yaml block validates, and its rev is not a tag this
    repository lacks (it had `rev: v0.1.0`, which no tag named)."""
    import re

    readme = (REPO / "README.md").read_text()
    block = re.search(r"```yaml\n(repos:.+?)```", readme, re.S)
    assert block, "the README shows a .pre-commit-config.yaml"
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(block[1])
    checked = pre_commit(tmp_path, "validate-config", str(config))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rev = re.search(r"rev:\s*(\S+)", block[1])
    assert rev
    tags = subprocess.run(
        ["git", "tag", "--list"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    branches = subprocess.run(
        ["git", "branch", "--list", "--format=%(refname:short)"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert rev[1] in tags + branches, f"rev {rev[1]} names no tag or branch here"
