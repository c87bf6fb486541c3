"""`generate --into` proven live on loopback (issue 14): each stock tree, with two sites added,
served by its real nginx. Both names complete TLS 1.3 handshakes with the preset's groups (the
pq preset's ML-KEM is enforced on OpenSSL 3.5, AWS-LC and BoringSSL: a client that sends an
X25519 key share first still ends on X25519MLKEM768), a session resumes, HSTS is on a 200 and a 404, plain
HTTP answers 308 to HTTPS, and the tree's own site on port 80 answers as it did before; and
`probe --config` finds nothing in the server that the config model does not say.

Test-machine adaptation only: the tree's port-80 listens move to a loopback port (binding 80
needs root and may be taken), as stock_trees.py already moves paths."""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import require_build
from tests.into.test_generate_into import Tree, nginxgen
from tests.live import Server, free_port, s_client

LIVE = [
    ("debian-12", "bookworm", "intermediate"),
    ("debian-13", "trixie", "pq"),
    ("nginx-org", "trixie", "pq"),
    ("nginx-org", "wheel", "intermediate"),
    ("nginx-source", "trixie", "intermediate"),
    ("h5bp", "trixie", "pq"),
    ("h5bp", "bookworm", "intermediate"),
    ("linuxserver-alpine", "trixie", "pq"),
    ("swag", "trixie", "intermediate"),
    ("nginx-org", "awslc", "pq"),
    ("h5bp", "boringssl", "pq"),
]
LISTEN = re.compile(r"^(\s*listen\s+)(\[::\]:)?(80|443)\b", re.M)


def plain_get(port: int, host: str, path: str = "/") -> tuple[int, str | None, bytes]:
    """Status, Location and body; (0, None, b"") when the server closes without answering
    (`return 444`)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        response = connection.getresponse()
        return response.status, response.getheader("Location"), response.read()
    except (http.client.RemoteDisconnected, ConnectionResetError):
        return 0, None, b""
    finally:
        connection.close()


def move_ports(folder: Path, ports: dict[str, int]) -> None:
    """Every `listen 80` / `listen 443` (and `[::]:`) of the tree to loopback ports (IPv6 to
    127.0.0.2: a CI container may have no IPv6)."""
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.suffix not in (".pem", ".crt"):
            text = path.read_text(errors="surrogateescape")
            new = LISTEN.sub(
                lambda m: (
                    m.group(1)
                    + ("127.0.0.2" if m.group(2) else "127.0.0.1")
                    + f":{ports[m.group(3)]}"
                ),
                text,
            )
            if new != text:
                path.write_text(new, errors="surrogateescape")


@pytest.mark.parametrize(
    ("tree", "build_name", "preset"), LIVE, ids=[f"{t}-{b}" for t, b, _ in LIVE]
)
def test_into_tree_serves_both_sites(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    client: Build,
    tmp_path: Path,
    tree: str,
    build_name: str,
    preset: str,
) -> None:
    build = require_build(provisioned, build_name)
    stock = Tree(tree, build, tmp_path)
    http_port, tls_port = free_port(), free_port()
    move_ports(stock.dir, {"80": http_port, "443": tls_port})  # the new sites share them
    ports = [http_port]
    with Server(build, stock.main, ports):
        own_before = plain_get(http_port, "localhost")
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text("hello\n")
    settings = tmp_path / "site.yaml"
    settings.write_text(f"site:\n  root: {www}\n")
    for domain in ("a.test", "b.test"):
        done = stock.generate(
            domain,
            "--config", str(settings),
            "--listen", f"127.0.0.1:{tls_port}",
            "--http-listen", f"127.0.0.1:{http_port}",
            preset=preset,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    root = stock.certs.leaf("ca.test").root  # the factory's one root
    with Server(build, stock.main, [http_port, tls_port]) as served:
        for name in ("a.test", "www.a.test", "b.test"):
            groups = "X25519:X25519MLKEM768" if preset == "pq" else None
            hello = s_client(client, tls_port, name, version="1.3", groups=groups, ca=root)
            assert hello.ok and hello.protocol == "TLSv1.3", hello.output[-1500:]
            if preset == "pq":  # enforced: asked for ML-KEM though X25519's share came first
                assert hello.group == "X25519MLKEM768", hello.output[-1500:]
            assert hello.status == 200 and hello.header("Strict-Transport-Security"), hello.response
            missing = s_client(client, tls_port, name, path="/nowhere", ca=root)
            assert missing.status == 404 and missing.header("Strict-Transport-Security")
        session = tmp_path / "session.pem"
        first = s_client(client, tls_port, "b.test", sess_out=session, ca=root)
        resumed = s_client(client, tls_port, "b.test", sess_in=session, ca=root)
        assert first.ok and resumed.reused, (resumed.output[-1500:], served.error_log[-1500:])
        status, location, _ = plain_get(http_port, "a.test", "/x?y=1")
        assert status == 308 and location == "https://a.test/x?y=1"
        assert plain_get(http_port, "localhost") == own_before  # the tree's own site
        # probe --config on the tree as it now is: what the server negotiates for the new names,
        # an unknown name and no SNI is what the config model says (issue 25: no mismatch)
        sni = [arg for name in ("a.test", "www.a.test", "b.test") for arg in ("--sni", name)]
        probed = nginxgen(
            "probe", f"127.0.0.1:{tls_port}", *sni, "--sni", "unknown.invalid",
            "--config", str(stock.main), "--format", "json", *build.target_flags,
        )  # fmt: skip
        assert probed.returncode in (0, 1), probed.stderr
        answers = json.loads(probed.stdout)
        assert [a["sni"] for a in answers][:3] == ["a.test", "www.a.test", "b.test"]
        for answer in answers:
            assert answer["mismatches"] == [], (answer["sni"], answer["mismatches"])
            predicted = [said for said in answer["config"] if said["predicted"]]
            assert all(said["value"] == said["observed"] for said in predicted), answer["config"]
            if answer["sni"] in ("a.test", "www.a.test", "b.test"):  # the others are refused
                assert len(predicted) >= 5, answer["config"]  # protocol, group, suites, ...
        assert probed.returncode == 0, probed.stdout[-2000:]


def test_the_tls_log_is_written_where_http_says_access_log_off(
    provisioned: tuple[dict[str, Build], dict[str, str]], client: Build, tmp_path: Path
) -> None:
    """Trial 15: `access_log off;` in the tree's http{} makes nginx ignore every access_log of
    that level, ours too: two requests left a 0-byte TLS log, and `nginxgen report` nothing.
    Ours now goes in the server it adds, where nginx writes it."""
    build = require_build(provisioned, "trixie")
    stock = Tree("nginx-org", build, tmp_path)
    http_port, tls_port = free_port(), free_port()
    move_ports(stock.dir, {"80": http_port, "443": tls_port})
    text = stock.main.read_text()
    stock.main.write_text(text.replace("http {", "http {\n    access_log off;", 1))
    log = tmp_path / "tls.log"
    done = stock.generate(
        "a.test", "--listen", f"127.0.0.1:{tls_port}", "--http-listen",
        f"127.0.0.1:{http_port}", "--access-log", str(log), preset="intermediate",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    root = stock.certs.leaf("ca.test").root
    with Server(build, stock.main, [http_port, tls_port]):
        for _ in range(2):
            hello = s_client(client, tls_port, "a.test", version="1.3", ca=root)
            assert hello.ok, hello.output[-1500:]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 2, lines
