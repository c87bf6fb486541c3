"""A newcomer's trees (issue 35): each stock tree copied to a temporary folder as it ships, its
absolute includes left as they are (`include /etc/nginx/conf.d/*.conf;`), on a machine whose
own /etc/nginx holds the same tree. lint, `generate --into`, `lint --unsafe-fixes` and
`probe --config` run there, watched (tests/watch.py): nothing is written outside the folder
given, nothing of the host's /etc/nginx, /etc/letsencrypt or /var/log/nginx is read, and the
copy's own files are the ones read (the run says it reads /etc/nginx from the copy)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import require_build
from tests.live import free_port
from tests.pki import CertificateFactory
from tests.stock_trees import TREES
from tests.watch import WATCHED, host_changes, run_watched

SHIPPED = {name: ships_with or "trixie" for name, (ships_with, _) in TREES.items()}


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A real TLS server on loopback for `probe --config` to ask (openssl s_server)."""
    folder = tmp_path_factory.mktemp("server")
    chain = CertificateFactory(folder / "ca").leaf("newcomer.test")
    port = free_port()
    process = subprocess.Popen(
        ["openssl", "s_server", "-quiet", "-accept", str(port), "-cert", str(chain.fullchain),
         "-key", str(chain.key), "-www"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def shipped_copy(name: str, build: Build, dest: Path) -> Path:
    """The stock tree as it ships (TREES' copy, without stock_tree's rewrite of its paths)."""
    _, copy = TREES[name]
    copy(build, dest)
    return dest / "nginx.conf"


@pytest.mark.parametrize("name", sorted(TREES))
def test_a_copied_tree_is_read_and_written_where_it_lies(
    name: str,
    tmp_path: Path,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tls_server: int,
) -> None:
    build = require_build(provisioned, SHIPPED[name])
    host = tmp_path / "host"  # what the machine's /etc/nginx holds: the same tree
    shipped_copy(name, build, host)
    folder = tmp_path / "work" / "nginx"
    main = shipped_copy(name, build, folder)
    chain = CertificateFactory(tmp_path / "ca").leaf("newcomer.test")
    target = build.target_flags
    runs = run_watched(
        [
            ["lint", str(main), *target],
            ["generate", "--preset", "intermediate", "--domain", "newcomer.test",
             "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(folder),
             *target],
            ["lint", str(main), "--unsafe-fixes", *target],
            ["probe", f"127.0.0.1:{tls_server}", "--sni", "newcomer.test", "--config", str(main),
             "--timeout", "3", *target],
        ],
        tmp_path / "watch",
        cwd=tmp_path,
        host_tree=host,
    )  # fmt: skip
    lint, into, fix, probe = runs
    assert lint.returncode in (0, 1), lint.stderr
    assert into.returncode == 0, into.stderr
    assert fix.returncode in (0, 1), fix.stderr
    assert probe.returncode in (0, 1), probe.stderr
    for run in runs:
        # nothing written outside the folder given (TMPDIR is the watch's own scratch folder)
        assert run.writes_outside(folder, tmp_path / "watch" / "tmp", Path("/dev")) == [], run.argv
        # nothing of the host's nginx files read, said or not: the copy stands for them
        for root in WATCHED:
            assert run.reads_under(root) == [], (run.argv, root)
        assert run.silent_reads() == []
    assert host_changes(tmp_path / "watch", host) == []
    # the copy's own files were read, and the new site went into the copy
    assert str(folder / "nginx.conf") in {a.path for a in lint.accesses if a.ok}
    written = [a.path for a in into.accesses if a.writes and a.ok]
    assert any(p.startswith(str(folder) + "/") and "newcomer.test" in p for p in written)
    absolute = [line for line in main.read_text().splitlines() if "include /" in line]
    if absolute:  # the run says where it read the tree's absolute folders from
        assert f"from {folder}" in lint.stderr, lint.stderr
        assert f"from {folder}" in into.stderr, into.stderr


def test_a_file_read_outside_the_tree_is_named(
    tmp_path: Path, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    """certbot's include stays a read of the host's /etc/letsencrypt: allowed, and said."""
    folder = tmp_path / "nginx"
    folder.mkdir()
    (folder / "nginx.conf").write_text(
        "events {}\nhttp {\n    server {\n        listen 443 ssl;\n"
        "        include /etc/letsencrypt/options-ssl-nginx.conf;\n    }\n}\n"
    )
    certbot = tmp_path / "letsencrypt"
    certbot.mkdir()
    options = "ssl_session_cache shared:le_nginx_SSL:10m;\nssl_protocols TLSv1.2 TLSv1.3;\n"
    (certbot / "options-ssl-nginx.conf").write_text(options)
    [run] = run_watched(
        [["lint", str(folder / "nginx.conf"), "--nginx-version", "1.26.3",
          "--tls-library", "openssl-3.5"]],
        tmp_path / "watch",
        cwd=tmp_path,
        setup=[f"cp {certbot}/options-ssl-nginx.conf /etc/letsencrypt/"],
    )  # fmt: skip
    assert run.reads_under("/etc/letsencrypt") == ["/etc/letsencrypt/options-ssl-nginx.conf"]
    assert run.silent_reads() == []
    assert f"read 1 file outside {folder}: /etc/letsencrypt/options-ssl-nginx.conf" in run.stderr


def test_the_nginx_t_of_into_makes_no_pid_file_outside(
    tmp_path: Path, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    """Trial 10: `generate --into --nginx-bin` on a tree that names no pid ran nginx -t, which
    creates the binary's compiled-in pid file (/run/nginx.pid) to see that it can. Its test now
    names a pid file in a folder of its own, removed after."""
    from tests.live import nginx_bin_script

    build = require_build(provisioned, "trixie")
    folder = tmp_path / "work" / "nginx"
    folder.mkdir(parents=True)
    main = folder / "nginx.conf"
    main.write_text(
        f"events {{}}\nhttp {{\n    {' '.join(build.in_prefix)}\n"
        "    server { listen 127.0.0.1:8080; return 204; }\n}\n"
    )
    (folder / "temp").mkdir()
    nginx_bin = nginx_bin_script(build, folder, tmp_path / "nginx-bin")
    chain = CertificateFactory(tmp_path / "ca").leaf("newcomer.test")
    (into,) = run_watched(
        [["generate", "--preset", "intermediate", "--domain", "newcomer.test",
          "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(folder),
          "--nginx-bin", str(nginx_bin)]],
        tmp_path / "watch",
        cwd=tmp_path,
    )  # fmt: skip
    assert into.returncode == 0, into.stderr
    pid_files = [a.path for a in into.accesses if a.writes and a.path.endswith(".pid")]
    assert pid_files and all("/nginxgen-t-" in p for p in pid_files), pid_files
