"""NGX716 on real nginx: a server with its own certificate on a plain listen. nginx -t passes,
and `openssl s_client` gets no handshake there (the server speaks plain text); with `ssl` on
the listen, or on another server's listen of the same address (nginx makes the address TLS),
the handshake completes and lint says nothing. http{} and stream{} (trial 24: an MQTT stream
server on a plain `listen 8883;`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.conf.test_stream_live import _main
from tests.live import Server, free_port, nginx_check, s_client
from tests.pki import CertificateFactory


def _tree(build: Build, block: str, port: int, listen: str, beside: str) -> str:
    if block == "http":
        temp = " ".join(build.temp_path_directives)
        return (
            f"http {{ access_log off; {temp}\n"
            f'server {{ listen 127.0.0.1:{port}{listen}; @CERT@ return 200 "a\\n"; }}\n'
            f"{beside}}}\n"
        )
    return (
        f'stream {{\nserver {{ listen 127.0.0.1:{port}{listen}; @CERT@ return "a\\n"; }}\n'
        f"{beside}}}\n"
    )


@pytest.mark.parametrize("block", ["http", "stream"])
@pytest.mark.parametrize("build", ["trixie", "openssl40"], indirect=True)
def test_a_certificate_on_a_plain_listen(
    build: Build, block: str, client: Build, tmp_path: Path
) -> None:
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    cert = f"ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};"
    port = free_port()
    target = resolve(build.nginx_version, build.tls_library)
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = tmp_path / "nginx.conf"
    tls_beside = f"server {{ listen 127.0.0.1:{port} ssl; server_name b.example; {cert} return " + (
        '200 "b\\n"; }\n' if block == "http" else '"b\\n"; }\n'
    )
    cases = {"plain": ("", "", True), "ssl": (" ssl", "", False), "beside": ("", tls_beside, False)}
    for case, (listen, beside, reported) in cases.items():
        load = build.load_module("stream") if block == "stream" else ""
        text = load + _main(_tree(build, block, port, listen, beside).replace("@CERT@", cert))
        conf.write_text(text)
        line = next(i for i, t in enumerate(text.splitlines(), 1) if "ssl_certificate " in t)
        checked = nginx_check(build, conf)
        assert checked.returncode == 0, (case, checked.stderr)
        found = [f for f in lint(load_path(str(conf)), target, Selection()) if f.code == "NGX716"]
        assert [f.line for f in found] == ([line] if reported else []), (case, found)
        with Server(build, conf, [port]):
            hs = s_client(client, port, "a.example", path="/" if block == "http" else None)
        assert hs.ok is not reported, (case, hs.output[-600:])
