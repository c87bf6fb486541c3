"""A recording HTTP/2 over TLS backend on loopback (what a gRPC server sees): per request, the
SNI of its connection and the request's header list as it came off the wire, pseudo-headers
included, so a test can tell `:authority` from a `host` header. It answers every request with
a trailers-only gRPC OK. The HTTP/2 framing and HPACK are the h2 library's (the same code as
hyper's and httpx's clients), not ours."""

from __future__ import annotations

import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

import h2.config
import h2.connection
import h2.events

from tests.live import free_port


@dataclass(frozen=True)
class Seen:
    """One request: the SNI of its connection (None: the client sent none) and its headers."""

    sni: str | None
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]


class RecordingH2Backend:
    """`with RecordingH2Backend(cert, key) as backend:` listens on 127.0.0.1:backend.port until
    the block ends; backend.seen holds the requests in the order they arrived."""

    def __init__(self, fullchain: Path, key: Path) -> None:
        self.port = free_port()
        self.seen: list[Seen] = []
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(fullchain, key)
        self._context.set_alpn_protocols(["h2"])
        self._context.sni_callback = self._sni
        self._names: dict[int, str | None] = {}
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def _sni(self, sock: ssl.SSLObject | ssl.SSLSocket, name: str | None, _: object) -> None:
        self._names[id(sock)] = name

    def __enter__(self) -> RecordingH2Backend:
        accepting = threading.Thread(target=self._accept, daemon=True)
        accepting.start()
        self._threads.append(accepting)
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                raw, _ = self._listener.accept()
            except TimeoutError:
                continue
            serving = threading.Thread(target=self._serve, args=(raw,), daemon=True)
            serving.start()
            self._threads.append(serving)

    def _serve(self, raw: socket.socket) -> None:
        raw.settimeout(5)  # the handshake
        try:
            with self._context.wrap_socket(raw, server_side=True) as tls:
                tls.settimeout(0.2)  # then wake up to see whether the test has ended
                self._converse(tls, self._names.pop(id(tls), None))
        except (OSError, ssl.SSLError):
            return  # a client that gave up (nginx -t's checks, a refused handshake)

    def _converse(self, tls: ssl.SSLSocket, sni: str | None) -> None:
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        conn = h2.connection.H2Connection(config=config)
        conn.initiate_connection()
        tls.sendall(conn.data_to_send())
        while not self._stop.is_set():
            try:
                data = tls.recv(65535)
            except TimeoutError:
                continue
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived) and event.stream_id is not None:
                    pairs = tuple((str(k), str(v)) for k, v in event.headers or ())
                    self.seen.append(Seen(sni, pairs))
                    conn.send_headers(
                        event.stream_id,
                        [(":status", "200"), ("content-type", "application/grpc"),
                         ("grpc-status", "0")],
                        end_stream=True,
                    )  # fmt: skip
            tls.sendall(conn.data_to_send())
