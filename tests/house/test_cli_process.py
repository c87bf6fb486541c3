"""tests/cli_process.py runs `nginxgen` as a child forked from a zygote that imported it: what a
test reads from such a run must be what the command started alone gives, and no run may see
what an earlier one left (the zygote runs nothing itself)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_process import nginxgen

TARGET = ("--nginx-version", "1.26.3", "--tls-library", "openssl-3.5")
FILES = {
    "clean.conf": "events {}\nhttp { server { listen 80; } }\n",
    "finding.conf": "events {}\nhttp { server { listen 443 ssl; ssl_protocols TLSv1; } }\n",
    "broken.conf": "events {}\nhttp { server { listen 80 }\n",
}
RUNS = [
    ("lint", "clean.conf", *TARGET),  # exit 0
    ("lint", "finding.conf", "--format", "json", *TARGET),  # a finding, JSON on stdout
    ("lint", "broken.conf", *TARGET),  # a file nginx cannot read: one line, its exit code
    ("lint", "missing.conf", *TARGET),  # exit 2
    ("explain", "NGX401"),
    ("presets",),
    ("--version",),
    ("generate", "--preset", "nothing-by-this-name", "--domain", "a.test", *TARGET),
]


@pytest.mark.parametrize("argv", RUNS, ids=[" ".join(r[:2]) for r in RUNS])
def test_a_forked_run_gives_what_the_command_alone_gives(tmp_path: Path, argv: tuple[str]) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    env = {**os.environ, "NO_COLOR": "1"}
    alone = subprocess.run(
        [sys.executable, "-m", "nginxgen", *argv],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    forked = nginxgen(*argv, cwd=tmp_path, env=env)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    )


def test_each_run_reads_its_own_environment_and_folder(tmp_path: Path) -> None:
    """The machine's nginx is read once per process (knowledge/target.py caches it): a run
    after another with another $NGINXGEN_NGINX must still read its own."""
    for machine in ("a", "b"):
        folder = tmp_path / machine
        folder.mkdir()
        (folder / "nginx.conf").write_text(FILES["clean.conf"])
        env = {**os.environ, "NGINXGEN_NGINX": str(tmp_path / f"no-nginx-{machine}")}
        done = nginxgen("lint", "nginx.conf", cwd=folder, env=env)
        assert done.returncode == 0, done.stderr
        assert f"no-nginx-{machine} is this machine's nginx" in done.stderr, done.stderr
