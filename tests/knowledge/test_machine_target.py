"""The target comes from the machine (issue 44): with no target given, nginxgen reads the `nginx`
this machine has (PATH, then the usual places) and says so on stderr in every mode; with none,
the assumption is stated and a fix that is right only for some releases or libraries is not
applied as safe. The README's quick start, exactly as written, passes `nginx -t` of Debian 12's
and Debian 13's nginx when that build is the machine's `nginx`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.knowledge import target as target_module
from tests.builds import Build
from tests.helpers import CertPair, require_program
from tests.live import nginx_bin_script, nginx_check, prepare_prefix
from tests.paths import REPO


def machine_env(bin_folder: Path | None) -> dict[str, str]:
    """The environment of a user whose PATH holds `bin_folder` (with an `nginx` in it, or none),
    with the tests' NGINXGEN_NGINX=none taken away so that the lookup runs as for a user."""
    env = {k: v for k, v in os.environ.items() if k != target_module.MACHINE_VARIABLE}
    path = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not _has_nginx(p))
    env["PATH"] = f"{bin_folder}{os.pathsep}{path}" if bin_folder else path
    return env


def _has_nginx(folder: str) -> bool:
    return bool(folder) and os.access(os.path.join(folder, "nginx"), os.X_OK)


def machine_nginx(build: Build, tmp: Path) -> Path:
    """A folder with this build as the machine's `nginx` (a wrapper named nginx)."""
    folder = tmp / "bin"
    folder.mkdir(exist_ok=True)
    nginx_bin_script(build, tmp, folder / "nginx")
    return folder


def no_usual_nginx() -> None:
    """The assumed-target cases need a machine without nginx in the usual places."""
    present = [p for p in target_module.USUAL_PLACES if os.path.exists(p)]
    if present:
        pytest.skip(f"this machine has {present[0]}: its nginx would be read")


def nginxgen(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_the_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "nginx"
    fake.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv(target_module.MACHINE_VARIABLE, "none")
    assert target_module.machine_nginx() is None
    monkeypatch.setenv(target_module.MACHINE_VARIABLE, "/opt/nginx")
    assert target_module.machine_nginx() == "/opt/nginx"
    monkeypatch.delenv(target_module.MACHINE_VARIABLE)
    fake.chmod(0o644)  # not executable: not an nginx to run
    assert target_module.machine_nginx() != str(fake)
    fake.chmod(0o755)
    assert target_module.machine_nginx() == str(fake)


SITE = """\
events {{}}
http {{
    server {{
        listen {port} ssl http2;
        server_name example.com;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;
        return 200;
    }}
}}
"""


def site(folder: Path, pair: CertPair) -> Path:
    conf = folder / "nginx.conf"
    conf.write_text(SITE.format(port=8443, cert=pair.cert, key=pair.key))
    return conf


@pytest.mark.parametrize("build", ["bookworm"], indirect=True)
@pytest.mark.parametrize("mode", ["text", "json", "sarif", "diff"])
def test_lint_reads_the_machines_nginx_and_says_so(
    build: Build, tmp_path: Path, ecdsa_pair: CertPair, mode: str
) -> None:
    site(tmp_path, ecdsa_pair)
    env = machine_env(machine_nginx(build, tmp_path))
    args = ["--diff"] if mode == "diff" else ["--format", mode]
    done = nginxgen("lint", *args, "nginx.conf", env=env, cwd=tmp_path)
    said = f"target: nginx 1.22.1 with OpenSSL {build.tls_library.split('-')[1]}"
    assert said in done.stderr and f"read from {tmp_path / 'bin' / 'nginx'} -V" in done.stderr
    assert "Traceback" not in done.stderr
    if mode == "json":
        report = json.loads(done.stdout)
        assert report["target"]["nginx"] == "1.22.1"
        # 1.22.1 has no `http2` directive: the listen parameter is how it is spelt there
        assert "NGX302" not in {f["code"] for f in report["findings"]}
    if mode == "diff":
        assert "http2 on;" not in done.stdout


@pytest.mark.parametrize("build", ["bookworm"], indirect=True)
@pytest.mark.parametrize("machine", ["none", "debian 12"])
def test_fix_with_no_target_never_breaks_debian_12(
    build: Build, tmp_path: Path, ecdsa_pair: CertPair, machine: str
) -> None:
    """The issue's repro: `lint --fix --diff nginx.conf | patch -p0`, then Debian 12's
    `nginx -t`. With no target given, either the machine's nginx is read (1.22.1: no
    `http2 on;` to write) or the target is assumed and `http2 on;` is not a safe fix."""
    require_program("patch", "the issue's repro pipes the diff to it")
    if machine == "none":
        no_usual_nginx()
    conf = site(tmp_path, ecdsa_pair)
    prepare_prefix(conf, build)
    assert nginx_check(build, conf).returncode == 0  # a tree nginx accepts before
    env = machine_env(machine_nginx(build, tmp_path) if machine != "none" else None)
    shown = nginxgen("lint", "--fix", "--diff", "nginx.conf", env=env, cwd=tmp_path)
    assert shown.returncode in (0, 1), shown.stderr
    if machine == "none":
        assert "assumed" in shown.stderr and "unsafe while the target is assumed" in shown.stderr
    patched = subprocess.run(
        ["patch", "-p0"], input=shown.stdout, cwd=tmp_path, capture_output=True, text=True
    )
    assert patched.returncode == 0, patched.stdout + patched.stderr
    checked = nginx_check(build, conf)
    assert checked.returncode == 0, checked.stderr
    # the same fix is applied as safe once the target is said (it is right on 1.26.3)
    said = nginxgen(
        "lint", "--fix", "--diff", "--nginx-version", "1.26.3", "nginx.conf", env=env, cwd=tmp_path
    )
    assert "+    http2 on;" in said.stdout or "+        http2 on;" in said.stdout, said.stdout


def quick_start() -> str:
    """The README's first command, exactly as written."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    match = re.search(r"```sh\n(.+?)\n```", section, re.DOTALL)
    assert match, "the README's quick start has no ```sh block"
    return match[1]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files as a fresh clone has them (git ls-files), nothing else."""
    folder = tmp_path_factory.mktemp("clone") / "nginxgen"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in (n.decode() for n in listed if n):
        source = REPO / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
def test_the_quick_start_passes_nginx_t_of_debian(build: Build, checkout: Path) -> None:
    """On a fresh Debian 12 or 13 with its nginx: the quick start as written, then `nginx -t`
    of that nginx on the files it wrote (test-prefix process settings only, as every live test
    prepares a generated nginx.conf; every TLS and site line as generated)."""
    shutil.rmtree(checkout / "out", ignore_errors=True)  # the other build's run
    env = machine_env(machine_nginx(build, checkout.parent))
    done = subprocess.run(
        ["bash", "-c", quick_start()],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"nginx {build.nginx_version} with" in done.stderr  # read from the machine's nginx
    conf = checkout / "out" / "nginx.conf"
    prepare_prefix(conf, build)
    tls = checkout / "out" / "tls.conf"
    tls.write_text(tls.read_text().replace("/var/log/nginx/", f"{checkout / 'out'}/"))
    checked = nginx_check(build, conf)
    assert checked.returncode == 0, checked.stderr


def test_a_repository_pins_its_target_for_every_command(
    tmp_path: Path, ecdsa_pair: CertPair
) -> None:
    """.nginxgen.toml's target wins over the machine's nginx for generate as for lint (configs
    kept for other machines); a bad value names the settings file's line."""
    (tmp_path / ".nginxgen.toml").write_text(
        'nginx-version = "1.22.1"\ntls-library = "openssl-3.0"\n'
    )
    env = {**os.environ, target_module.MACHINE_VARIABLE: sys.executable}  # not an nginx: unread
    args = ("--preset", "intermediate", "--domain", "example.com")
    keys = ("--cert", str(ecdsa_pair.cert), "--key", str(ecdsa_pair.key))
    done = nginxgen("generate", *args, *keys, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "target: nginx 1.22.1 with OpenSSL 3.0" in done.stderr
    assert "listen 443 ssl http2;" in done.stdout and "http2 on;" not in done.stdout
    (tmp_path / "nginx.conf").write_text("events {}\n")
    linted = nginxgen("lint", "--format", "json", "nginx.conf", env=env, cwd=tmp_path)
    assert json.loads(linted.stdout)["target"]["nginx"] == "1.22.1"
    (tmp_path / ".nginxgen.toml").write_text('nginx-version = "1.2"\n')
    bad = nginxgen("generate", *args, *keys, env=env, cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert (
        f"{tmp_path / '.nginxgen.toml'}:1: nginx-version: nginx 1.2 is not a release" in bad.stderr
    )


def test_the_machines_nginx_is_read_once_until_it_changes(tmp_path: Path) -> None:
    """pre-commit lints on every commit: `nginx -V` runs once, and again only when the binary
    is another file (an upgrade). A stand-in binary counts its runs."""
    folder = tmp_path / "bin"
    folder.mkdir()
    runs = tmp_path / "runs"
    fake = folder / "nginx"
    banner = (
        "nginx version: nginx/{v}\\nbuilt with OpenSSL 3.0.22 1 Jan 2026\\nconfigure arguments:\\n"
    )
    script = '#!/bin/sh\necho run >> {runs}\nprintf "{banner}" >&2\n'

    def install(version: str) -> None:
        fake.write_text(script.format(runs=runs, banner=banner.format(v=version)))
        fake.chmod(0o755)

    env = machine_env(folder)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    install("1.22.1")
    (tmp_path / "nginx.conf").write_text("events {}\n")
    for _ in range(2):
        done = nginxgen("lint", "--format", "json", "nginx.conf", env=env, cwd=tmp_path)
        assert json.loads(done.stdout)["target"]["nginx"] == "1.22.1", done.stderr
    assert runs.read_text().count("run") == 1
    install("1.26.3")  # an upgrade: another file
    done = nginxgen("lint", "--format", "json", "nginx.conf", env=env, cwd=tmp_path)
    assert json.loads(done.stdout)["target"]["nginx"] == "1.26.3"
    assert runs.read_text().count("run") == 2
