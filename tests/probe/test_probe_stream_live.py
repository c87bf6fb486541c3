"""`nginxgen probe --config --stream` on real nginx: a stream address with a default server and a
virtual server b.example, each with its own certificate, groups and protocols. The probe's
observations for each name are checked against `openssl s_client` (the oracle, not our probe):
a TLS 1.2 handshake, a TLS 1.3 handshake offering X25519 alone and one offering P-256 alone,
and the certificate's subject; and the probe reports no difference from the stream model.

Which server decides, seen here on every build with stream TLS: b.example's certificate is its
own; its groups are the default server's; its protocols are the default server's on nginx
1.28.3 and its own on 1.31.3 (nginx 1.29.2 moved server selection into the ClientHello
callback, knowledge default_server_only.ssl_protocols)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.probe.run import text_report
from tests.builds import REPO, Build
from tests.conf.test_stream_live import STREAM_BUILDS, _main
from tests.live import Server, free_port, parse_s_client, s_client
from tests.pki import CertificateFactory, _pem


def _tree(port: int, a: tuple[Path, Path], b: tuple[Path, Path]) -> str:
    return f"""stream {{
    server {{
        listen 127.0.0.1:{port} ssl default_server;
        ssl_certificate {a[0]}; ssl_certificate_key {a[1]};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ecdh_curve prime256v1;
        return "a\\n";
    }}
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name b.example;
        ssl_certificate {b[0]}; ssl_certificate_key {b[1]};
        ssl_protocols TLSv1.3;
        ssl_ecdh_curve X25519;
        return "b\\n";
    }}
}}
"""


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_probe_stream_listeners(build: Build, client: Build, tmp_path: Path) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    a = pki.leaf("a.example", sans=("a.example",))
    b = pki.leaf("b.example", sans=("b.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(_tree(port, (a.fullchain, a.key), (b.fullchain, b.key))))
    (tmp_path / "logs").mkdir()
    with Server(build, conf, [port]):
        done = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", "127.0.0.1", "--config", str(conf),
             "--stream", "--format", "json", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
        results = json.loads(done.stdout)
        seen = {}
        for result in results:
            name = result["sni"]
            sni = name or "127.0.0.1"  # s_client sends no SNI for an IP address
            tls12 = s_client(client, port, sni, version="1.2", path=None)
            x25519 = s_client(client, port, sni, version="1.3", groups="X25519", path=None)
            p256 = s_client(client, port, sni, version="1.3", groups="P-256", path=None)
            assert result["port"] == port
            assert result["protocols"]["TLSv1.2"] == tls12.ok, (name, tls12.output[-400:])
            assert result["protocols"]["TLSv1.3"] == (x25519.ok or p256.ok), name
            assert result["groups"]["X25519"] == x25519.ok, (name, x25519.output[-400:])
            assert result["groups"]["secp256r1"] == p256.ok, (name, p256.output[-400:])
            subject = result["certificate"]["subject"]
            assert f"subject=CN={subject.removeprefix('CN=')}" in (x25519.output + p256.output)
            seen[name] = (tls12.ok, x25519.ok, p256.ok, subject)
    # which server decides: the certificate is the name's, the groups the default server's,
    # the protocols the default server's before nginx 1.29.2 and the name's from then; the
    # probe reports b.example's lines that do not apply, each with why, and nothing else (a
    # value in effect the server did not show would say the model is wrong)
    own_protocols = Version(build.nginx_version) >= Version("1.29.2")
    ignored = {"ssl_ecdh_curve"} | (set() if own_protocols else {"ssl_protocols"})
    mismatches = {(r["sni"], m["setting"]): m for r in results for m in r["mismatches"]}
    assert set(mismatches) == {("b.example", key) for key in ignored}, done.stdout[-3000:]
    assert all("is the default server of" in m["why"] for m in mismatches.values())
    lines = conf.read_text().splitlines()
    deciding = {  # the default server's lines, which decide
        n + 1 for n, text in enumerate(lines) if "prime256v1" in text or "TLSv1.2 TLSv1.3" in text
    }
    assert {m["because"]["line"] for m in mismatches.values()} <= deciding
    assert done.returncode == 1, done.stderr
    assert seen["b.example"] == (not own_protocols, False, True, "CN=b.example"), seen
    assert seen[None] == (True, False, True, "CN=a.example"), seen


def _verify_tree(port: int, leaf: tuple[Path, Path], ca: Path) -> str:
    """squeeze-alexa's stream{} server (docs/example-config/docker/nginx-tcp-ssl): TLS 1.2
    only, a client certificate required, the backend's bytes after the handshake."""
    return f"""stream {{
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {leaf[0]}; ssl_certificate_key {leaf[1]};
        ssl_client_certificate {ca};
        ssl_verify_client on;
        ssl_protocols TLSv1.2;
        return "banner\\n";
    }}
}}
"""


def _probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", "probe", *args, "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
    )  # fmt: skip


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_a_stream_port_with_config_is_probed_as_stream(
    build: Build, client: Build, tmp_path: Path
) -> None:
    """Issue 44, trial 7 (F6): `probe HOST:PORT --config` on a port only stream{} serves,
    without --stream, judged it as an http{} server: "without one: served (status None)"
    although nginx closes the connection of a client without a certificate, HSTS with status
    None, and "the config has no TLS listen on this port" although it has one, in stream{}.
    The port is now probed as with --stream, and the output says it chose that from the
    config; what the probe sees equals what s_client sees. Without --config the probe cannot
    know: the GET it sends gets no answer, which it says, never "served"."""
    pki = CertificateFactory(tmp_path / "pki")
    leaf = pki.leaf("squeeze.example", sans=("squeeze.example",))
    who = pki.leaf("alexa", client=True)
    ca = tmp_path / "clients-ca.pem"
    ca.write_bytes(_pem(pki.intermediate) + _pem(pki.root))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(_verify_tree(port, (leaf.fullchain, leaf.key), ca)))
    (tmp_path / "logs").mkdir()
    at = f"127.0.0.1:{port}"
    with Server(build, conf, [port]):
        done = _probe(at, "--sni", "squeeze.example", "--config", str(conf), *build.target_flags)
        alone = _probe(at, "--sni", "squeeze.example")
        connect = ["s_client", "-connect", at, "-servername", "squeeze.example", "-ign_eof"]
        tls12 = client.openssl(*connect, "-tls1_2")
        tls13 = client.openssl(*connect, "-tls1_3")
        with_cert = client.openssl(*connect, "-cert", str(who.fullchain), "-key", str(who.key))
    # s_client: the handshake completes; without a certificate nginx sends nothing and
    # closes, with one the backend's bytes come
    assert parse_s_client(tls12.stdout).ok and "banner" not in tls12.stdout, tls12.stdout
    assert not parse_s_client(tls13.stdout + tls13.stderr).ok
    assert "banner" in with_cert.stdout, with_cert.stdout[-1000:]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    line = next(n for n, text in enumerate(conf.read_text().splitlines(), 1) if "listen" in text)
    said = f"{at} is a TLS listen of stream{{}} in the config ({conf}:{line}), not of http{{}}"
    assert f"probe: {said}: probed as with --stream" in done.stderr, done.stderr
    results = json.loads(done.stdout)
    assert [r["sni"] for r in results] == ["squeeze.example", None]
    for result in results:
        assert result["port"] == port and result["probed_as"] == f"stream: {said}"
        assert result["protocols"]["TLSv1.2"] is True and result["protocols"]["TLSv1.3"] is False
        assert result["certificate"]["subject"] == "CN=squeeze.example"
        assert "client_certificate" not in result and "hsts" not in result, result
        assert result["mismatches"] == [] and result["inconclusive"] == [], result
    text = text_report(results)
    assert "status None" not in text and "no TLS listen" not in text, text
    # without --config: the GET after the handshake got no answer, and that is what is said
    found = json.loads(alone.stdout)[0]
    closed = "the server closed the connection without answering GET / (the handshake completed)"
    asked = found["client_certificate"]
    named = tls12.stdout.split("Acceptable client certificate CA names\n", 1)[1].splitlines()
    seen = [n.replace(" = ", "=") for n in itertools.takewhile(lambda n: "=" in n, named)]
    assert asked["requested"] is True and asked["ca_names"] == seen != [], (asked, seen)
    assert (asked["without"], asked["not_checked"]) == (None, closed), asked
    assert "served" not in text_report([found]), text_report([found])
    assert alone.returncode == 1, alone.stderr


@pytest.mark.parametrize("build", STREAM_BUILDS[:1], indirect=True)
def test_one_port_on_two_addresses_and_sni_names(
    build: Build, client: Build, tmp_path: Path
) -> None:
    """Trial 16 (Arch Linux's rsync host): a stream server with `listen 127.0.0.1:N ssl;` and
    `listen [::1]:N ssl;` was probed twice on 127.0.0.1 (once as each listener), and --sni's
    name was never asked. Now the port is asked once, of the listener answering 127.0.0.1, for
    --sni's names beside the config's; what the probe sees of --sni's name is what s_client
    sees."""
    leaf = CertificateFactory(tmp_path / "pki").leaf("rsync.example", sans=("rsync.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        _main(
            f"stream {{\n    server {{\n        listen 127.0.0.1:{port} ssl;\n"
            f"        listen [::1]:{port} ssl;\n        server_name rsync.example;\n"
            f"        ssl_certificate {leaf.fullchain}; ssl_certificate_key {leaf.key};\n"
            '        return "r\\n";\n    }\n}\n'
        )
    )
    (tmp_path / "logs").mkdir()
    with Server(build, conf, [port]):
        done = _probe("127.0.0.1", "--config", str(conf), "--stream", "--sni", "other.example",
                      *build.target_flags)  # fmt: skip
        other = s_client(client, port, "other.example", version="1.3", path=None)
    results = json.loads(done.stdout)
    assert [r["sni"] for r in results] == ["other.example", "rsync.example", None], done.stdout
    assert {r["port"] for r in results} == {port}
    subject = results[0]["certificate"]["subject"]
    assert other.ok and f"subject=CN={subject.removeprefix('CN=')}" in other.output, subject


@pytest.mark.parametrize("build", STREAM_BUILDS[:1], indirect=True)
def test_a_stream_port_whose_backend_waits_for_the_client_is_not_waited_out(
    build: Build, tmp_path: Path
) -> None:
    """Trial 23 (an MQTT proxy: stream TLS to a broker that speaks only when spoken to): the
    probe asked its HTTP pages on the TLS 1.3 connection that reads the certificate chain, and
    waited out --timeout on every run for an answer that never comes. A stream port is asked
    no page: the chain is in the handshake's flight."""
    import socket
    import threading
    import time

    backend = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []  # accepted, read from by nobody, never written to

    def accept() -> None:
        while True:
            try:
                held.append(backend.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    leaf = CertificateFactory(tmp_path / "pki").leaf("mqtt.example", sans=("mqtt.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(
        f"stream {{\n    server {{\n        listen 127.0.0.1:{port} ssl;\n"
        f"        ssl_certificate {leaf.fullchain}; ssl_certificate_key {leaf.key};\n"
        f"        proxy_pass 127.0.0.1:{backend.getsockname()[1]};\n    }}\n}}\n"
    ))  # fmt: skip
    (tmp_path / "logs").mkdir()
    try:
        with Server(build, conf, [port]):
            started = time.monotonic()
            done = _probe("127.0.0.1", "--config", str(conf), "--stream", "--timeout", "30",
                          *build.target_flags)  # fmt: skip
            took = time.monotonic() - started
    finally:
        backend.close()
        for held_socket in held:
            held_socket.close()
    results = json.loads(done.stdout)
    assert [r["certificate"]["chain_length"] for r in results] == [2], done.stdout[-2000:]
    assert took < 15, f"{took:.1f} s: the 30 s timeout was waited out"
    assert results[0]["inconclusive"] == [], results[0]
