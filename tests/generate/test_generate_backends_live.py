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

from nginxgen.shell.cli import main
from tests.builds import Build
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory

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


def generate(folder: Path, build: Build, backend_port: int, ca: Path) -> tuple[Path, int, Path]:
    """`nginxgen generate` for one upstream site passing to 127.0.0.1:PORT as backend.test."""
    front = CertificateFactory(folder / "front", "ecdsa").leaf(FRONT, "ecdsa")
    port = free_port()
    site = {
        "domains": [FRONT],
        "certificates": [{"cert": str(front.fullchain), "key": str(front.key)}],
        "listen": [f"127.0.0.1:{port}"],
        "http_listen": [],
        "redirect": False,
        "upstream": {
            "url": f"https://127.0.0.1:{backend_port}/",
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
