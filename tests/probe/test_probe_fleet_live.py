"""The probe's plan for fleets (issue 47): names nginx answers from one TLS context share what
that context decides, probed once, and only the per-name checks run for the others; sharing is
known from --config, never guessed; a name whose own check contradicts it is probed whole; many
endpoints in one run (--targets), connections bounded per endpoint, a summary first."""

from __future__ import annotations

import io
import json
import re
import selectors
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.probe.fleet import Progress
from nginxgen.probe.plan import shared_contexts
from nginxgen.probe.predict import NOT_RUNNING
from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conf.test_stream_live import _main
from tests.conftest import require_build
from tests.live import Server, free_port
from tests.pki import CertificateFactory

NAMES = ["a.test", "b.test", "c.test", "x.c.test", "v.test", "unknown.invalid"]
# what depends only on the context, and what each name's own checks observe
SHARED = ("protocols", "alerts", "groups", "tls13", "pq", "tls12", "resumption")
OWN = ("alpn", "certificate", "client_certificate", "early_data", "hsts")


def _tree(folder: Path, port: int, build: Build, together: bool = True) -> Path:
    """a.test (the default server), b.test with .c.test (one server{}: c.test and x.c.test
    select it by name), v.test whose certificate is chosen by a variable. Not `together`: c.test
    in a server of its own, with a certificate of its own."""
    factory = CertificateFactory(folder / "pki")
    a, b = factory.leaf("a.test"), factory.leaf("b.test", sans=("c.test", "x.c.test"))
    c = factory.leaf("c.test", sans=("x.c.test",))
    v = factory.leaf("v.test")
    (folder / "v.test.crt").write_bytes(v.fullchain.read_bytes())
    (folder / "v.test.key").write_bytes(v.key.read_bytes())
    for needed in ("logs", "temp"):
        (folder / needed).mkdir(exist_ok=True)

    def server(names: str, cert: Any, extra: str = "") -> str:
        return (f"server {{ listen 127.0.0.1:{port} ssl{extra}; server_name {names}; "
                f"ssl_certificate {cert.fullchain}; ssl_certificate_key {cert.key}; "
                "add_header Strict-Transport-Security max-age=60 always; return 200; }\n")  # fmt: skip

    servers = server("a.test", a, " default_server")
    servers += (
        server("b.test .c.test", b) if together else server("b.test", b) + server(".c.test", c)
    )
    servers += (f"server {{ listen 127.0.0.1:{port} ssl; server_name v.test; "
                f"ssl_certificate {folder}/$ssl_server_name.crt; "
                f"ssl_certificate_key {folder}/$ssl_server_name.key; return 200; }}\n")  # fmt: skip
    conf = folder / ("nginx.conf" if together else "apart.conf")
    temp = " ".join(build.temp_path_directives)
    conf.write_text(_main(f"http {{ access_log off; {temp}\n{servers}}}\n"))
    return conf


def _probe(port: int, build: Build, *args: str, names: list[str] = NAMES) -> Any:
    sni = [arg for name in names for arg in ("--sni", name)]
    done = run_nginxgen(
        "probe",
        f"127.0.0.1:{port}",
        *sni,
        "--format",
        "json",
        *build.target_flags,
        *args,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    return {r["sni"]: r for r in json.loads(done.stdout)}


@pytest.fixture
def trixie(provisioned: tuple[dict[str, Build], dict[str, str]]) -> Build:
    return require_build(provisioned, "trixie")


def test_the_plan_shares_only_what_the_config_says_is_one_context(
    trixie: Build, tmp_path: Path
) -> None:
    """From the model alone: c.test and x.c.test select b.test's server{} by name on the same
    address with the same default server; a.test is alone in its server; v.test's certificate
    is chosen per name; unknown.invalid and no SNI select no server by name."""
    conf = _tree(tmp_path, 8443, trixie)
    config = build_config(load_path(str(conf)))
    target = resolve(trixie.nginx_version, trixie.tls_library, None)
    shared = shared_contexts(config, target, 8443, [*NAMES, None])
    assert {name: s.name for name, s in shared.items()} == {"c.test": "b.test",
                                                           "x.c.test": "b.test"}  # fmt: skip
    assert "selects the same server{}" in shared["c.test"].why
    assert shared_contexts(config, target, 9999, NAMES) == {}  # no TLS socket there


def test_shared_values_are_what_each_name_shows_probed_whole(trixie: Build, tmp_path: Path) -> None:
    """The same server probed per name whole (no --config) and with the plan: every value of
    every name is the same; the names that shared made two connections each (the chain, the
    0-RTT offer and both pages on one; ALPN and the leaf on the other) instead of dozens, and
    the JSON says, per key, whose probe observed it."""
    port = free_port()
    conf = _tree(tmp_path, port, trixie)
    with Server(trixie, conf, [port]):
        whole = _probe(port, trixie)
        planned = _probe(port, trixie, "--config", str(conf))
    for name in (*NAMES, None):
        for key in (*SHARED, *OWN):
            mine, theirs = planned[name][key], whole[name][key]
            if key == "certificate" and mine:  # today's date moves nothing else
                mine, theirs = dict(mine, days_left=0), dict(theirs, days_left=0)
            if key == "resumption" and mine:  # the Host of its first connections: below
                mine, theirs = dict(mine, host=None), dict(theirs, host=None)
            assert mine == theirs, (name, key, mine, theirs)
    for name in ("c.test", "x.c.test"):
        said = planned[name]
        assert said["context"]["name"] == "b.test" and "refuted" not in said["context"]
        assert {said["observed_for"][k] for k in SHARED} == {"b.test"}
        assert said["resumption"]["host"] == "b.test"  # b.test's connections observed it
        assert {said["observed_for"][k] for k in OWN} == {name}
        assert said["connections"] == 2, said["connections"]
        assert said["mismatches"] == [], said["mismatches"]
    for name in ("a.test", "b.test", "v.test", "unknown.invalid", None):
        assert planned[name]["context"] is None
        assert set(planned[name]["observed_for"].values()) == {name}
        assert planned[name]["connections"] > 20
    assert whole["c.test"]["context"] is None  # without --config nothing is shared


def test_a_name_whose_certificate_contradicts_the_config_is_probed_whole(
    trixie: Build, tmp_path: Path
) -> None:
    """--config says c.test is b.test's server{}, but the running nginx has it in a server of
    its own with its own certificate: its per-name check sees another certificate, so nothing is
    taken from b.test's probe and c.test is probed whole (and the certificate is a mismatch)."""
    port = free_port()
    said = _tree(tmp_path, port, trixie)
    running = _tree(tmp_path, port, trixie, together=False)
    with Server(trixie, running, [port]):
        planned = _probe(port, trixie, "--config", str(said), names=["b.test", "c.test"])
    c = planned["c.test"]
    assert c["context"]["name"] == "b.test"
    assert c["context"]["refuted"].startswith("the certificate sent differs from the one b.test")
    assert set(c["observed_for"].values()) == {"c.test"}
    assert c["certificate"]["names"] == ["c.test", "x.c.test"]
    assert c["connections"] > 20
    assert [m["key"] for m in c["mismatches"]] == ["certificate.sha256"]


@contextmanager
def _counting_relay(port: int) -> Iterator[tuple[int, list[int]]]:
    """(a port that relays every connection to 127.0.0.1:`port`, [the most connections its
    clients had open at once]) while the block runs. A connection counts from its first bytes
    (the client's hello) to its first close, either side's; each round takes the closes first.
    A probe's thread closes one connection before it opens the next, so that close is there to
    take by the time the next one's hello is (sampling the kernel's table was not exact: it
    lists a bucket at a time, and a client's close and its next connection's SYN may be
    delivered in either order)."""
    listener = socket.create_server(("127.0.0.1", 0))
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, None)
    most, running, counted = [0], [True], set()

    def close(pair: tuple[socket.socket, socket.socket]) -> None:
        for sock in pair:
            counted.discard(sock)
            selector.unregister(sock)
            sock.close()

    def relay() -> None:
        while running[0]:
            ready = [key for key, _ in selector.select(timeout=0.05)]
            read = []
            for key in ready:
                if key.data is not None:
                    try:
                        read.append((key.data, key.data[0].recv(65536)))
                    except OSError:
                        read.append((key.data, b""))
            for pair, chunk in sorted(read, key=lambda got: bool(got[1])):  # closes first
                this, other = pair
                if this.fileno() < 0:  # closed with its peer earlier in this round
                    continue
                if not chunk:
                    close(pair)
                    continue
                if this not in counted and other not in counted:
                    counted.add(this)
                    most[0] = max(most[0], len(counted))
                other.sendall(chunk)
            if any(key.data is None for key in ready):
                client, _ = listener.accept()
                upstream = socket.create_connection(("127.0.0.1", port))
                selector.register(client, selectors.EVENT_READ, (client, upstream))
                selector.register(upstream, selectors.EVENT_READ, (upstream, client))

    thread = threading.Thread(target=relay, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], most
    finally:
        running[0] = False
        thread.join(timeout=10)
        listener.close()


def test_connections_to_an_endpoint_are_bounded(trixie: Build, tmp_path: Path) -> None:
    port = free_port()
    conf = _tree(tmp_path, port, trixie)
    names = [f"n{i}.c.test" for i in range(12)]

    def probe(*bound: str) -> int:
        with _counting_relay(port) as (relayed, most):
            done = run_nginxgen(
                "probe",
                f"127.0.0.1:{relayed}",
                *(a for n in names for a in ("--sni", n)),
                *bound,
                "--format",
                "json",
                *trixie.target_flags,
                timeout=300,
            )
        assert done.returncode in (0, 1), done.stderr
        assert len(json.loads(done.stdout)) == len(names) + 1
        return most[0]

    with Server(trixie, conf, [port]):
        bounded, default = probe("--connections", "2"), probe()
    assert 1 <= bounded <= 2 < default, (bounded, default)


def test_many_endpoints_from_a_file_with_the_summary_first(trixie: Build, tmp_path: Path) -> None:
    """--targets FILE: each line an endpoint and its names; the text report opens with the
    fleet summary; an endpoint that does not answer is said, the others reported, exit 2."""
    port, other, closed = free_port(), free_port(), free_port()
    conf = _tree(tmp_path, port, trixie)
    text = conf.read_text().replace(
        f"listen 127.0.0.1:{port} ssl", f"listen 127.0.0.1:{port} ssl; listen 127.0.0.1:{other} ssl"
    )
    conf.write_text(text)  # fmt: skip
    targets = tmp_path / "fleet.txt"
    targets.write_text(f"# two ports of one nginx\n127.0.0.1:{port} a.test c.test x.c.test\n\n"
                       f"127.0.0.1:{other} b.test   # and one more\n")  # fmt: skip
    with Server(trixie, conf, [port, other]):
        done = run_nginxgen(
            "probe",
            "--targets",
            str(targets),
            "--config",
            str(conf),
            "--expiring",
            "60",
            *trixie.target_flags,
            timeout=300,
        )
        targets.write_text(targets.read_text() + f"127.0.0.1:{closed} a.test\n")
        down = run_nginxgen(
            "probe",
            "--targets",
            str(targets),
            "--format",
            "json",
            *trixie.target_flags,
            timeout=300,
        )
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    assert (
        lines[0]
        == "fleet: 4 names on 2 endpoints (and each without SNI), " + (lines[0].rsplit(", ", 1)[1])
    )
    assert lines[1].startswith("  1 names took their protocols, suites, groups and resumption")
    expiring = next(line for line in lines if "certificates expiring within 60 days" in line)
    assert f"c.test on 127.0.0.1:{port} (29 days)" in expiring
    # trial 17: "0 on 0 names" read as if nothing had been compared
    assert "mismatches with the config: none (" in done.stdout, done.stdout[:2000]
    assert f"a.test on 127.0.0.1:{port}:" not in done.stdout  # one name a line, per endpoint
    assert done.stdout.count("\na.test:\n") == 1 and "\nb.test:\n" in done.stdout
    # each endpoint's names under its address (trial 23: two endpoints' blocks looked alike)
    assert done.stdout.index(f"\n== 127.0.0.1:{port}\na.test:\n") < done.stdout.index(
        f"\n== 127.0.0.1:{other}\nb.test:\n"
    ), done.stdout
    assert re.search(
        r"probe: 4 names and 2 without SNI, \d+ connections to 2 endpoints", done.stderr
    )
    assert down.returncode == 2, down.stderr
    assert {r["endpoint"] for r in json.loads(down.stdout)} == {f"127.0.0.1:{port}",
                                                               f"127.0.0.1:{other}"}  # fmt: skip
    assert f"nginxgen: error: probe: 127.0.0.1:{closed}: connection refused" in down.stderr


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("127.0.0.1:https a.test", "'127.0.0.1:https': expected HOST or HOST:PORT"),
        ("# nothing\n", "lists no HOST[:PORT]"),
    ],
)
def test_a_targets_file_that_is_not_one_is_one_line_and_exit_2(
    tmp_path: Path, line: str, said: str
) -> None:
    targets = tmp_path / "fleet.txt"
    targets.write_text(f"127.0.0.1:8443 a.test\n{line}" if "#" not in line else line)
    done = run_nginxgen("probe", "--targets", str(targets), timeout=60)
    assert done.returncode == 2
    [error] = [x for x in done.stderr.splitlines() if "error" in x]
    assert said in error, done.stderr
    if "#" not in line:
        assert f"{targets}:2" in error


def test_the_progress_line_is_drawn_on_a_terminal_only() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown, hidden = Terminal(), io.StringIO()
    for stream in (shown, hidden):
        progress = Progress(2, stream)
        progress.done({"connections": 30})
        progress.done({"connections": 2})
        progress.close()
    assert hidden.getvalue() == ""
    assert "\rprobe: 2/2 names, 32 connections, 0 s" in shown.getvalue()
    assert shown.getvalue().endswith("\r\033[K")  # cleared at the end


def test_an_ipv4_and_an_ipv6_socket_on_one_port_are_modelled_apart(
    trixie: Build, tmp_path: Path
) -> None:
    """Found by the live fix fuzzer in CI: `[::1]:P` and `127.0.0.1:P` have other default
    servers, and the model took the first socket of the port for both. The IPv6 default server
    (v6.test, written first) decides prime256v1 there; on IPv4 v4.test decides X25519 for
    v6.test too. Probing 127.0.0.1 must be judged with the IPv4 socket's default server."""
    factory = CertificateFactory(tmp_path / "pki")
    port = free_port()
    for needed in ("logs", "temp"):
        (tmp_path / needed).mkdir()

    def server(listens: str, name: str, curve: str) -> str:
        cert = factory.leaf(name)
        return (f"server {{ {listens} server_name {name}; ssl_certificate {cert.fullchain}; "
                f"ssl_certificate_key {cert.key}; ssl_ecdh_curve {curve}; return 200; }}\n")  # fmt: skip

    # v6.test written first, so that the first socket of the port is the IPv6 one
    servers = server(f"listen [::1]:{port} ssl; listen 127.0.0.1:{port} ssl;", "v6.test",
                     "prime256v1")  # fmt: skip
    servers += server(f"listen 127.0.0.1:{port} ssl default_server;", "v4.test", "X25519")
    conf = tmp_path / "nginx.conf"
    temp = " ".join(trixie.temp_path_directives)
    conf.write_text(_main(f"http {{ access_log off; {temp}\n{servers}}}\n"))
    config = build_config(load_path(str(conf)))
    assert next(iter(s for s in config.sockets if s.endswith(f":{port}"))).startswith("[::1]")
    with Server(trixie, conf, [port]):
        for host, decides in (("127.0.0.1", ["X25519"]), ("[::1]", ["secp256r1"])):
            done = run_nginxgen(
                "probe",
                f"{host}:{port}",
                "--sni",
                "v6.test",
                "--format",
                "json",
                "--config",
                str(conf),
                *trixie.target_flags,
                timeout=300,
            )
            # 1 on IPv4: v6.test's own line is ignored there, a mismatch explained by its line
            assert done.returncode in (0, 1), (host, done.stdout[-3000:], done.stderr)
            (answer,) = [r for r in json.loads(done.stdout) if r["sni"] == "v6.test"]
            assert not [m for m in answer["mismatches"] if NOT_RUNNING in m["why"]], answer
            (groups,) = [s for s in answer["config"] if s["key"] == "groups"]
            assert groups["observed"] == groups["value"] == decides, (host, groups)
