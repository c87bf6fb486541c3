"""TLS towards backends on real nginx (issue 38): nginx on loopback passes to TLS backends that
record what each handshake showed them (the SNI, the protocol) and how many handshakes there
were; for every location the observed status (200 or 502), SNI, protocol and connection reuse
must be what the model (conf/upstream) predicts for that location, and lint's NGX803 must name
exactly the locations that fail for an upstream block's name.

The backends: A serves a certificate for backend.test from the CA nginx trusts; B the same
name from a CA nginx does not trust. Names reach a backend only through upstream{} blocks
(nginx resolves a URL's literal host name when it reads the config)."""

from __future__ import annotations

import ssl
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.upstream import BackendTls
from nginxgen.knowledge.target import resolve
from nginxgen.lint.context import Context
from nginxgen.lint.rules import catalog
from tests.builds import Build
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory

BACKEND = "backend.test"  # the name on both backends' certificates


@dataclass
class Seen:
    """What one backend saw, in order: the SNI of each ClientHello (None: none sent), and the
    protocol of each connection that got as far as a request handler."""

    hellos: list[str | None] = field(default_factory=list)
    protocols: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def settle(self) -> None:
        """Wait (2 s at most) until every connection whose ClientHello was seen has reached a
        handler, so that none of this case's is recorded in the next case's lists."""
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.protocols) >= len(self.hellos):
                    return
            time.sleep(0.02)

    def clear(self) -> None:
        with self.lock:
            self.hellos.clear()
            self.protocols.clear()


class Backend:
    """A TLS HTTP/1.1 server on loopback (Python's ssl: a real OpenSSL handshake) that records
    each handshake's SNI and protocol; stopped on exit."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.seen = Seen()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        seen = self.seen

        def on_name(_sock: ssl.SSLObject, name: str | None, _: ssl.SSLContext) -> None:
            # called once per ClientHello, with None when no SNI was sent; recorded here, in
            # the handshake, because after a failed verification nginx answers 502 before a
            # handler thread would run
            with seen.lock:
                seen.hellos.append(name)

        context.sni_callback = on_name

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keeps the connection when nginx asks for it

            def setup(self) -> None:
                super().setup()
                with seen.lock:
                    seen.protocols.append(self.connection.version())

            def do_GET(self) -> None:
                body = b"ok\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, *_: object) -> None:
                pass  # nginx closing after a failed verification is expected here

        self.port = free_port()
        self.server = Quiet(("127.0.0.1", self.port), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Backend:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass(frozen=True)
class Case:
    path: str
    lines: str  # the location's lines
    upstream: str | None = None  # an upstream{} block's name, its server the backend below
    backend: str = "A"
    requests: int = 1
    block: str = ""  # the upstream{} block's lines beside its server


VERIFY = "proxy_ssl_verify on; proxy_ssl_trusted_certificate {ca};"
NAMED = "proxy_ssl_name backend.test;"
# Each block serves one location: from 1.29.7 every block keeps connections, and a kept one
# would serve the next location without a handshake to observe.
CASES = (
    # verify off: any certificate will do, and no SNI by default
    Case("/off/", "proxy_pass https://127.0.0.1:{B}/;", backend="B"),
    # verify on, right CA, the default name is the block's, which the certificate covers
    Case("/right/", f"proxy_pass https://backend.test/; {VERIFY}", upstream=BACKEND),
    Case("/sni/", f"proxy_pass https://sni/; {VERIFY} {NAMED} proxy_ssl_server_name on;",
         upstream="sni"),
    # a CA nginx does not trust: 502
    Case("/untrusted/", f"proxy_pass https://untrusted/; {VERIFY} {NAMED}", upstream="untrusted",
         backend="B"),
    # the default name is the block's: "backend" is not on the certificate (502)
    Case("/block/", f"proxy_pass https://backend/; {VERIFY} proxy_ssl_server_name on;",
         upstream="backend"),
    # an address literal is never sent as SNI, and is not the certificate's name
    Case("/address/", f"proxy_pass https://127.0.0.1:{{A}}/; {VERIFY} proxy_ssl_server_name on;"),
    # the protocol offered: TLS 1.2 only
    Case("/tls12/", "proxy_pass https://127.0.0.1:{A}/; proxy_ssl_protocols TLSv1.2;"),
    # connections kept: an upstream block with keepalive, HTTP/1.1, no Connection header
    Case("/kept/", "proxy_pass https://kept/; proxy_http_version 1.1;"
         ' proxy_set_header Connection "";', upstream="kept", requests=3, block=" keepalive 4;"),
    # a balancing method below keepalive takes its place before 1.29.7; above it, both stand
    Case("/dropped/", "proxy_pass https://dropped/; proxy_http_version 1.1;"
         ' proxy_set_header Connection "";', upstream="dropped", requests=3,
         block=" keepalive 4; least_conn;"),
    Case("/method-first/", "proxy_pass https://method-first/; proxy_http_version 1.1;"
         ' proxy_set_header Connection "";', upstream="method-first", requests=3,
         block=" least_conn; keepalive 4;"),
    # a block without keepalive lines: kept from 1.29.7 only
    Case("/pooled/", "proxy_pass https://pooled/;", upstream="pooled", requests=3),
    # a literal address is an implicit upstream: never kept, on every release
    Case("/implicit/", "proxy_pass https://127.0.0.1:{A}/;", requests=3),
    # the URL from a variable `set` gives (a trial of public configs: NGX801 was silent)
    Case("/variable/", "set $backend https://127.0.0.1:{B}; proxy_pass $backend;", backend="B"),
)  # fmt: skip


def write(folder: Path, build: Build, ports: dict[str, int], ca: Path) -> tuple[Path, int]:
    port = free_port()
    text = ["worker_processes 1;", "events { worker_connections 64; }", "http {"]
    for case in CASES:
        if case.upstream:
            server = f"server 127.0.0.1:{ports[case.backend]};"
            text.append(f"    upstream {case.upstream} {{ {server}{case.block} }}")
    text += ["    server {", f"        listen 127.0.0.1:{port};"]
    for case in CASES:
        lines = case.lines.format(ca=ca, **{k: str(v) for k, v in ports.items()})
        text.append(f"        location {case.path} {{ {lines} }}")
    text += ["    }", "}"]
    conf = folder / "nginx.conf"
    conf.write_text("\n".join(text) + "\n")
    prepare_prefix(conf, build, workers=1)
    return conf, port


def get(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def predicted_status(backend: BackendTls, trusted: bool) -> int:
    """What the model says nginx answers: 200 unless verification is on and the backend's
    certificate is from another CA or not for the name nginx verifies (502)."""
    if not backend.verify().value:
        return 200
    return 200 if trusted and backend.name().value == BACKEND else 502


@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel"], indirect=True)
def test_backend_tls_as_the_model_predicts(build: Build, tmp_path: Path) -> None:
    trusted = CertificateFactory(tmp_path / "ca").leaf(BACKEND)
    stranger = CertificateFactory(tmp_path / "other-ca").leaf(BACKEND)
    with (
        Backend(trusted.fullchain, trusted.key) as a,
        Backend(stranger.fullchain, stranger.key) as b,
    ):
        backends = {"A": a, "B": b}
        ports = {name: x.port for name, x in backends.items()}
        conf, port = write(tmp_path, build, ports, trusted.root)
        target = resolve(build.nginx_version, build.tls_library)
        config = build_config(load_path(str(conf)))
        model = {x.location.stmt.args[-1]: x for x in Effective(config, target).backends()}
        assert sorted(model) == sorted(c.path for c in CASES)
        observed: dict[str, tuple[list[int], list[str | None], list[str | None]]] = {}
        with Server(build, conf, [port]):
            for case in CASES:
                seen = backends[case.backend].seen
                seen.clear()
                statuses = [get(port, case.path) for _ in range(case.requests)]
                seen.settle()
                with seen.lock:
                    observed[case.path] = (statuses, list(seen.hellos), list(seen.protocols))
    for case in CASES:
        backend = model[case.path]
        statuses, hellos, protocols = observed[case.path]
        status = predicted_status(backend, trusted=case.backend == "A")
        assert statuses == [status] * case.requests, (case.path, build.name)
        assert hellos, (case.path, "the backend saw no handshake")
        assert hellos[0] == backend.sni(), (case.path, build.name)
        if status == 200:  # a connection that reached the handler: its protocol, its reuse
            best = "TLSv1.3" if "TLSv1.3" in backend.protocols().value else "TLSv1.2"
            assert protocols[0] == best, (case.path, build.name)
            kept = backend.keepalive().kept
            if kept is None:  # a URL from a variable: its upstream is known per request
                assert case.path == "/variable/", (case.path, build.name)
            else:
                assert len(hellos) == (1 if kept else case.requests), (case.path, build.name)
    # lint names the one location that fails for an upstream block's name, and no other
    lines = conf.read_text().splitlines()
    context = Context(config, target, build_fixes=False)
    found = [f for f in catalog()["NGX803"].check(context)]
    assert [lines[f.line - 1].split("{")[0].strip() for f in found] == ["location /block/"]
    # ... and NGX801 every location whose backend's certificate nginx did not verify
    unverified = {
        lines[f.line - 1].split("{")[0].strip() for f in catalog()["NGX801"].check(context)
    }
    assert unverified == {f"location {p}" for p, x in model.items() if not x.verify().value}
    assert "location /variable/" in unverified
