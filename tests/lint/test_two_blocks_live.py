"""One address:port in http{} and stream{} against real nginx (trial 8, YunoHost's TLS
passthrough: `generate --into` put an http server on the stream's port; nginx -t passed, nginx
did not start). NGX020 says so at the stream listen; --into refuses such a listen."""

from __future__ import annotations

import subprocess
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
