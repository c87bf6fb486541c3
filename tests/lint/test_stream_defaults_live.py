"""A stream{} TLS server with nothing set is judged like an http{} one (issue 44, found trying
public configs as a new user): on Debian 12's nginx 1.22.1 it answers no TLS 1.3 (the release's
default ssl_protocols), which NGX303 now says, with NGX601 and NGX602 for its session
settings, each with a fix at stream{} level. Checked against the live server with s_client."""

from __future__ import annotations

import os
from pathlib import Path

from tests.builds import Build
from tests.conftest import require_build
from tests.live import Server, free_port, lint_as, nginx_bin_script, s_client
from tests.pki import CertificateFactory


def _tree(build: Build, port: int, cert: Path, key: Path, protocols: str) -> str:
    assert build.root is not None
    module = build.root / "usr/lib/nginx/modules/ngx_stream_module.so"
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"load_module {module};\nworker_processes 1;\n{user}events {{}}\nstream {{\n"
        f"{protocols}    server {{\n        listen 127.0.0.1:{port} ssl;\n"
        f"        ssl_certificate {cert};\n        ssl_certificate_key {key};\n"
        '        return "x\\n";\n    }\n}\n'
    )


def test_a_stream_server_with_the_release_defaults(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, "bookworm")
    chain = CertificateFactory(tmp_path / "pki").leaf("s.example")
    nginx_bin = nginx_bin_script(build, None, tmp_path / "nginx-bin")
    conf = tmp_path / "nginx.conf"
    (tmp_path / "logs").mkdir()
    port = free_port()
    conf.write_text(_tree(build, port, chain.fullchain, chain.key, ""))
    with Server(build, conf, [port]):
        assert not s_client(build, port, "s.example", version="1.3", path=None).ok
        assert s_client(build, port, "s.example", version="1.2", path=None).ok
    found = lint_as(nginx_bin, conf, "NGX303,NGX601,NGX602")
    server = "nginx.conf:6:"
    assert f"{server} NGX303 warning no ssl_protocols: nginx 1.22.1 defaults to" in found.stdout
    assert "(no TLS 1.3)\n    fix: set ssl_protocols TLSv1.2 TLSv1.3; at stream{} level" in (
        found.stdout
    )
    socket = f"stream 127.0.0.1:{port}"
    assert f"{server} NGX601 info no shared session cache for {socket}" in found.stdout
    assert f"{server} NGX602 warning session tickets on for {socket}" in found.stdout

    conf.write_text(
        _tree(build, port, chain.fullchain, chain.key, "    ssl_protocols TLSv1.2 TLSv1.3;\n")
    )
    with Server(build, conf, [port]):
        assert s_client(build, port, "s.example", version="1.3", path=None).ok
    assert "NGX303" not in lint_as(nginx_bin, conf, "NGX303").stdout
