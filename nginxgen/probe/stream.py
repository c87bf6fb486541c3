"""`nginxgen probe HOST --config nginx.conf --stream`: every stream{} listener of the config that
ends TLS, probed on HOST, and per name the protocols, groups and certificate compared with the
stream model's answers (nginxgen/conf/stream.py).

A stream listener is probed without SNI and, where stream has virtual servers (nginx 1.25.5+),
with each literal server_name of its servers: the name selects the server whose certificate is
sent, while the default server of the address decides the groups and, before nginx 1.29.2, the
protocols (knowledge: default_server_only, `stream` entries). Only the checks that speak TLS
alone run: a stream server answers with whatever its proxy_pass or return sends, not HTTP. With
`--ech-config`, Encrypted Client Hello too, per name (the default server's ssl_ech_file decides
in stream{} as in http{}: scripts/ech_nginx_proof.py).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from nginxgen.base.ech_configs import EchConfig
from nginxgen.base.records import record
from nginxgen.base.sockets import address_text, socket_answering
from nginxgen.conf.config import Config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import by_name, tls_socket_for_port
from nginxgen.conf.stream import Stream
from nginxgen.knowledge.target import Target
from nginxgen.probe.check import Check
from nginxgen.probe.checks import certificate, ech, groups, protocols
from nginxgen.probe.predict import compare_model
from nginxgen.probe.run import CONCURRENT, probe_name

CHECKS: tuple[Check, ...] = (protocols, groups, certificate, ech)


@record(frozen=True)
class Listener:
    """One stream address:port nginx ends TLS on, and the names to ask it for."""

    socket: str
    port: int
    names: tuple[str | None, ...]  # None: no SNI


def listeners(stream: Stream) -> list[Listener]:
    """The stream TLS listeners of the config with their names: no SNI, and each literal
    server_name (no wildcard, no regular expression) where a name selects a server."""
    out = []
    for socket, servers in stream.config.sockets.items():
        if not stream.config.tls_socket(socket):
            continue
        names: list[str | None] = []
        if by_name(stream.effective):
            literal = (
                n for s in servers for n in s.names if n and not n.startswith(("~", "*", "."))
            )
            names = list(dict.fromkeys(n for n in literal if not n.endswith(".*") and n != "_"))
        out.append(Listener(socket, int(socket.rsplit(":", 1)[1]), (*names, None)))
    return out


def probe_stream(
    config: Config,
    target: Target,
    host: str,
    connect: str | None,
    timeout: float,
    offer: EchConfig | Literal["grease"] | None = None,
    names: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Each stream TLS port of `config`, each name of its listener and each of `names` (--sni),
    probed on `connect` or `host` and compared with the stream model: every result has `port`,
    `mismatches` and `config` (the model's value of each observed setting), as `probe --config`
    gives them. A port with listeners on several addresses is asked once, of the listener
    that answers a connection to that address (trial 16: `listen 127.0.0.1:N ssl; listen
    [::1]:N ssl;` was probed twice on 127.0.0.1)."""
    stream = Stream(Effective(config, target))
    address = connect or host
    by_port: dict[int, list[Listener]] = {}
    for listener in listeners(stream):
        by_port.setdefault(listener.port, []).append(listener)
    asked = []
    for found in by_port.values():
        socket = socket_answering([listener.socket for listener in found], address)
        listener = next(listener for listener in found if listener.socket == socket)
        for name in dict.fromkeys((*names, *listener.names)):
            asked.append((listener, name))
    return _probe(stream, asked, address, timeout, offer)


@record(frozen=True)
class StreamPort:
    """A port the config serves with TLS in stream{} and not in http{}: its listener there,
    and the line that says so."""

    stream: Stream
    socket: str
    listen: Stmt

    @property
    def why(self) -> str:
        where = f"{self.listen.file}:{self.listen.line}"
        listened = address_text(self.socket)
        return f"{listened} is a TLS listen of stream{{}} in the config ({where}), not of http{{}}"


def stream_port(config: Config, target: Target, port: int, host: str | None) -> StreamPort | None:
    """The stream{} TLS listener that answers a connection to `host` on `port`, where no
    http{} TLS listener does (the port is stream's: a client there gets no HTTP); None
    otherwise. `probe HOST:PORT --config` probes such a port as `--stream` does."""
    if tls_socket_for_port(config, port, host) is not None:
        return None
    stream = Stream(Effective(config, target))
    socket = tls_socket_for_port(stream.config, port, host)
    if socket is None:
        return None
    listen = next(
        lst.stmt
        for server in stream.config.sockets[socket]
        for lst in server.listens
        if lst.socket == socket and lst.ssl
    )
    return StreamPort(stream, socket, listen)


def probe_stream_port(
    found: StreamPort,
    names: list[str | None],
    address: str,
    timeout: float,
    offer: EchConfig | Literal["grease"] | None = None,
) -> list[dict[str, Any]]:
    """`names` probed on a stream port (stream_port) as `--stream` probes them, each result
    saying why (`probed_as`)."""
    listener = Listener(found.socket, int(found.socket.rsplit(":", 1)[1]), tuple(names))
    results = _probe(found.stream, [(listener, name) for name in names], address, timeout, offer)
    for result in results:
        result["probed_as"] = f"stream: {found.why}"
    return results


def _probe(
    stream: Stream,
    asked: list[tuple[Listener, str | None]],
    address: str,
    timeout: float,
    offer: EchConfig | Literal["grease"] | None,
) -> list[dict[str, Any]]:
    """Each (listener, name) probed on `address` with the checks that speak TLS alone, and
    compared with the stream model."""

    def one(item: tuple[Listener, str | None]) -> dict[str, Any]:
        listener, name = item
        found = probe_name((address, listener.port), name, timeout, offer, run=CHECKS,
                           library=stream.target.library, http=False)  # fmt: skip
        found["port"] = listener.port
        found["mismatches"], found["config"] = compare_model(
            stream.tls(listener.socket, name), found, CHECKS
        )
        return found

    if not asked:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(CONCURRENT, len(asked)))) as pool:
        return list(pool.map(one, asked))
