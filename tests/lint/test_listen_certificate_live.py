"""NGX715 on real nginx: a `listen ... ssl` address's servers without certificates, on every
build (http) and every build with stream TLS compiled in (stream). nginx -t refuses a default
server without one (and a vhost without one where the default rejects handshakes) with the
message knowledge records; a vhost without one beside a default server with one passes nginx -t
and `openssl s_client -servername` its name gets the default server's certificate with the
vhost's content. What lint says of each tree (error, warning, nothing) follows."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.severity import Severity
from nginxgen.conf.load import load_path
from nginxgen.knowledge import nginx
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conf.test_stream_live import STREAM_BUILDS, _main
from tests.live import Server, first_emerg, free_port, nginx_check, s_client
from tests.pki import CertificateFactory

CASES = [(name, "http") for name in ALL_BUILD_NAMES] + [(n, "stream") for n in STREAM_BUILDS]


def _tree(build: Build, block: str, port: int, a: str, b: str, default: str) -> str:
    """`a`, `b`: the certificate lines of the default server and of b.example's; `default`: more
    lines of the default server."""
    if block == "http":
        temp = " ".join(build.temp_path_directives)
        return f"""http {{ access_log off; {temp}
    server {{ listen 127.0.0.1:{port} ssl default_server; {a} {default} return 200 "a\\n"; }}
    server {{ listen 127.0.0.1:{port} ssl; server_name b.example; {b} return 200 "b\\n"; }}
}}
"""
    return f"""stream {{
    server {{ listen 127.0.0.1:{port} ssl default_server; {a} {default} return "a\\n"; }}
    server {{ listen 127.0.0.1:{port} ssl; server_name b.example; {b} return "b\\n"; }}
}}
"""


@pytest.mark.parametrize(("build", "block"), CASES, indirect=["build"])
def test_listen_ssl_without_certificate(
    build: Build, block: str, client: Build, tmp_path: Path
) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    certs = {}
    for name in ("a.example", "b.example"):
        chain = pki.leaf(name, sans=(name,))
        certs[name] = f"ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};"
    port = free_port()
    target = resolve(build.nginx_version, build.tls_library)
    message = nginx.listen_certificate().message.format(kind="ssl")
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = tmp_path / "nginx.conf"
    trees = {
        "default without": ("", certs["b.example"], "", "error"),
        "default rejects": ("", "", "ssl_reject_handshake on;", "error"),
        "vhost without": (certs["a.example"], "", "", "warning"),
        "fixed": (certs["a.example"], certs["b.example"], "", None),
    }
    for case, (a, b, default, severity) in trees.items():
        conf.write_text(_main(_tree(build, block, port, a, b, default)))
        checked = nginx_check(build, conf)
        found = [f for f in lint(load_path(str(conf)), target, Selection()) if f.code == "NGX715"]
        assert [f.severity for f in found] == ([severity] if severity else []), (case, found)
        if severity == "error":
            assert checked.returncode == 1 and message in checked.stderr, (case, checked.stderr)
            continue
        assert checked.returncode == 0, (case, checked.stderr)
        with Server(build, conf, [port]):
            hs = s_client(client, port, "b.example", path="/")
        subject = "CN=a.example" if severity else "CN=b.example"
        assert hs.ok and f"subject={subject}" in hs.output, (case, hs.output[-800:])
        assert "\nb\n" in hs.output.replace("\r", ""), (case, hs.output[-800:])


# the old `ssl on;` (until nginx 1.25.1: Debian 12's 1.22.1 of the builds), found trying
# JupyterHub's documented config as a new user: NGX715 said nginx -t accepts it
SWITCHED = {
    # name: (http{} lines, b.example's lines, the line nginx names: "b", "http" or None)
    "a vhost with ssl on": ("", "ssl on;", "b"),
    "ssl on for every server": ("ssl on;", "", "http"),
    "ssl on, handshakes rejected": ("", "ssl on; ssl_reject_handshake on;", None),
    "ssl on with a certificate": ("", "ssl on; @CERT@", None),
}


@pytest.mark.parametrize("case", SWITCHED)
@pytest.mark.parametrize("build", ["bookworm"], indirect=True)
def test_ssl_on_without_certificate(build: Build, case: str, tmp_path: Path) -> None:
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    cert = f"ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};"
    http, own, named = SWITCHED[case]
    temp = " ".join(build.temp_path_directives)
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = tmp_path / "nginx.conf"
    port = free_port()
    conf.write_text(
        _main(
            f"http {{ access_log off; {temp}\n{http}\n"
            f"server {{ listen 127.0.0.1:{port} ssl default_server; {cert} }}\n"
            f"server {{ listen 127.0.0.1:{port}; server_name b.example;\n"
            f"{own.replace('@CERT@', cert)}\n}}\n}}\n"
        )
    )
    checked = nginx_check(build, conf)
    target = resolve(build.nginx_version, build.tls_library)
    found = lint(load_path(str(conf)), target, Selection(select={"NGX715"}))
    errors = [f for f in found if f.severity == Severity.ERROR]
    if named is None:
        assert "test is successful" in checked.stderr, checked.stderr
        assert errors == [], errors
        return
    message = nginx.listen_certificate().ssl_directive_message
    assert f"{message} in {conf}:" in checked.stderr, checked.stderr
    line = int(checked.stderr.split(f"{message} in {conf}:")[1].split()[0])
    assert [f.line for f in errors] == [line] and message in errors[0].message, errors
    text = conf.read_text().splitlines()
    assert text[line - 1].startswith("ssl on;")  # http{}'s line, or b.example's
    assert ("server_name b.example" in text[line - 2]) == (named == "b")


@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
def test_the_line_nginx_names_for_a_stream_server(build: Build, tmp_path: Path) -> None:
    """Before 1.25.5 stream checks each server as it merges it and names the last `listen ...
    ssl` line (Debian 12); from 1.25.5 the server's line (trial 16, BIND's DoT example)."""
    conf = tmp_path / "nginx.conf"
    (tmp_path / "logs").mkdir()
    port = free_port()
    conf.write_text(
        f"{build.load_module('stream')}events {{}}\nstream {{\n    server {{\n"
        f"        listen 127.0.0.1:{port} ssl;\n        listen 127.0.0.1:{free_port()} ssl;\n"
        "        proxy_pass 127.0.0.1:9;\n    }\n}\n"
    )
    emerg = first_emerg(nginx_check(build, conf).stderr)
    assert emerg is not None and emerg[1] is not None, emerg
    target = resolve(build.nginx_version, build.tls_library)
    found = [f for f in lint(load_path(str(conf)), target, Selection()) if f.code == "NGX715"]
    assert [(f.severity, f.line) for f in found] == [("error", emerg[1])], (emerg, found)
