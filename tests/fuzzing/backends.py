"""The model of nginx as a TLS client, and of client certificates, against live nginx (issue 38).

Backends: a second nginx of the same build (the backend pool, started once per build) serves
four kinds of backend on loopback, each answering `return 200` with what its side of the
handshake saw: the SNI (`$ssl_server_name`), the protocol, the connection (`$connection`,
`$connection_requests`) and whether the session was resumed (`$ssl_session_reused`):
`valid` (a certificate for backend.test from the test CA), `other` (for other.test, same CA),
`self` (a self-signed one for backend.test) and `sni` (one server per name: backend.test and
alt.test have their own certificates, every other SNI or none gets default.test's).

A random front tree passes each of its locations to one of them, through an upstream{} block
(with or without `keepalive`) or a literal address, with `proxy_ssl_verify`,
`_trusted_certificate` (the test CA, a CA nobody used, the self-signed certificate),
`_verify_depth`, `_name`, `_server_name`, `_protocols`, `_session_reuse`, `proxy_http_version`
and `proxy_set_header` drawn at http{}, server and location level. Each location gets two
requests. Oracle, per location, from what the backend echoed (not from nginxgen's probe): the
status (200, or 502 where verification fails), the SNI the backend saw, the protocol, whether the
second request came on the first one's connection, and, on a new connection, whether the
session was resumed, each equal to what the model (conf/upstream.py, `Effective.backends()`)
predicts with the backend's certificate as the case made it.

Client certificates: the same tree has 2-4 TLS servers on one port with `ssl_verify_client`
(off, on, optional, optional_no_ca) and its CA files drawn at http{} and server level. Python's
ssl module (OpenSSL, not nginxgen) connects with each server's name as SNI, with no SNI and with
an unknown one; without a client certificate, with one the test CA issued and with one a
stranger CA issued; and sends two requests on the connection: the Host of the SNI, then the
Host of another server. Oracle: each status (200, 400, 421) and which 400 (no certificate, or a
certificate error), and the server that answered a 200, as conf/client_certs.py's
`request_outcome` says.

Every upstream{} block serves one location, and each literal-address pass has a loopback
address of its own: nginx keeps connections and TLS sessions per upstream peer, so two
locations sharing one would reuse each other's connection (with its SNI) or session.
"""

from __future__ import annotations

import collections
import http.client
import socket
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from nginxgen.base.version import Version
from nginxgen.conf.backend_pools import shared_pools
from nginxgen.conf.client_certificates import ClientCertificates, request_outcome
from nginxgen.conf.config import Config
from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.upstream import BackendTls
from nginxgen.knowledge.target import resolve
from nginxgen.knowledge.upstream import upstream_keepalive_defaults
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.helpers import make_cert
from tests.live import Server, distinct_ports, nginx_check, prepare_prefix
from tests.pki import CertificateFactory, Chain

VARIANTS = ("valid", "other", "self", "sni")
# the loopback addresses each backend listens on: upstream{} blocks use the first, the literal
# address of location i is the (i + 1)th, so that no two locations share a peer
ADDRESSES = tuple(f"127.0.0.{n}" for n in range(1, 9))
MAX_LOCATIONS = len(ADDRESSES) - 1
KEEPALIVE = upstream_keepalive_defaults(resolve("1.31.3", "openssl-3.5.0"))  # local_since
SNI_SERVERS = ("backend.test", "alt.test")  # the `sni` backend's named servers
ECHO = "$ssl_server_name|$ssl_protocol|$connection|$connection_requests|$ssl_session_reused"

# the lines of the front tree drawn at http{}, server and location level ({ca}: a trust file)
TLS_LINES = {
    "proxy_ssl_verify": ("on", "off"),
    "proxy_ssl_trusted_certificate": ("{ca}", "{stranger}", "{self}"),
    "proxy_ssl_verify_depth": ("0", "1", "2"),
    "proxy_ssl_name": (
        "backend.test",
        "alt.test",
        "other.test",
        "$proxy_host",
        "nomatch.test",
        "backend.test:8443",
    ),  # nginx strips the port
    "proxy_ssl_server_name": ("on", "off"),
    "proxy_ssl_protocols": ("TLSv1.2", "TLSv1.3", "TLSv1.2 TLSv1.3", "TLSv1.1 TLSv1.2"),
    "proxy_ssl_session_reuse": ("on", "off"),
    "proxy_http_version": ("1.0", "1.1"),
}
HEADERS = ('proxy_set_header Connection "";', "proxy_set_header Connection close;",
           "proxy_set_header Connection keep-alive;", "proxy_set_header X-Fuzz 1;")  # fmt: skip
BLOCK_NAMES = ("backend.test", "alt.test", "other.test")  # else pool{i}

CLIENT_NAMES = ("c0.test", "c1.test", "c2.test", "c3.test")
MODES = ("off", "on", "optional", "optional_no_ca")
CLIENT_LINES = {
    "ssl_verify_client": MODES,
    "ssl_client_certificate": ("{ca}", "{stranger}"),
    "ssl_trusted_certificate": ("{ca}", "{stranger}"),
}
UNKNOWN_NAME = "unknown.test"
CLIENTS = ("none", "trusted", "stranger")  # the client certificate a connection offers


@dataclass(frozen=True)
class Pass:
    """One location of the front tree and the backend it passes to."""

    variant: str
    block: str | None  # an upstream{} block's name; None: the backend's literal address
    keepalive: str | None  # the block's keepalive arguments (None: no line)
    server: int  # the front server it is in
    lines: tuple[str, ...]


@dataclass(frozen=True)
class BackendTree:
    http: tuple[str, ...]
    servers: tuple[tuple[str, ...], ...]  # each front server's own lines
    passes: tuple[Pass, ...]
    client_http: tuple[str, ...]  # client-certificate lines at http{} level
    tls: tuple[tuple[str, ...], ...]  # each TLS server's client-certificate lines
    tls_default: int | None  # the TLS socket's explicit default server


def _lines(draw: st.DrawFn, pool: dict[str, tuple[str, ...]], odds: int) -> list[str]:
    return [
        f"{directive} {draw(st.sampled_from(values))};"
        for directive, values in pool.items()
        if draw(st.integers(0, odds)) == 0
    ]


def _front_lines(draw: st.DrawFn, odds: int) -> tuple[str, ...]:
    lines = _lines(draw, TLS_LINES, odds)
    if draw(st.integers(0, odds)) == 0:
        lines.append(draw(st.sampled_from(HEADERS)))
    return tuple(lines)


@st.composite
def backend_trees(draw: st.DrawFn) -> BackendTree:
    http = list(_front_lines(draw, 3))
    has_ca = any(line.startswith("proxy_ssl_trusted_certificate") for line in http)
    if not has_ca and draw(st.integers(0, 7)) > 0:  # verify on needs a CA: most trees have one
        http.append(f"proxy_ssl_trusted_certificate {draw(st.sampled_from(('{ca}', '{self}')))};")
    servers = tuple(_front_lines(draw, 4) for _ in range(draw(st.integers(1, 2))))
    names = list(BLOCK_NAMES)
    passes: list[Pass] = []
    for i in range(draw(st.integers(2, 6))):
        block: str | None = None
        if draw(st.booleans()):
            block = names.pop(draw(st.integers(0, len(names) - 1))) if names else f"pool{i}"
            if draw(st.booleans()):
                block = f"pool{i}"
        keepalive = draw(st.sampled_from((None, "2", "8", "8 local"))) if block else None
        variant = draw(st.sampled_from(VARIANTS))
        opened = [p for p in passes if p.block]
        if opened and draw(st.integers(0, 2)) == 0:  # a block another location passes to
            shared = draw(st.sampled_from(opened))
            block, keepalive, variant = shared.block, shared.keepalive, shared.variant
        lines = _front_lines(draw, 2)
        if block and draw(st.booleans()):  # what keepalive's docs ask for, half the time
            lines += ("proxy_http_version 1.1;", 'proxy_set_header Connection "";')
            lines = tuple(dict.fromkeys(
                line for line in lines
                if line.split()[0] not in ("proxy_http_version", "proxy_set_header")
                or line in ("proxy_http_version 1.1;", 'proxy_set_header Connection "";')
            ))  # fmt: skip
        passes.append(
            Pass(variant, block, keepalive, draw(st.integers(0, len(servers) - 1)), lines)
        )
    client_http = list(_lines(draw, CLIENT_LINES, 3))
    # servers without TLS inherit http{}'s lines too, and nginx -t holds them to the same rule
    # (the http{}-level certificate gives them a TLS context)
    verifying = any(line in ("ssl_verify_client on;", "ssl_verify_client optional;")
                    for line in client_http)  # fmt: skip
    listed = any(line.startswith("ssl_client_certificate") for line in client_http)
    if verifying and not listed and draw(st.integers(0, 7)) > 0:
        client_http.append("ssl_client_certificate {ca};")
    tls = []
    for _ in range(draw(st.integers(2, len(CLIENT_NAMES)))):
        own = _lines(draw, CLIENT_LINES, 1)
        # before nginx 1.27.2 `on` and `optional` need ssl_client_certificate (nginx -t): most
        # servers that verify have one, so that most trees run on every build
        listed = any(line.startswith("ssl_client_certificate") for line in (*own, *client_http))
        if not listed and draw(st.integers(0, 7)) > 0:
            own.append(f"ssl_client_certificate {draw(st.sampled_from(('{ca}', '{stranger}')))};")
        tls.append(tuple(own))
    tls_default = draw(st.one_of(st.none(), st.integers(0, len(tls) - 1)))
    return BackendTree(
        tuple(http), servers, tuple(passes), tuple(client_http), tuple(tls), tls_default
    )


# --- the backend pool ------------------------------------------------------------------------


@dataclass(frozen=True)
class Certificates:
    """The files of a run: the trust files a tree may name, and the client certificates."""

    trust: dict[str, Path]  # ca, stranger, self
    client: Chain  # issued by the test CA
    stranger_client: Chain  # issued by the stranger CA
    front: Chain  # the TLS servers' certificate, for every client-certificate name


def certificates(folder: Path) -> tuple[Certificates, CertificateFactory, Path]:
    pki = CertificateFactory(folder / "ca")
    stranger = CertificateFactory(folder / "stranger")
    self_signed = make_cert(folder / "self", "backend.test")
    made = Certificates(
        trust={"ca": pki.root_path, "stranger": stranger.root_path, "self": self_signed.cert},
        client=pki.leaf("client", client=True),
        stranger_client=stranger.leaf("stranger client", client=True),
        front=pki.leaf(CLIENT_NAMES[0], sans=(*CLIENT_NAMES[1:], UNKNOWN_NAME)),
    )
    return made, pki, self_signed.key


class BackendPool:
    """The four backends on one nginx of `build`, started on entry and stopped by its pid."""

    def __init__(self, build: Build, folder: Path) -> None:
        self.build = build
        self.files, pki, self_key = certificates(folder)
        self.ports = dict(zip(VARIANTS, distinct_ports(len(VARIANTS)), strict=True))
        leaves = {name: pki.leaf(name) for name in ("backend.test", "other.test", "alt.test",
                                                    "default.test")}  # fmt: skip

        def server(
            variant: str, cert: Path, key: Path, name: str = "", default: bool = False
        ) -> str:
            listen = "".join(
                f"listen {address}:{self.ports[variant]} ssl{' default_server' if default else ''}; "
                for address in ADDRESSES
            )
            named = f"server_name {name}; " if name else ""
            return (f"  server {{ {listen}{named}ssl_certificate {cert}; "
                    f"ssl_certificate_key {key}; location / {{ return 200 \"{ECHO}\"; }} }}\n")  # fmt: skip

        blocks = [
            server("valid", leaves["backend.test"].fullchain, leaves["backend.test"].key),
            server("other", leaves["other.test"].fullchain, leaves["other.test"].key),
            server("self", self.files.trust["self"], self_key),
            server("sni", leaves["default.test"].fullchain, leaves["default.test"].key,
                   default=True),
            *(server("sni", leaves[n].fullchain, leaves[n].key, n) for n in SNI_SERVERS),
        ]  # fmt: skip
        self.conf = folder / "backend" / "nginx.conf"
        self.conf.parent.mkdir(parents=True)
        self.conf.write_text(
            "worker_processes auto;\nevents {}\nhttp {\n  ssl_protocols TLSv1.2 TLSv1.3;\n"
            "  ssl_session_cache shared:B:1m;\n  keepalive_requests 10000;\n"
            + "".join(blocks) + "}\n"
        )  # fmt: skip
        prepare_prefix(self.conf, build, workers=1)
        self.server = Server(build, self.conf, list(self.ports.values()))

    def __enter__(self) -> BackendPool:
        self.server.__enter__()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()

    def certificate(self, variant: str, sni: str | None) -> tuple[str, str, int]:
        """The certificate the backend shows for `sni`: its name, the trust file that verifies
        it, and the verify depth it needs (CA certificates above it, the anchor not counted)."""
        if variant == "self":
            return "backend.test", "self", 0
        if variant == "sni":
            return (sni if sni in SNI_SERVERS else "default.test"), "ca", 1
        return ("backend.test" if variant == "valid" else "other.test"), "ca", 1


# --- one tree ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Written:
    conf: Path
    front: int  # the plain-HTTP port of the front servers (one per server, in order)
    fronts: tuple[int, ...]
    tls: int  # the port of the client-certificate servers


def _fill(line: str, files: Certificates) -> str:
    return line.format(**{k: str(v) for k, v in files.trust.items()})


def write(tree: BackendTree, folder: Path, build: Build, pool: BackendPool) -> Written:
    files = pool.files
    *fronts, tls = distinct_ports(len(tree.servers) + 1)
    text = ["worker_processes auto;", "events {}", "http {"]
    text += [f"  {_fill(line, files)}" for line in (*tree.http, *tree.client_http)]
    text.append(
        f"  ssl_certificate {files.front.fullchain}; ssl_certificate_key {files.front.key};"
    )
    for spec in {spec.block: spec for spec in reversed(tree.passes) if spec.block}.values():
        if spec.block:
            keepalive = spec.keepalive or ""
            if Version(build.nginx_version) < Version(KEEPALIVE.local_since):
                keepalive = keepalive.replace(" local", "")  # nginx -t would refuse it
            keep = f" keepalive {keepalive};" if keepalive else ""
            text.append(
                f"  upstream {spec.block} {{ server {ADDRESSES[0]}:{pool.ports[spec.variant]};{keep} }}"
            )
    for s, lines in enumerate(tree.servers):
        body = [f"listen 127.0.0.1:{fronts[s]};", *(_fill(line, files) for line in lines)]
        for i, spec in enumerate(tree.passes):
            if spec.server != s:
                continue
            host = spec.block or f"{ADDRESSES[i + 1]}:{pool.ports[spec.variant]}"
            inside = " ".join(_fill(line, files) for line in spec.lines)
            body.append(f"location /l{i}/ {{ proxy_pass https://{host}/; {inside} }}")
        text.append("  server {\n" + "".join(f"    {b}\n" for b in body) + "  }")
    for s, lines in enumerate(tree.tls):
        default = " default_server" if tree.tls_default == s else ""
        body = [f"listen 127.0.0.1:{tls} ssl{default};", f"server_name {CLIENT_NAMES[s]};",
                *(_fill(line, files) for line in lines),
                'location / { return 200 "$server_name $ssl_client_verify"; }']  # fmt: skip
        text.append("  server {\n" + "".join(f"    {b}\n" for b in body) + "  }")
    conf = folder / "nginx.conf"
    conf.write_text("\n".join([*text, "}"]) + "\n")
    prepare_prefix(conf, build, workers=1)
    return Written(conf, fronts[0], tuple(fronts), tls)


@dataclass(frozen=True)
class Disagreement:
    where: str  # a location path, or "sni>host client" for a client-certificate request
    key: str  # status, sni, protocol, kept, resumed; or client_status
    predicted: object
    observed: object
    tree: str


@dataclass
class BackendOutcome:
    kind: str  # "agreed", "disagreed", "refused by nginx -t"
    seconds: float = 0.0
    locations: int = 0
    requests: int = 0
    observations: collections.Counter[str] = field(default_factory=collections.Counter)
    unpredicted: collections.Counter[str] = field(default_factory=collections.Counter)
    values: collections.Counter[str] = field(default_factory=collections.Counter)  # key=seen
    disagreements: list[Disagreement] = field(default_factory=list)
    refusal: str = ""  # nginx -t's message


def _get(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


@dataclass(frozen=True)
class Echo:
    """What the backend echoed of its side of one request."""

    sni: str | None
    protocol: str
    connection: str
    requests: int
    resumed: bool

    @staticmethod
    def parse(body: str) -> Echo:
        sni, protocol, connection, requests, resumed = body.strip().split("|")
        return Echo(sni or None, protocol, connection, int(requests), resumed == "r")


@dataclass(frozen=True)
class Prediction:
    """What the model says one location gets (None: the model leaves it open)."""

    status: int
    sni: str | None
    protocol: str | None
    kept: bool | None  # whether the connection is kept after a request of this location's
    resumed: bool | None  # whether a new connection resumes the session (session reuse on)


def predict(backend: BackendTls, spec: Pass, pool: BackendPool) -> Prediction:
    """The model's settings for the location, with the certificate its backend shows for the
    SNI the model says is sent: 502 where verification is on and the trust file, the name or
    the depth does not fit the certificate, or no protocol both sides have is offered."""
    sni = backend.sni()
    cert_name, anchor, needed = pool.certificate(spec.variant, sni)
    offered = set(backend.protocols().value) & {"TLSv1.2", "TLSv1.3"}
    ok = bool(offered)
    if backend.verify().value:
        trusted = pool.files.trust[anchor] == Path(backend.trusted_certificate().value or "")
        depth = int(backend.verify_depth().value or "1")
        name = backend.name().value
        ok = ok and trusted and depth >= needed and name is not None
        ok = ok and name is not None and name.lower() == cert_name
    protocol = ("TLSv1.3" if "TLSv1.3" in offered else "TLSv1.2") if ok else None
    return Prediction(
        200 if ok else 502, sni, protocol, backend.keepalive().kept, backend.session_reuse().value
    )


@dataclass
class _Idle:
    """A backend connection kept after a response: who opened it, with what the model said."""

    opener: str  # the location's path
    said: Prediction
    connection: str  # the backend's $connection


def _backend_checks(
    tree: BackendTree, written: Written, config: Config, build: Build, pool: BackendPool,
    out: BackendOutcome, text: str,
) -> None:  # fmt: skip
    """Each location's two requests, in order. A request on a peer with a kept connection is
    served over it, with what the location that opened it was told (a block's kept connections
    serve every location that passes to it: conf/backend_pools.py); else a new connection gets
    the location's own settings."""
    target = resolve(build.nginx_version, build.tls_library)
    backends = Effective(config, target).backends()
    model = {b.location.stmt.args[-1]: b for b in backends}
    shared = {id(p.block): p for p in shared_pools(backends)}
    # by peer: an upstream{} block whose connections serve every location (the model's shared
    # pools), else the block for each location, or the location's own address
    idle: dict[str, _Idle | None] = {}
    users = collections.Counter(spec.block for spec in tree.passes)  # a session is the peer's
    savers: collections.defaultdict[str, set[str]] = collections.defaultdict(set)
    unknown: set[str] = set()
    last: dict[str, str] = {}  # by peer: the backend connection of the last response

    def compare(path: str, key: str, predicted: object, observed: object) -> None:
        if predicted is None:
            out.unpredicted[key] += 1
            return
        out.observations[key] += 1
        out.values[f"{key}={observed}"] += 1
        if predicted != observed:
            out.disagreements.append(Disagreement(path, key, predicted, observed, text))

    for i, spec in enumerate(tree.passes):
        path = f"/l{i}/"
        backend = model[path]
        own = predict(backend, spec, pool)
        upstream = backend.destination.upstream
        peer = spec.block if spec.block and id(upstream) in shared else f"{spec.block}{path}"
        out.locations += 1
        for _ in range(2):
            status, body = _get(written.fronts[spec.server], path)
            out.requests += 1
            kept = idle.get(peer)
            said = kept.said if kept is not None else own
            foreign = spec.block and own.resumed and savers[spec.block] - {path}
            if peer in unknown or (kept is None and foreign):
                # a new connection that may resume a session another location saved on the
                # block's peer: nginx offers it (the session is the peer's), and a client
                # without SNI of its own sends the session's. Not modelled yet.
                out.unpredicted["a session another location saved"] += 1
                unknown.add(peer)
                continue
            if kept is not None and kept.opener != path:
                # another location's connection: the model must know the block is shared
                pooled = shared.get(id(backend.destination.upstream))
                out.observations["shared_pool"] += 1
                made = (said.status, said.sni, said.protocol) != (own.status, own.sni, own.protocol)
                if pooled is None or (made and not pooled.differ):
                    out.disagreements.append(Disagreement(
                        path, "shared_pool", f"served on {kept.opener}'s connection",
                        pooled and pooled.differ, text))  # fmt: skip
            compare(path, "status", 200 if kept is not None else said.status, status)
            if kept is None and own.resumed and spec.block:
                # nginx saves the session as the handshake makes it, before it checks the
                # certificate: a 502 for verification leaves one for the peer too
                savers[spec.block].add(path)
            if status != 200 or (kept is None and said.status != 200):
                idle[peer] = None
                continue
            echo = Echo.parse(body)
            out.observations["sni"] += 1  # None is a prediction too: no SNI sent
            out.values[f"sni={echo.sni}"] += 1
            if said.sni != echo.sni:
                out.disagreements.append(Disagreement(path, "sni", said.sni, echo.sni, text))
            compare(path, "protocol", said.protocol, echo.protocol)
            compare(path, "kept", kept is not None, last.get(peer) == echo.connection)
            if kept is None and peer in last and (spec.block is None or users[spec.block] <= 1):
                # a new connection after one of this location's: its session, if reused
                compare(path, "resumed", own.resumed, echo.resumed)
            last[peer] = echo.connection
            if own.kept is None:
                out.unpredicted["kept"] += 1
                return  # what follows on this peer is not known
            opener = kept or _Idle(path, own, echo.connection)
            idle[peer] = opener if own.kept else None


# --- client certificates ---------------------------------------------------------------------


def _client_context(chain: Chain | None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the client judges nothing: nginx's answer is observed
    if chain is not None:
        context.load_cert_chain(chain.fullchain, chain.key)
    return context


def _read_response(stream: ssl.SSLSocket) -> tuple[int, str] | None:
    """One HTTP/1.1 response (status, body) read off the connection; None: closed before one."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = stream.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next((int(v) for k, _, v in (line.partition(":") for line in lines[1:])
                   if k.strip().lower() == "content-length"), 0)  # fmt: skip
    while len(body) < length:
        chunk = stream.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, body[:length].decode(errors="replace")


def _requests(
    port: int, sni: str | None, hosts: tuple[str, ...], chain: Chain | None
) -> list[tuple[int, str] | None]:
    """`hosts` asked in turn on one connection made with `sni` (a new one with the same SNI and
    certificate where nginx closed it after an answer)."""
    context = _client_context(chain)
    answers: list[tuple[int, str] | None] = []
    stream: ssl.SSLSocket | None = None
    try:
        for host in hosts:
            if stream is None:
                raw = socket.create_connection(("127.0.0.1", port), timeout=15)
                stream = context.wrap_socket(raw, server_hostname=sni)
            stream.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            try:
                answer = _read_response(stream)
            except (ConnectionError, ssl.SSLError):
                answer = None
            answers.append(answer)
            if answer is None or answer[0] != 200:
                stream.close()
                stream = None
    finally:
        if stream is not None:
            stream.close()
    return answers


def _kind(status: int, body: str) -> str:
    if status == 200:
        return "served"
    if status == 421:
        return "misdirected"
    if "No required SSL certificate was sent" in body:
        return "no-certificate"
    if "The SSL certificate error" in body:
        return "certificate-error"
    return f"status {status}"


def _client_checks(
    tree: BackendTree, written: Written, config: Config, pool: BackendPool, out: BackendOutcome,
    text: str,
) -> None:  # fmt: skip
    socket_name = f"127.0.0.1:{written.tls}"
    names = CLIENT_NAMES[: len(tree.tls)]
    chains = {"none": None, "trusted": pool.files.client, "stranger": pool.files.stranger_client}
    for i, sni in enumerate((*names, None, UNKNOWN_NAME)):
        own = sni if sni in names else names[0]
        other = names[(names.index(own) + 1 + i) % len(names)]
        if other == own:
            other = names[(names.index(own) + 1) % len(names)]
        for client in CLIENTS:
            answers = _requests(written.tls, sni, (own, other), chains[client])
            for host, answer in zip((own, other), answers, strict=True):
                out.requests += 1
                where = f"{sni}>{host} {client}"

                def trusts(settings: ClientCertificates, client: str = client) -> bool:
                    files = {s.value for s in (settings.client_certificate,
                                               settings.trusted_certificate)}  # fmt: skip
                    anchor = "ca" if client == "trusted" else "stranger"
                    return str(pool.files.trust[anchor]) in files

                said = request_outcome(
                    config, socket_name, sni, host, certificate=client != "none", trusts=trusts
                )
                seen = "closed" if answer is None else _kind(*answer)
                out.observations["client_status"] += 1
                out.values[f"client_status={seen}"] += 1
                if seen != said.kind:
                    out.disagreements.append(Disagreement(where, "client_status", said.kind,
                                                          seen, text))  # fmt: skip
                elif answer is not None and answer[0] == 200:
                    served = answer[1].split(" ", 1)[0]
                    out.observations["client_server"] += 1
                    if served != said.answering.names[0]:
                        out.disagreements.append(Disagreement(
                            where, "client_server", said.answering.names[0], served, text))  # fmt: skip


def check_backends(
    tree: BackendTree, build: Build, pool: BackendPool, folder: Path
) -> BackendOutcome:
    """Serve the tree on `build` in front of the pool's backends; every location and every
    client-certificate request compared with the model (the module's docstring)."""
    started = time.monotonic()
    written = write(tree, folder, build, pool)
    checked = nginx_check(build, written.conf)
    text = written.conf.read_text()
    if checked.returncode != 0:
        # a tree nginx -t refuses: lint must say so (an error), on this build's target
        refused = BackendOutcome("refused by nginx -t", time.monotonic() - started)
        refused.refusal = checked.stderr.strip().splitlines()[-2] if checked.stderr else ""
        target = resolve(build.nginx_version, build.tls_library)
        found = lint(load_path(str(written.conf)), target, Selection(min_severity="error"))
        refused.observations["refusal"] += 1
        if not found:
            refused.disagreements.append(
                Disagreement("nginx -t", "refusal", "no lint error", refused.refusal, text)
            )
        return refused
    config = build_config(load_path(str(written.conf)))
    out = BackendOutcome("agreed")
    with Server(build, written.conf, [*written.fronts, written.tls]):
        _backend_checks(tree, written, config, build, pool, out, text)
        _client_checks(tree, written, config, pool, out, text)
    out.kind = "disagreed" if out.disagreements else "agreed"
    out.seconds = time.monotonic() - started
    return out
