"""`lint --fix --nginx-bin B` (issue 13): that real `nginx -t` runs before and after the write;
when it passed before and fails after, every file is put back and the exit is 3 with nginx's
message. The failure after is injected by the wrapper (our fixes are meant never to cause
one); the passes are real nginx's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import require_build
from tests.live import nginx_bin_script, prepare_prefix
from tests.pki import CertificateFactory

MAIN = """worker_processes auto;
events {}
http {
    include conf.d/*.conf;
}
"""
SITE = """server {{
    listen 127.0.0.1:8443 ssl http2;   # http2 on the listen: deprecated since 1.25.1
    server_name a.test;
    ssl_certificate {cert};
    ssl_certificate_key {key};
}}
"""
FIXED = "    listen 127.0.0.1:8443 ssl;   # http2 on the listen: deprecated since 1.25.1\n"
INJECT = 'if grep -q "^ *http2 on;" "$NGINXGEN_TREE/conf.d/a.conf"; then\n'
INJECT += '  echo "nginx: [emerg] injected failure" >&2; exit 1\nfi'


@pytest.fixture
def tree(provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path) -> Path:
    build = require_build(provisioned, "trixie")  # nginx 1.26.3: the http2 fix applies
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    conf = tmp_path / "nginx.conf"
    conf.write_text(MAIN)
    prepare_prefix(conf, build)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text(SITE.format(cert=chain.fullchain, key=chain.key))
    return tmp_path


def fix(tree: Path, nginx_bin: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-m", "nginxgen", "lint", "--unsafe-fixes", "--fixable", "NGX302"),
            *("--nginx-bin", str(nginx_bin), str(tree / "nginx.conf")),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"NGINXGEN_TREE": str(tree), "PATH": "/usr/bin:/bin"},
    )


def test_fix_checked_by_nginx_t_is_kept(
    provisioned: tuple[dict[str, Build], dict[str, str]], tree: Path
) -> None:
    build = require_build(provisioned, "trixie")
    done = fix(tree, nginx_bin_script(build, tree, tree / "nginx-bin"))
    assert "nginx -t passes after the change" in done.stderr, done.stderr
    site = (tree / "conf.d" / "a.conf").read_text()
    assert FIXED in site and "    http2 on;\n" in site, site


def test_fix_that_nginx_t_refuses_is_put_back(
    provisioned: tuple[dict[str, Build], dict[str, str]], tree: Path
) -> None:
    build = require_build(provisioned, "trixie")
    before = {p: p.read_bytes() for p in tree.rglob("*.conf")}
    mode = (tree / "conf.d" / "a.conf").stat().st_mode
    done = fix(tree, nginx_bin_script(build, tree, tree / "nginx-bin", before=INJECT))
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "nginxgen: error: nginx -t fails after the change, every file put back: "
        "nginx: [emerg] injected failure"
    )
    assert {p: p.read_bytes() for p in tree.rglob("*.conf")} == before
    assert (tree / "conf.d" / "a.conf").stat().st_mode == mode
    assert sorted(p.name for p in (tree / "conf.d").iterdir()) == ["a.conf"]  # no stray files


def test_tree_nginx_refused_before_is_fixed_and_said_so(
    provisioned: tuple[dict[str, Build], dict[str, str]], tree: Path
) -> None:
    build = require_build(provisioned, "trixie")
    (tree / "conf.d" / "broken.conf").write_text("server { listen 8080; no_such_directive on; }\n")
    done = fix(tree, nginx_bin_script(build, tree, tree / "nginx-bin"))
    assert "nginx -t failed before the change too, so it was not judged" in done.stderr
    assert 'unknown directive "no_such_directive"' in done.stderr, done.stderr
    assert FIXED in (tree / "conf.d" / "a.conf").read_text()


def test_nginx_t_runs_in_the_trees_prefix(
    provisioned: tuple[dict[str, Build], dict[str, str]], tree: Path
) -> None:
    # Issue 44: the binary as installed runs in its compiled-in prefix (/usr/share/nginx), where
    # this tree's relative log and pid are not; the tree's folder is its prefix.
    build = require_build(provisioned, "trixie")
    main = tree / "nginx.conf"
    main.write_text("pid nginx.pid;\n" + main.read_text())
    done = fix(tree, nginx_bin_script(build, None, tree / "nginx-bin"))
    assert "not judged" not in done.stderr, done.stderr
    assert f"nginx -t passes after the change ({main}, -p {tree})" in done.stderr
    assert FIXED in (tree / "conf.d" / "a.conf").read_text()


def test_a_trees_own_pid_line_is_not_tried_over(
    provisioned: tuple[dict[str, Build], dict[str, str]], tree: Path
) -> None:
    """nginx -t names a pid file of its own only where the tree names none: over the tree's,
    nginx refused it (`"pid" directive is duplicate`) into the error log nginx opens before it
    reads the config, the prefix's logs/error.log on a source build, at every check (trial 24:
    two [emerg] lines in a live server's log for each lint --fix)."""
    build = require_build(provisioned, "openssl36")  # its error log: PREFIX/logs/error.log
    main = tree / "nginx.conf"
    main.write_text("pid nginx.pid;\n" + main.read_text())
    (tree / "logs").mkdir(exist_ok=True)
    done = fix(tree, nginx_bin_script(build, None, tree / "nginx-bin"))
    assert f"nginx -t passes after the change ({main}, -p {tree})" in done.stderr, done.stderr
    log = tree / "logs" / "error.log"
    assert "duplicate" not in (log.read_text() if log.exists() else ""), log.read_text()


def test_a_copy_whose_includes_nginx_reads_elsewhere_is_not_judged_by_them(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tree: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A copy of a tree whose main file includes the original by its absolute path (a copy of
    /etc/nginx, read with --map): nginx -t of the copy reads the original's files, so its
    verdict is not of the files fixed here (trial 24: "passes after the change", said of files
    nobody wrote). Not run, and said why; the fix is written."""
    build = require_build(provisioned, "trixie")
    copy = tmp_path_factory.mktemp("copy")
    (copy / "conf.d").mkdir()
    (copy / "conf.d" / "a.conf").write_text((tree / "conf.d" / "a.conf").read_text())
    (copy / "nginx.conf").write_text(MAIN.replace("conf.d/", f"{tree}/conf.d/"))
    prepare_prefix(copy / "nginx.conf", build)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "nginxgen", "lint", "--unsafe-fixes", "--fixable", "NGX302"),
            *("--map", f"{tree}={copy}"),
            *("--nginx-bin", str(nginx_bin_script(build, copy, copy / "nginx-bin"))),
            str(copy / "nginx.conf"),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"NGINXGEN_TREE": str(copy), "PATH": "/usr/bin:/bin"},
    )
    assert "nginx -t passes" not in done.stderr, done.stderr
    assert (
        f"nginxgen: nginx -t not run: {copy / 'nginx.conf'} includes {tree}/conf.d/*.conf, which "
        "nginx reads there, not in this copy; run nginx -t where the tree is installed"
    ) in done.stderr, done.stderr
    assert FIXED in (copy / "conf.d" / "a.conf").read_text()
    assert FIXED not in (tree / "conf.d" / "a.conf").read_text()
