"""One address:port in http{} and stream{} against real nginx (trial 8, YunoHost's TLS
passthrough: `generate --into` put an http server on the stream's port; nginx -t passed, nginx
did not start). NGX020 says so at the stream listen; --into refuses such a listen. Likewise
IPv4's wildcard of a port beside `[::]:PORT ipv6only=off` (trial 18): NGX028, and --into."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import free_port, lint_as, nginx_argv, nginx_check


@pytest.mark.parametrize("same", [True, False], ids=["one port", "two ports"])
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_one_address_in_http_and_stream(
    name: str, same: bool, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    stream_port, backend = free_port(), free_port()
    http_port = stream_port if same else free_port()
    conf = tree / "nginx.conf"
    conf.write_text(
        f"{build.load_module('stream')}events {{}}\n"
        f"stream {{\n    server {{ listen 127.0.0.1:{stream_port}; "
        f"proxy_pass 127.0.0.1:{backend}; }}\n}}\n"
        f"http {{ {' '.join(build.in_prefix)}\n"
        f"    server {{ listen 127.0.0.1:{http_port}; return 204; }}\n}}\n"
    )
    assert "test is successful" in nginx_check(build, conf).stderr
    pid = f"pid {tree}/nginx.pid;"
    started = subprocess.run(
        nginx_argv(build, conf, "-g", pid), capture_output=True, text=True, timeout=60,
        check=False, env=build.env(),
    )  # fmt: skip
    try:
        bound = started.returncode == 0
        assert bound != same, started.stderr
        if same:
            assert "Address already in use" in started.stderr, started.stderr
    finally:
        if (tree / "nginx.pid").exists():
            subprocess.run(nginx_argv(build, conf, "-g", pid, "-s", "stop"), env=build.env(),
                           capture_output=True, timeout=60, check=False)  # fmt: skip
    found = lint_as(nginx_bin, conf, "NGX020")
    lines = [line for line in found.stdout.splitlines() if " NGX020 " in line]
    if not same:
        assert lines == [], lines
        return
    assert len(lines) == 1 and lines[0].startswith(f"{conf}:4: NGX020 error 127.0.0.1:"), lines


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_a_dual_stack_listen_and_ipv4s_wildcard(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Trial 18 (za3k's default server has `listen [::]:443 ssl ipv6only=off;`): that socket
    answers IPv4 too, so a second one on `*:443` cannot bind, though nginx -t passes. --into
    wrote such a default server and site (`listen 443 ssl;`, "no server listened there"): it now
    refuses with the defaults, and with `--listen '[::]:PORT'` writes a tree that starts."""
    from tests.into.test_generate_into import nginxgen, snapshot
    from tests.pki import CertificateFactory

    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    port = free_port()
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    conf = tree / "nginx.conf"
    pid = f"pid {tree}/nginx.pid;"

    def starts(text: str) -> subprocess.CompletedProcess[str]:
        conf.write_text(text)
        started = subprocess.run(
            nginx_argv(build, conf, "-g", pid), capture_output=True, text=True, timeout=60,
            check=False, env=build.env(),
        )  # fmt: skip
        if (tree / "nginx.pid").exists():
            subprocess.run(nginx_argv(build, conf, "-g", pid, "-s", "stop"), env=build.env(),
                           capture_output=True, timeout=60, check=False)  # fmt: skip
            for _ in range(50):  # the master leaves its pid file last
                if not (tree / "nginx.pid").exists():
                    break
                time.sleep(0.1)
        return started

    dual = (
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n    server {{\n"
        f"        listen [::]:{port} ssl ipv6only=off;\n        server_name a.test;\n"
        f"        ssl_certificate {chain.fullchain};\n        ssl_certificate_key {chain.key};\n"
        "        return 204;\n    }\n}\n"
    )
    clash = dual.replace("    server {\n", f"    server {{ listen {port}; return 204; }}\n"
                         "    server {\n", 1)  # fmt: skip
    conf.write_text(clash)
    assert "test is successful" in nginx_check(build, conf).stderr
    refused = starts(clash)
    assert refused.returncode != 0 and "Address already in use" in refused.stderr, refused.stderr
    said = [
        line
        for line in lint_as(nginx_bin, conf, "NGX028").stdout.splitlines()
        if " NGX028 " in line
    ]
    assert len(said) == 1 and said[0].startswith(f"{conf}:3: NGX028 error [::]:{port}"), said
    assert starts(dual).returncode == 0
    assert " NGX028 " not in lint_as(nginx_bin, conf, "NGX028").stdout
    before = snapshot(tree)
    args = ["generate", "--preset", "intermediate", "--nginx-bin", str(nginx_bin), "--domain",
            "b.test", "--cert", str(chain.fullchain), "--key", str(chain.key),
            "--http-listen", "none", "--into", str(tree)]  # fmt: skip
    done = nginxgen(*args, "--listen", str(port))
    assert done.returncode == 2, done.stderr
    assert f"{conf}:4: [::]:{port} ipv6only=off answers IPv4 too" in done.stderr, done.stderr
    assert snapshot(tree) == before
    done = nginxgen(*args, "--listen", f"[::]:{port}")
    assert done.returncode == 0, done.stderr
    assert "test is successful" in nginx_check(build, conf).stderr
    started = starts(conf.read_text())
    assert started.returncode == 0, started.stderr
    assert " NGX028 " not in lint_as(nginx_bin, conf, "NGX028").stdout
