"""The seed's pitfall fixed across files and proven on real nginx (issue 13): nginx.conf includes
conf.d/*.conf; conf.d/a.conf is the default server of the address; conf.d/b.ssl.conf sets
`ssl_ecdh_curve X25519MLKEM768:X25519`, which nginx ignores there. `--unsafe-fixes` puts the
groups where they take effect; a live handshake for b.test then negotiates X25519MLKEM768."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.builds import Build
from tests.conftest import require_build
from tests.live import Server, free_port, nginx_check, prepare_prefix, s_client
from tests.pki import CertificateFactory

MAIN = """worker_processes auto;
events {{}}
http {{
    # shared TLS settings live in the default server's file
    include conf.d/*.conf;
}}
"""
DEFAULT = """# the default server of the address: it decides the groups
server {{
    listen 127.0.0.1:{port} ssl default_server;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    ssl_ecdh_curve X25519:prime256v1;

    return 421;
}}
"""
# b.test's server; {lines} are its own TLS lines (tests/probe/test_probe_scenarios.py fills it too)
VHOST = """server {{
    listen 127.0.0.1:{port} ssl;
    server_name b.test;
    ssl_certificate {cert};
    ssl_certificate_key {key};
{lines}
    location / {{ return 200 "b\\n"; }}
}}
"""
SEED_LINES = "    ssl_ecdh_curve X25519MLKEM768:X25519;   # post-quantum for b.test\n"


def seed_tree(build: Build, tmp_path: Path) -> tuple[Path, int]:
    """The three files of the seed's case in tmp_path, ready for `build`: (nginx.conf, port)."""
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test", sans=("b.test",))
    port = free_port()
    values = {"port": port, "cert": chain.fullchain, "key": chain.key}
    conf = tmp_path / "nginx.conf"
    conf.write_text(MAIN.format())
    prepare_prefix(conf, build)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_text(DEFAULT.format(**values))
    (tmp_path / "conf.d" / "b.ssl.conf").write_text(VHOST.format(**values, lines=SEED_LINES))
    return conf, port


def unsafe_fixes(build: Build, conf: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "nginxgen",
            "lint",
            *build.target_flags,
            "--unsafe-fixes",
            str(conf),
        ],
        capture_output=True,
        text=True,
        check=False,
    )


def test_unsafe_fix_moves_groups_where_they_take_effect(
    provisioned: tuple[dict[str, Build], dict[str, str]], client: Build, tmp_path: Path
) -> None:
    build = require_build(provisioned, "trixie")  # nginx 1.26.3 with OpenSSL 3.5 (ML-KEM)
    conf, port = seed_tree(build, tmp_path)
    before = {p.name: p.read_text() for p in [conf, *sorted((tmp_path / "conf.d").iterdir())]}
    assert nginx_check(build, conf).returncode == 0

    with Server(build, conf, [port]):
        hello = s_client(client, port, "b.test", groups="X25519MLKEM768:X25519")
    assert hello.ok and hello.group == "X25519", hello.output[-1500:]  # the vhost's line ignored

    fixed = unsafe_fixes(build, conf)
    assert "NGX101" not in fixed.stdout, fixed.stdout + fixed.stderr
    after = {p.name: p.read_text() for p in [conf, *sorted((tmp_path / "conf.d").iterdir())]}
    # comments and blank lines of all three files survive; only these lines changed: in
    # nginx.conf the one NGX402 (also unsafe) adds, as the seed has nginx's default ciphers
    added = [line for line in after["nginx.conf"].splitlines() if line not in before["nginx.conf"]]
    assert [line.split()[0] for line in added] == ["ssl_ciphers"], added
    assert after["nginx.conf"].replace(added[0] + "\n", "") == before["nginx.conf"]
    # NGX101 moved the groups into the default server; NGX203 (also unsafe) then made the colon
    # list the OpenSSL 3.5 tuple that enforces ML-KEM
    assert after["a.conf"] == before["a.conf"].replace(
        "ssl_ecdh_curve X25519:prime256v1;", "ssl_ecdh_curve X25519MLKEM768/X25519;"
    )
    assert after["b.ssl.conf"] == before["b.ssl.conf"].replace(
        "    ssl_ecdh_curve X25519MLKEM768:X25519;   # post-quantum for b.test\n", ""
    )
    assert nginx_check(build, conf).returncode == 0

    with Server(build, conf, [port]):
        hello = s_client(client, port, "b.test", groups="X25519MLKEM768:X25519")
    assert hello.ok and hello.group == "X25519MLKEM768", hello.output[-1500:]
