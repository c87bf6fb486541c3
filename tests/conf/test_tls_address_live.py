"""`ssl` belongs to an address:port, not to one listen line (trial 16, kobo-docker): where one
server's `listen 127.0.0.1:N ssl` makes the address TLS, a server there whose listen says no
`ssl` is served TLS too, with its own certificate and ssl_ciphers by SNI. The config model calls
it a TLS server, and lint judges its lines: its ssl_ciphers with a CBC SHA-1 suite (NGX403) and its HSTS (NGX701).
The oracle is `openssl s_client`, which negotiates the CBC suite its line allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.conf.test_stream_live import _main
from tests.fuzzing.generate_check import build_target
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory


@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
def test_a_server_without_ssl_on_a_tls_address(build: Build, client: Build, tmp_path: Path) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    a = pki.leaf("a.example", sans=("a.example",))
    b = pki.leaf("b.example", sans=("b.example",))
    port = free_port()
    temp = " ".join(build.temp_path_directives)
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        _main(
            f"http {{ access_log off; {temp}\n"
            f"server {{ listen 127.0.0.1:{port} ssl; server_name a.example;\n"
            f"ssl_certificate {a.fullchain}; ssl_certificate_key {a.key};\n"
            "ssl_ciphers ECDHE+AESGCM; return 200 a; }\n"
            f"server {{ listen 127.0.0.1:{port}; server_name b.example;\n"
            f"ssl_certificate {b.fullchain}; ssl_certificate_key {b.key};\n"
            "ssl_ciphers ECDHE-ECDSA-AES128-SHA:ECDHE+AESGCM;\n"
            "return 200 b; }\n}\n"
        )
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [port]):
        weak = s_client(
            client, port, "b.example", version="1.2", ciphers="ECDHE-ECDSA-AES128-SHA", path="/"
        )
        other = s_client(
            client, port, "a.example", version="1.2", ciphers="ECDHE-ECDSA-AES128-SHA", path="/"
        )
    # nginx serves b.example over TLS with its own certificate and its own (weak) suites
    assert weak.ok and weak.cipher == "ECDHE-ECDSA-AES128-SHA", weak.output[-800:]
    assert "subject=CN=b.example" in weak.output, weak.output[-800:]
    assert not other.ok, other.output[-800:]
    loaded = load_path(str(conf))
    config = build_config(loaded)
    assert [s.tls for s in config.servers] == [True, True]
    found = lint(loaded, build_target(build), Selection(select={"NGX403", "NGX701"}))
    ciphers = next(n for n, t in enumerate(conf.read_text().splitlines(), 1) if "AES128-SHA:" in t)
    assert ("NGX403", ciphers) in {(f.code, f.line) for f in found}, found
    assert sum(f.code == "NGX701" for f in found) == 2, found
