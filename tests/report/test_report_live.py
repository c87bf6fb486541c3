"""`nginxgen report` on the log real nginx wrote (issue 17): a generated config with its TLS
access log, a known mix of real handshakes from OpenSSL 3.5's s_client, and the report's counts
equal to what the client saw on each connection."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.generate.test_live_presets import NAME, Served, generate
from tests.helpers import require_program
from tests.live import Handshake, Server, parse_s_client, s_client

# nginx 1.26.3/OpenSSL 3.5 (ML-KEM, logged as 0x11ec), 1.22.1/OpenSSL 3.0 (no ML-KEM),
# 1.31.3/OpenSSL 3.3 (no ML-KEM; nginx names provider groups since 1.27.5)
BUILDS = ["trixie", "bookworm", "wheel"]
MLKEM_OFFER = "X25519MLKEM768:X25519"


def three_requests(client: Build, port: int) -> Handshake:
    """One TLS 1.3 connection carrying three pipelined HTTP/1.1 requests."""
    keep = f"GET / HTTP/1.1\r\nHost: {NAME}\r\n\r\n"
    last = f"GET / HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n"
    done = client.openssl(
        *("s_client", "-connect", f"127.0.0.1:{port}", "-servername", NAME),
        *("-tls1_3", "-groups", "X25519", "-ign_eof"),
        stdin=keep * 2 + last,
    )
    return parse_s_client(done.stdout + done.stderr)


def plain_request(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode())
        while sock.recv(4096):
            pass


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_report_counts_real_handshakes(build: Build, client: Build, tmp_path: Path) -> None:
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served), served.stderr
    log = tmp_path / "tls-access.log"
    session = tmp_path / "session.pem"
    # (handshake, groups the client offered, requests it sent)
    made: list[tuple[Handshake, str, int]] = []
    with Server(build, served.conf, [served.port, served.http_port]):
        port = served.port
        made.append((s_client(client, port, NAME, version="1.3", groups="X25519"), "X25519", 1))
        made.append(
            (s_client(client, port, NAME, version="1.3", groups=MLKEM_OFFER), MLKEM_OFFER, 1)
        )
        made.append((s_client(client, port, NAME, version="1.2", groups="X25519"), "X25519", 1))
        first = s_client(client, port, NAME, version="1.3", groups="X25519", sess_out=session)
        made.append((first, "X25519", 1))
        again = s_client(client, port, NAME, version="1.3", groups="X25519", sess_in=session)
        made.append((again, "X25519", 1))
        made.append((three_requests(client, port), "X25519", 3))
        plain_request(served.http_port)
    for handshake, _, _ in made:
        assert handshake.ok and handshake.status is not None, handshake.output[-1500:]
    assert again.reused, "the second connection did not resume: the mix is not what it claims"

    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "report", str(log), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    overall = report["overall"]
    # no build here serves ECH, so its log has no ech field: no ECH figure, not a share of 0
    assert '"ech"' not in log.read_text()
    assert report["variables"]["ech"] is None and overall["ech"] is None

    handshakes = [h for h, _, _ in made]
    connections = len(made)
    assert overall["connections"] == connections
    assert overall["plain_http"] == 1
    assert overall["requests"] == sum(n for _, _, n in made)
    assert overall["protocols"] == {
        name: {"count": n, "share": round(n / connections, 4)}
        for name, n in Counter(h.protocol for h in handshakes).most_common()
    }
    groups = Counter(h.group for h in handshakes)
    assert {g: e["count"] for g, e in overall["groups"].items()} == dict(groups)
    pq = groups.get("X25519MLKEM768", 0)
    assert overall["pq"]["count"] == pq
    assert pq == (1 if build.name == "trixie" else 0)  # only OpenSSL 3.5 has ML-KEM here
    missed = sum(
        1
        for h, offered, _ in made
        if "MLKEM" in offered and h.protocol == "TLSv1.3" and h.group != "X25519MLKEM768"
    )
    assert overall["pq_offered_not_used"]["count"] == missed
    assert overall["resumed"]["count"] == sum(h.reused for h in handshakes) == 1
    assert overall["early_data"]["count"] == 0
    assert overall["requests_per_connection"] == round(overall["requests"] / connections, 2)
    assert overall["ciphers"] == {
        name: {"count": n, "share": round(n / connections, 4)}
        for name, n in Counter(h.cipher for h in handshakes).most_common()
    }


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_http2_streams_are_requests_of_one_connection(build: Build, tmp_path: Path) -> None:
    """Browsers speak HTTP/2: its streams count in $connection_requests, so three requests
    multiplexed on one connection are one connection (curl, built with nghttp2)."""
    curl = require_program("curl", "the HTTP/2 client of this test")
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served), served.stderr
    url = f"https://{NAME}:{served.port}/"
    with Server(build, served.conf, [served.port]):
        done = subprocess.run(
            [curl, "-sSvk", "--http2", "--resolve", f"{NAME}:{served.port}:127.0.0.1",
             *(url, url, url), *("-o", os.devnull) * 3],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Connected to") == 1  # one connection
    assert done.stderr.count("using HTTP/2") >= 1
    version = re.search(r"SSL connection using (TLSv1\.[23])", done.stderr)
    assert version is not None, done.stderr
    log = tmp_path / "tls-access.log"
    report = run_nginxgen("report", str(log), "--format", "json", timeout=60)
    assert report.returncode == 0, report.stderr
    overall = json.loads(report.stdout)["overall"]
    assert (overall["connections"], overall["requests"]) == (1, 3)
    assert overall["requests_per_connection"] == 3.0
    assert overall["protocols"] == {version.group(1): {"count": 1, "share": 1.0}}
