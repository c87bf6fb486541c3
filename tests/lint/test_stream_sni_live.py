"""stream{} `proxy_ssl` without `proxy_ssl_server_name on` on real nginx (issue 44): no SNI.

A backend (stream virtual servers of the same nginx) answers with the SNI it received: its
default server for no name, its `api.test` server for that name, each with a certificate for
api.test from the CA the front trusts, so verification passes either way. A front server with
`proxy_ssl on; proxy_ssl_verify on; proxy_ssl_name api.test;` and no `proxy_ssl_server_name`
gets the default server's content: nginx sent no SNI, though it verified the name. NGX802
reports it (as it does the http{} twin); its safe fix turns SNI on, after which the backend sees
`api.test` and answers from its named server, and NGX802 is silent.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.findings import Finding
from nginxgen.shell.cli import main
from tests.builds import Build
from tests.conf.test_stream_live import STREAM_BUILDS
from tests.every_rule import lint_checked
from tests.live import Server, free_port
from tests.pki import CertificateFactory


def tree(folder: Path, backend: int, front: int) -> Path:
    pki = CertificateFactory(folder / "pki")
    default, named = pki.leaf("api.test"), pki.leaf("api.test", kind="rsa")
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\n{user}events {{}}\nstream {{\n"
        f"    upstream backend {{ server 127.0.0.1:{backend}; }}\n"
        f"    server {{ listen 127.0.0.1:{backend} ssl default_server;\n"
        f"        ssl_certificate {default.fullchain}; ssl_certificate_key {default.key};\n"
        '        return "default|$ssl_server_name\\n"; }\n'
        f"    server {{ listen 127.0.0.1:{backend} ssl; server_name api.test;\n"
        f"        ssl_certificate {named.fullchain}; ssl_certificate_key {named.key};\n"
        '        return "named|$ssl_server_name\\n"; }\n'
        f"    server {{\n        listen 127.0.0.1:{front};\n        proxy_pass backend;\n"
        "        proxy_ssl on;\n        proxy_ssl_verify on;\n"
        f"        proxy_ssl_trusted_certificate {default.root};\n"
        "        proxy_ssl_name api.test;\n    }\n}\n"
    )
    (folder / "logs").mkdir(exist_ok=True)
    return conf


def answer(port: int) -> str:
    """What a plain TCP client reads from the front until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
    return data.decode(errors="replace").strip()


def no_sni(conf: Path, build: Build) -> list[Finding]:
    target = resolve(build.nginx_version, build.tls_library)
    return [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX802"]


@pytest.mark.live
@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_stream_proxy_ssl_sends_no_sni_without_server_name(build: Build, tmp_path: Path) -> None:
    backend, front = free_port(), free_port()
    conf = tree(tmp_path, backend, front)
    (finding,) = no_sni(conf, build)
    assert "proxy_pass backend;" in conf.read_text().splitlines()[finding.line - 1], finding
    assert finding.autofix is not None and finding.autofix.value == "safe", finding
    with Server(build, conf, [backend, front]):
        assert answer(front) == "default|"  # verified, but no name sent: the default answers
    flags = ["--nginx-version", build.nginx_version, "--tls-library", build.tls_library]
    main(["lint", *flags, "--fix", "--select", "NGX802", str(conf)])
    assert "proxy_ssl_server_name on;" in conf.read_text()
    assert no_sni(conf, build) == []
    with Server(build, conf, [backend, front]):
        assert answer(front) == "named|api.test"
