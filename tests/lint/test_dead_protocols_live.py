"""A protocol line that leaves no protocol the library negotiates (trial 22: a mail proxy's
`ssl_protocols TLSv1 SSLv3;` from the nginx wiki, on OpenSSL 3): nginx -t passes, and every
handshake fails with a `protocol version` alert. NGX401 says so as an error, on real nginx and
a real client; a line that keeps TLS 1.2 beside the dead ones stays an info (dead configuration,
nothing more)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.every_rule import lint_checked
from tests.helpers import make_cert
from tests.live import Server, free_port, nginx_check, prepare_prefix, s_client


def tree(folder: Path, port: int, protocols: str) -> Path:
    pair = make_cert(folder, "a.test", "ecdsa")
    conf = folder / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{\n    ssl_protocols {protocols};\n"
        f"    server {{\n        listen 127.0.0.1:{port} ssl default_server;\n"
        f"        ssl_certificate {pair.cert};\n        ssl_certificate_key {pair.key};\n"
        "    }\n}\n"
    )
    return conf


@pytest.mark.live
@pytest.mark.parametrize("build", ["trixie", "openssl36", "openssl40"], indirect=True)
@pytest.mark.parametrize(
    ("protocols", "severity"), [("TLSv1 SSLv3", "error"), ("TLSv1 TLSv1.2", "info")]
)
def test_a_line_without_a_negotiable_protocol_fails_every_handshake(
    build: Build, client: Build, protocols: str, severity: str, tmp_path: Path
) -> None:
    port = free_port()
    conf = tree(tmp_path, port, protocols)
    found = lint_checked(load_path(str(conf)), resolve(build.nginx_version, build.tls_library))
    said = [f for f in found if f.code == "NGX401"]
    assert [f.severity for f in said] == [severity], said
    prepare_prefix(conf, build)
    assert nginx_check(build, conf).returncode == 0
    with Server(build, conf, [port]):
        shakes = [s_client(client, port, "a.test", path=None)]
        shakes += [s_client(client, port, "a.test", version="1", path=None)]
        negotiated = [shake.protocol for shake in shakes if shake.ok]
    if severity == "error":
        assert negotiated == [], [shake.output[-400:] for shake in shakes]
    else:
        assert "TLSv1.2" in negotiated, [shake.output[-400:] for shake in shakes]
