"""Issue 44, trial 7 (F2): a page that answers slowly is not a failed handshake. Authelia's
config proxies `/` to `$backend` through a resolver that never answers: nginx answers 502 after
30 s, while the TLS handshake completes at once (curl's time_appconnect: 7 ms). The probe said
"full handshake failed: The read operation timed out", INCONCLUSIVE, and skipped every check
after it (resumption, HSTS, what a client without a certificate gets).

Here `location = /` is proxied to a backend that accepts and never answers, and the probe's
--timeout is 2 s. Everything that depends only on the handshake (protocols, the certificate,
the CertificateRequest and its CA names, resumption) is observed and equals what `openssl
s_client` sees; the missing page, which another location answers, is checked (HSTS, as curl
shows it); `/` is "not checked" with what happened to it, which curl confirms: the handshake
completed and no answer came within 2 s."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from nginxgen.probe.check import MISSING_PAGE
from nginxgen.probe.run import text_report
from tests.builds import REPO, Build
from tests.live import Server, free_port, parse_s_client, prepare_prefix
from tests.pki import CertificateFactory, _pem

TIMEOUT = 2
HSTS = "max-age=63072000"
NO_ANSWER = f"GET / got no answer in {TIMEOUT} s (the handshake completed)"


def _conf(tmp_path: Path, build: Build, port: int, backend: int) -> Path:
    pki = CertificateFactory(tmp_path / "pki")
    leaf = pki.leaf("slow.example", sans=("slow.example",))
    ca = tmp_path / "clients-ca.pem"
    ca.write_bytes(_pem(pki.intermediate) + _pem(pki.root))
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"server {{\n listen 127.0.0.1:{port} ssl;\n server_name slow.example;\n"
        f" ssl_certificate {leaf.fullchain}; ssl_certificate_key {leaf.key};\n"
        " ssl_protocols TLSv1.2 TLSv1.3;\n ssl_session_cache shared:S:1m;\n"
        f" ssl_verify_client optional; ssl_client_certificate {ca};\n"
        f' add_header Strict-Transport-Security "{HSTS}" always;\n'
        f" location = / {{ proxy_pass http://127.0.0.1:{backend}; }}\n"
        " location = /fast { return 204; }\n"
        " location / { return 404; }\n"
        "}\n}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return conf


def _curl(port: int, path: str) -> tuple[int, str]:
    """(curl's exit code, its `-w` line: TLS done after, status) for one GET, at most TIMEOUT s;
    the response head is printed first."""
    done = subprocess.run(
        ["curl", "-sk", "--http1.1", "-o", "/dev/null", "-D", "-", "--max-time", str(TIMEOUT),
         "--resolve", f"slow.example:{port}:127.0.0.1", "-w", "%{time_appconnect} %{http_code}",
         f"https://slow.example:{port}{path}"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout


def _s_client(client: Build, port: int, *args: str, path: str | None = "/fast") -> str:
    """One s_client handshake; with `path`, a request for it (the server then closes, so the
    TLS 1.3 tickets have been read)."""
    argv = ["s_client", "-connect", f"127.0.0.1:{port}", "-servername", "slow.example", *args]
    if path is None:
        return client.openssl(*argv).stdout
    request = f"GET {path} HTTP/1.1\r\nHost: slow.example\r\nConnection: close\r\n\r\n"
    return client.openssl(*argv, "-ign_eof", stdin=request).stdout


def _oracle(client: Build, port: int, tmp_path: Path) -> dict[str, Any]:
    """What s_client sees of the handshake (its requests only to the page that answers)."""
    session = str(tmp_path / "session.pem")
    seen: dict[str, Any] = {}
    for version in ("1.2", "1.3"):
        seen[f"TLSv{version}"] = parse_s_client(
            _s_client(client, port, f"-tls{version.replace('.', '_')}")
        ).ok
    ways = {"session_id_resumed": ("-tls1_2", "-no_ticket"), "tls12_ticket_resumed": ("-tls1_2",),
            "tls13_psk_resumed": ("-tls1_3",)}  # fmt: skip
    for key, args in ways.items():
        _s_client(client, port, *args, "-sess_out", session)
        again = _s_client(client, port, *args, "-sess_in", session, path=None)
        seen[key] = parse_s_client(again).reused
    listed = _s_client(client, port, "-msg").split("Acceptable client certificate CA names\n", 1)
    names = []
    for line in listed[1].splitlines() if len(listed) == 2 else []:
        if not re.match(r"^[A-Za-z]+ ?=", line):
            break
        names.append(line.replace(" = ", "="))
    seen["ca_names"] = names
    return seen


@pytest.mark.parametrize("build", ["trixie", "bookworm"], indirect=True)
def test_a_slow_page_is_not_a_failed_handshake(build: Build, client: Build, tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as backend:  # the kernel accepts its connections; it never answers
        backend.bind(("127.0.0.1", 0))
        backend.listen(64)
        conf = _conf(tmp_path, build, port, backend.getsockname()[1])
        with Server(build, conf, [port]):
            started = time.monotonic()
            done = subprocess.run(
                [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--sni",
                 "slow.example", "--config", str(conf), "--timeout", str(TIMEOUT), "--format",
                 "json", *build.target_flags],
                capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
            )  # fmt: skip
            took = time.monotonic() - started
            seen = _oracle(client, port, tmp_path)
            slow = _curl(port, "/")
            missing = _curl(port, MISSING_PAGE)
    # curl: the handshake completed, and / gave no answer within TIMEOUT (exit 28)
    assert slow[0] == 28 and slow[1].endswith(" 000"), slow
    assert float(slow[1].split()[0]) > 0, slow
    assert missing[0] == 0 and missing[1].endswith(" 404"), missing
    assert f"strict-transport-security: {HSTS}" in missing[1].lower(), missing
    results = json.loads(done.stdout)
    found = next(r for r in results if r["sni"] == "slow.example")
    assert "error" not in found, found.get("error")
    assert found["protocols"]["TLSv1.2"] == seen["TLSv1.2"] is True
    assert found["protocols"]["TLSv1.3"] == seen["TLSv1.3"] is True
    assert found["certificate"]["subject"] == "CN=slow.example"
    asked = found["client_certificate"]
    assert asked["requested"] is True
    assert asked["ca_names"] == seen["ca_names"] != [], (asked, seen)
    assert asked["without"] is None and asked["status_without"] is None, asked
    assert asked["not_checked"] == NO_ANSWER
    resumed = found["resumption"]
    for key in ("session_id_resumed", "tls12_ticket_resumed", "tls13_psk_resumed"):
        assert resumed[key] == seen[key] is True, (key, resumed, seen)
    hsts = found["hsts"]
    assert (hsts["root"], hsts["root_status"], hsts["root_not_checked"]) == (None, None, NO_ANSWER)
    assert (hsts["not_found"], hsts["not_found_status"]) == (HSTS, 404), hsts
    assert hsts["not_found_not_checked"] is None
    # not checked is neither yes nor no: inconclusive (exit 1), and nothing contradicts the
    # config
    assert found["mismatches"] == [], found["mismatches"]
    assert found["inconclusive"] == [f"client certificate, without one: {NO_ANSWER}",
                                     f"HSTS on /: {NO_ANSWER}"]  # fmt: skip
    assert done.returncode == 1, done.stderr
    text = text_report(results)
    assert "handshake failed" not in text and "status None" not in text, text
    assert f"HSTS on /: not checked ({NO_ANSWER}), on a 404: {HSTS}" in text, text
    assert f"without one: not checked ({NO_ANSWER})" in text, text
    # each unanswered page cost one wait, not one per check that reads it: the TLS 1.3
    # connection that asked for it, and resumption's first connections (the request there
    # is what makes a TLS 1.3 server send its tickets)
    assert took < 12 * TIMEOUT, took
