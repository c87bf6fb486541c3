"""0-RTT replays on real nginx (issue 44): what NGX713 says is what a backend sees.

nginx (`ssl_early_data on`, one worker) passes requests to a plain HTTP backend that records
each request it receives with its headers. `openssl s_client` takes a session, then sends a
POST in the early data of that session to a listener that records the bytes and never answers:
the ClientHello and the early data, what anyone on the path sees. Those bytes are sent to nginx
twice, as an attacker replays them (nginx turns OpenSSL's anti-replay off; the handshake never
completes, so the request is in early data each time). Three trees:

- `copied`: `$ssl_early_data` only in a response header and a log_format (the Mattermost
  pattern, and nginxgen's own log format): the backend runs the POST twice and nothing tells it
  the request came in early data. NGX713 reports it.
- `passed`: `proxy_set_header Early-Data $ssl_early_data`: the backend runs it twice too, but
  is told (`Early-Data: 1`, RFC 8470) and can answer 425. Not reported.
- `refused`: `if ($ssl_early_data) { return 425; }`: nginx answers 425 and the backend sees
  nothing. Not reported.
- `nested`: the same `if` in `location /`, the POST answered by its nested `location /pay`:
  rewrite directives are not inherited, the `if` never runs, the backend runs the POST twice.
  NGX713 reports it.

nginx's access log (`$request_method $status $ssl_early_data`) confirms each replay was taken
as early data.
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.every_rule import lint_checked
from tests.helpers import make_cert
from tests.live import Server, free_port, prepare_prefix, s_client

BODY = "pay=1"
REQUEST = (
    "POST /pay HTTP/1.1\r\nHost: a.test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    f"Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n{BODY}"
)
LOCATIONS = {
    "copied": "add_header X-Early-Data $ssl_early_data always; "
    "location / {{ proxy_pass http://127.0.0.1:{backend}; }}",
    "passed": "location / {{ proxy_pass http://127.0.0.1:{backend}; "
    "proxy_set_header Early-Data $ssl_early_data; }}",
    "refused": "location / {{ if ($ssl_early_data) {{ return 425; }} "
    "proxy_pass http://127.0.0.1:{backend}; }}",
    "nested": "location / {{ if ($ssl_early_data) {{ return 425; }} "
    "location /pay {{ proxy_pass http://127.0.0.1:{backend}; }} }}",
}


@dataclass
class Seen:
    """Each request the backend received: (method, path, its Early-Data header or None)."""

    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def backend() -> Iterator[tuple[int, Seen]]:
    """A plain HTTP/1.1 backend on loopback that records every request; stopped on exit."""
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            with seen.lock:
                seen.requests.append((self.command, self.path, self.headers.get("Early-Data")))
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"ok\n")

        do_GET = do_POST = _record

        def log_message(self, *_: object) -> None:
            pass

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield port, seen
    server.shutdown()
    server.server_close()


def first_flight(client: Build, session: Path, early: Path) -> bytes:
    """What a client resuming `session` sends before the server answers: its ClientHello and
    `early` as early data, recorded by a listener that never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        args = ["s_client", "-connect", f"127.0.0.1:{port}", "-servername", "a.test", "-tls1_3"]
        args += ["-sess_in", str(session), "-early_data", str(early)]
        command = [*(client.openssl_argv or ()), *args]
        with subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=client.env(),
        ) as process:  # fmt: skip
            conn, _ = listener.accept()
            conn.settimeout(1)
            data = b""
            with conn:
                try:
                    while chunk := conn.recv(65536):
                        data += chunk
                except TimeoutError:
                    pass  # the client waits for the server's answer: its flight is complete
            process.kill()
    return data


def replay(port: int, flight: bytes) -> None:
    """Send recorded bytes to nginx and read what it answers until it closes (or 2 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
        conn.sendall(flight)
        try:
            while conn.recv(65536):
                pass
        except TimeoutError:
            pass


def wait_for_lines(log: Path, count: int) -> list[str]:
    """The access log's lines once it has `count` (3 s at most)."""
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= count:
            return lines
        time.sleep(0.05)
    return lines


def tree(folder: Path, kind: str, port: int, backend: int, build: Build) -> Path:
    pair = make_cert(folder, "a.test")
    body = LOCATIONS[kind].format(backend=backend)
    conf = folder / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        "log_format tls '$request_method $status $ssl_early_data';\n"
        f"server {{ listen 127.0.0.1:{port} ssl default_server; server_name a.test;\n"
        f"  ssl_certificate {pair.cert}; ssl_certificate_key {pair.key};\n"
        "  ssl_protocols TLSv1.2 TLSv1.3; ssl_early_data on; access_log tls.log tls;\n"
        f"  {body}\n}}\n}}\n"
    )
    prepare_prefix(conf, build, workers=1)  # one worker: its ticket keys take the session back
    return conf


@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel"], indirect=True)
@pytest.mark.parametrize("kind", sorted(LOCATIONS))
def test_a_replayed_early_data_request_reaches_the_backend_as_ngx713_says(
    build: Build,
    client: Build,
    kind: str,
    backend: tuple[int, Seen],
    tmp_path: Path,
) -> None:
    backend_port, seen = backend
    port = free_port()
    conf = tree(tmp_path, kind, port, backend_port, build)
    found = lint_checked(load_path(str(conf)), resolve(build.nginx_version, build.tls_library))
    reported = [f for f in found if f.code == "NGX713"]
    early = tmp_path / "early.txt"
    early.write_text(REQUEST)
    session = tmp_path / "session.pem"
    log = tmp_path / "tls.log"
    with Server(build, conf, [port]):
        first = s_client(client, port, "a.test", version="1.3", sess_out=session)
        assert first.ok and session.exists(), first.output[-1500:]
        with seen.lock:
            seen.requests.clear()  # the GET that took the session
        flight = first_flight(client, session, early)
        for _ in range(2):
            replay(port, flight)
        logged = wait_for_lines(log, 3)  # the GET, then each replay
    with seen.lock:
        received = list(seen.requests)
    status = "425" if kind == "refused" else "200"
    assert logged[1:] == [f"POST {status} 1"] * 2, logged  # both replays taken as early data
    if kind == "refused":
        assert received == [] and reported == [], (received, reported)
        return
    assert len(received) == 2, received  # the POST ran twice
    assert all(method == "POST" for method, _, _ in received), received
    told = [header for _, _, header in received]
    if kind == "passed":
        assert told == ["1", "1"] and reported == [], (told, reported)
    else:  # copied into a response header and a log line, or an if that never runs
        assert told == [None, None], told
        assert len(reported) == 1 and "proxy_pass" in reported[0].message, reported
