"""A generated `upstream:` site in front of real TLS backends on loopback (issue 38): openssl
s_server with one certificate for another name and, with `-servername backend.test`, a second
one for backend.test (`-cert2`). nginx must get 200 from it (so it sent the name as SNI: without
it s_server shows the other name's certificate), the SNI s_server records (`-tlsextdebug`) must
be the name, and a backend whose certificate comes from a CA nginx does not trust, or is for
another name only, must get 502."""

from __future__ import annotations

import re
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from nginxgen.base.version import Version
from nginxgen.shell.cli import main
from tests.builds import BUILD_NAMES, Build
from tests.h2_backend import RecordingH2Backend
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory, Chain

FRONT = "example.com"
BACKEND = "backend.test"


class Backend:
    """`openssl s_server -www` on loopback, its output kept for the SNI it saw."""

    def __init__(self, folder: Path, cert: Path, key: Path, sni: tuple[Path, Path] | None) -> None:
        self.port = free_port()
        self.log = folder / f"s_server-{self.port}.log"
        self.argv = ["stdbuf", "-oL", "-eL", "openssl", "s_server", "-www", "-tlsextdebug"]
        self.argv += ["-accept", f"127.0.0.1:{self.port}", "-cert", str(cert), "-key", str(key)]
        if sni:
            self.argv += ["-servername", BACKEND, "-cert2", str(sni[0]), "-key2", str(sni[1])]
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Backend:
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"s_server did not listen: {self.log.read_text(errors='replace')}")

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def names(self) -> list[str]:
        """The server names of the ClientHellos seen, from -tlsextdebug's hex dumps."""
        lines = self.log.read_text(errors="replace").splitlines()
        found = []
        for i, line in enumerate(lines):
            if 'extension "server name"' not in line:
                continue
            data = bytearray()
            for dump in lines[i + 1 :]:
                row = re.match(r"^\s*[0-9a-f]{4} - ((?:[0-9a-f]{2}[ -]){1,16})", dump)
                if not row:
                    break
                data += bytes.fromhex(row.group(1).replace("-", " "))
            # server_name_list: length (2), type (1), name length (2), name
            size = int.from_bytes(data[3:5], "big")
            found.append(data[5 : 5 + size].decode())
        return found


def request(port: int, ca: Path) -> int:
    """GET / from the front over TLS with SNI example.com; the status nginx answers."""
    return request_with(port, ca, None)


def generate(
    folder: Path, build: Build, backend_port: int, ca: Path, url: str | None = None
) -> tuple[Path, int, Path]:
    """`nginxgen generate` for one upstream site passing to 127.0.0.1:PORT as backend.test
    (with `url`, that upstream URL instead of https://127.0.0.1:PORT/)."""
    front = CertificateFactory(folder / "front", "ecdsa").leaf(FRONT, "ecdsa")
    port = free_port()
    site = {
        "domains": [FRONT],
        "certificates": [{"cert": str(front.fullchain), "key": str(front.key)}],
        "listen": [f"127.0.0.1:{port}"],
        "http_listen": [],
        "redirect": False,
        "upstream": {
            "url": url or f"https://127.0.0.1:{backend_port}/",
            "name": BACKEND,
            "trusted_certificate": str(ca),
        },
    }
    config = folder / "site.yaml"
    config.write_text(yaml.safe_dump({"sites": [site], "access_log": "off"}))
    out = folder / "conf"
    args = ["generate", "--preset", "intermediate", "--config", str(config), "--out", str(out)]
    assert main([*args, *build.target_flags]) == 0
    conf = out / "nginx.conf"
    prepare_prefix(conf, build, workers=1)
    return conf, port, front.root


@pytest.mark.parametrize("build", ["bookworm", "trixie", "openssl40"], indirect=True)
def test_generated_upstream_verifies_the_backend_and_sends_its_name(
    build: Build, tmp_path: Path
) -> None:
    trusted = CertificateFactory(tmp_path / "ca", "ecdsa")
    right = trusted.leaf(BACKEND, "ecdsa")
    other_name = trusted.leaf("other.test", "ecdsa")
    stranger = CertificateFactory(tmp_path / "other-ca", "ecdsa").leaf(BACKEND, "ecdsa")
    cases = [
        # the right certificate only for the SNI backend.test, another name's otherwise
        ("right", other_name, (right.fullchain, right.key), 200),
        ("untrusted CA", stranger, None, 502),
        ("another name", other_name, None, 502),
    ]
    # s_server sends no chain with -cert2: nginx trusts the intermediate and the root
    bundle = tmp_path / "trusted.pem"
    bundle.write_bytes(right.fullchain.read_bytes() + right.root.read_bytes())
    for label, shown, sni, status in cases:
        folder = tmp_path / label.replace(" ", "-")
        folder.mkdir()
        with Backend(folder, shown.fullchain, shown.key, sni) as backend:
            conf, port, front_ca = generate(folder, build, backend.port, bundle)
            with Server(build, conf, [port]):
                got = request(port, front_ca)
            assert got == status, (label, got, (conf.parent / "error.log").read_text()[-1500:])
            names = backend.names()
        assert names and set(names) == {BACKEND}, (label, names)


def request_with(port: int, ca: Path, client: tuple[Path, Path] | None) -> int:
    """GET / from the front with SNI example.com, showing a client certificate or none."""
    context = ssl.create_default_context(cafile=str(ca))
    if client is not None:
        context.load_cert_chain(str(client[0]), str(client[1]))
    with socket.create_connection(("127.0.0.1", port), timeout=15) as raw:
        tls = context.wrap_socket(raw, server_hostname=FRONT)
        tls.sendall(f"GET / HTTP/1.1\r\nHost: {FRONT}\r\nConnection: close\r\n\r\n".encode())
        head = tls.recv(200).decode(errors="replace")
    found = re.match(r"HTTP/1\.1 (\d{3})", head)
    assert found, head
    return int(found.group(1))


@pytest.mark.parametrize("build", ["trixie"], indirect=True)
def test_cloudflare_origin_answers_only_the_client_certificate_of_its_ca(
    build: Build, tmp_path: Path
) -> None:
    """The cloudflare-origin-pull preset's Authenticated Origin Pulls, its CA path pointed at a test
    CA standing in for Cloudflare's: 400 without a client certificate or with one of another
    CA, 200 with one the CA issued (directly, as Cloudflare's is: depth 1)."""
    front = CertificateFactory(tmp_path / "front", "ecdsa").leaf(FRONT, "ecdsa")
    pulls = CertificateFactory(tmp_path / "pulls", "ecdsa")
    member = pulls.leaf("origin-pull.example", "ecdsa", client=True)
    stranger = CertificateFactory(tmp_path / "stranger", "ecdsa").leaf(
        "x.example", "ecdsa", client=True
    )
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text("hello\n")
    port = free_port()
    site = {
        "domains": [FRONT],
        "certificates": [{"cert": str(front.fullchain), "key": str(front.key)}],
        "listen": [f"127.0.0.1:{port}"],
        "http_listen": [],
        "redirect": False,
        "root": str(www),
    }
    # the client certificate comes with its intermediate: the CA file holds the root
    data = {
        "sites": [site],
        "access_log": "off",
        "site": {"client_certificates": {"ca": str(member.root), "depth": 2}},
    }
    config = tmp_path / "site.yaml"
    config.write_text(yaml.safe_dump(data))
    out = tmp_path / "conf"
    args = [
        "generate",
        "--preset",
        "cloudflare-origin-pull",
        "--config",
        str(config),
        "--out",
        str(out),
    ]
    assert main([*args, *build.target_flags]) == 0
    assert "ssl_verify_client on;" in (out / f"{FRONT}.ssl.conf").read_text()
    conf = out / "nginx.conf"
    prepare_prefix(conf, build, workers=1)
    with Server(build, conf, [port]):
        assert request_with(port, front.root, None) == 400
        assert request_with(port, front.root, (stranger.fullchain, stranger.key)) == 400
        assert request_with(port, front.root, (member.fullchain, member.key)) == 200


def _recording_backend(folder: Path, build: Build, certs: dict[str, Chain]) -> tuple[Path, int]:
    """An nginx gRPC (HTTP/2 over TLS) backend on loopback with two virtual servers, the
    default one for other.test and one for backend.test, each with its certificate; its
    access log records, per request, the server that answered, the SNI, $host and the Host
    (HTTP/2: :authority, or a host header without it). (its main file, its port)"""
    port = free_port()
    old = Version(build.nginx_version) < Version("1.25.1")  # `listen ... http2` before `http2`
    listen = f"listen 127.0.0.1:{port} ssl{' http2' if old else ''}"

    def vhost(name: str, extra: str = "") -> str:
        chain = certs[name]
        return (
            f"server {{ {listen}{extra}; server_name {name};\n"
            f"    ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
            f'    location / {{ return 200 "{name}\\n"; }} }}\n'
        )

    folder.mkdir()
    conf = folder / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"{'' if old else 'http2 on;'}\n"
        "log_format seen '$server_name|$ssl_server_name|$host|$http_host';\n"
        f"access_log {folder / 'seen.log'} seen;\n"
        + vhost("other.test", " default_server")
        + vhost(BACKEND)
        + "}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return conf, port


@pytest.mark.live
@pytest.mark.parametrize("slash", ["", "/"], ids=["no-path", "slash"])
@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel"], indirect=True)
def test_generated_grpc_upstream_asks_the_backend_for_its_name(
    build: Build, tmp_path: Path, slash: str
) -> None:
    """Issue 44: the generated `upstream: grpcs://...` set no :authority, so nginx sent the
    upstream block's name (nginxgen_example_com) and a name-based gRPC backend answered from
    its default virtual server; and `grpcs://host:port/` was written with the path, which
    nginx refuses at start. The recording backend (real nginx) must see the backend's name as
    SNI and as the request's host, and answer from its backend.test server."""
    trusted = CertificateFactory(tmp_path / "ca", "ecdsa")
    certs = {name: trusted.leaf(name, "ecdsa") for name in ("other.test", BACKEND)}
    bundle = tmp_path / "trusted.pem"
    bundle.write_bytes(certs[BACKEND].fullchain.read_bytes() + certs[BACKEND].root.read_bytes())
    backend_conf, backend_port = _recording_backend(tmp_path / "backend", build, certs)
    front = tmp_path / "front"
    front.mkdir()
    url = f"grpcs://127.0.0.1:{backend_port}{slash}"
    conf, port, front_ca = generate(front, build, backend_port, bundle, url)
    with Server(build, backend_conf, [backend_port]), Server(build, conf, [port]):
        status = request(port, front_ca)
    seen = (tmp_path / "backend" / "seen.log").read_text().splitlines()
    assert seen == [f"{BACKEND}|{BACKEND}|{BACKEND}|{BACKEND}:{backend_port}"], seen
    assert status == 200, (conf.parent / "error.log").read_text()[-1500:]


@pytest.mark.live
@pytest.mark.parametrize("build", [*BUILD_NAMES, "openssl40"], indirect=True)
def test_generated_grpc_upstream_sends_the_name_on_the_wire(build: Build, tmp_path: Path) -> None:
    """Issue 44, at the frame level: a recording HTTP/2 backend (the h2 library's parser) sees
    the backend's name as SNI and as the request's authority, and the upstream block's name
    nowhere. nginx carries a `grpc_set_header Host` value in a `host` header where it sends
    no `:authority` (before 1.31.4; gRPC servers read Host then, RFC 9113 section 8.3.1) and
    in `:authority` after; either way the request names backend.test:PORT, exactly once."""
    trusted = CertificateFactory(tmp_path / "ca", "ecdsa")
    leaf = trusted.leaf(BACKEND, "ecdsa")
    bundle = tmp_path / "trusted.pem"
    bundle.write_bytes(leaf.fullchain.read_bytes() + leaf.root.read_bytes())
    with RecordingH2Backend(leaf.fullchain, leaf.key) as backend:
        front = tmp_path / "front"
        front.mkdir()
        conf, port, front_ca = generate(
            front, build, backend.port, bundle, f"grpcs://127.0.0.1:{backend.port}"
        )
        with Server(build, conf, [port]):
            status = request(port, front_ca)
    assert len(backend.seen) == 1, backend.seen
    seen = backend.seen[0]
    names = seen.header(":authority") + seen.header("host")
    assert seen.sni == BACKEND and names == [f"{BACKEND}:{backend.port}"], seen
    assert not [value for _, value in seen.headers if "nginxgen_" in value], seen
    assert status == 200, (conf.parent / "error.log").read_text()[-1500:]
