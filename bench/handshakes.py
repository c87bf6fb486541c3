"""What a TLS handshake costs the server, per preset choice, on real nginx.

    python bench/handshakes.py [--build trixie] [--connections 100] [--rounds 5]
                               [--out bench/handshakes.json]

nginx 1.26.3 with OpenSSL 3.5 (the provisioned `trixie` build), one worker, loopback. For each
case a bounded loop of `openssl s_client` connections (each one handshake and one tiny HTTP
request) runs against the worker, and the worker's CPU time is read from /proc/PID/schedstat
(nanoseconds) before and after: CPU per connection. The cases alternate for several rounds; the
median round counts. A plain-HTTP loop gives the cost of a
connection without TLS; the difference is the handshake. `openssl speed` on the same machine
gives the floor: the public-key operations a handshake cannot avoid. Last, a page of 20 requests
over one client with keepalive on and with `keepalive_timeout 0`: connections (handshakes) and
worker CPU for the page.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import socket
import ssl
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.builds import Build, build_or_exit
from tests.live import Server, free_port, prepare_prefix, s_client
from tests.pki import CertificateFactory

NAME = "bench.example"
ECDSA_SIGALG = "ecdsa_secp256r1_sha256"
RSA_SIGALG = "rsa_pss_rsae_sha256:rsa_pkcs1_sha256"


@dataclass(frozen=True)
class Case:
    label: str
    port_key: str  # "colon" (X25519MLKEM768:X25519) or "tuple" (X25519MLKEM768/X25519)
    sigalgs: str
    groups: str  # the client's -groups: its first group is the key share it sends
    resumed: bool


CASES = (
    Case("ECDSA P-256, X25519, full", "colon", ECDSA_SIGALG, "X25519", False),
    Case("RSA 2048, X25519, full", "colon", RSA_SIGALG, "X25519", False),
    Case("ECDSA P-256, X25519MLKEM768, full", "colon", ECDSA_SIGALG, "X25519MLKEM768", False),
    Case(
        "ECDSA P-256, ML-KEM enforced by HelloRetryRequest, full",
        "tuple",
        ECDSA_SIGALG,
        "X25519:X25519MLKEM768",
        False,
    ),
    Case("ECDSA P-256, X25519, resumed", "colon", ECDSA_SIGALG, "X25519", True),
    Case("RSA 2048, X25519, resumed", "colon", RSA_SIGALG, "X25519", True),
    Case("ECDSA P-256, X25519MLKEM768, resumed", "colon", ECDSA_SIGALG, "X25519MLKEM768", True),
)

CONF = """worker_processes auto;
events {{}}
http {{
    ssl_protocols TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    ssl_session_timeout 1d;
    ssl_session_tickets on;
    ssl_certificate {ecdsa_cert};
    ssl_certificate_key {ecdsa_key};
    ssl_certificate {rsa_cert};
    ssl_certificate_key {rsa_key};
    access_log off;
    log_format conn "$server_port $connection";
    server {{
        listen 127.0.0.1:{colon} ssl;
        server_name {name};
        ssl_ecdh_curve X25519MLKEM768:X25519;
        location / {{ return 204; }}
    }}
    server {{
        listen 127.0.0.1:{tuple} ssl;
        server_name {name};
        ssl_ecdh_curve X25519MLKEM768/X25519;
        location / {{ return 204; }}
    }}
    server {{
        listen 127.0.0.1:{plain};
        server_name {name};
        location / {{ return 204; }}
    }}
    server {{
        listen 127.0.0.1:{keepalive} ssl;
        server_name {name};
        access_log connections.log conn;
        keepalive_timeout 75s;
        location / {{ return 200 "ok"; }}
    }}
    server {{
        listen 127.0.0.1:{no_keepalive} ssl;
        server_name {name};
        access_log connections.log conn;
        keepalive_timeout 0;
        location / {{ return 200 "ok"; }}
    }}
}}
"""


def worker_pid(master: int) -> int:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == master:
            return int(entry)
    raise RuntimeError("no nginx worker found")


def cpu_ns(pid: int) -> int:
    """CPU time the process has run, in nanoseconds (scheduler accounting, not 10 ms ticks)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def per_connection(pid: int, count: int, connect: Callable[[], None]) -> tuple[float, float]:
    """Mean worker CPU µs and wall ms per connection over `count` connections."""
    connect()  # warm-up: first connection, session file, page cache
    before, start = cpu_ns(pid), time.perf_counter()
    for _ in range(count):
        connect()
    wall = time.perf_counter() - start
    return (cpu_ns(pid) - before) / count / 1000, wall / count * 1000


def handshake(client: Build, port: int, case: Case, session: Path) -> Callable[[], None]:
    def connect() -> None:
        resuming = case.resumed and session.exists()
        result = s_client(
            client,
            port,
            NAME,
            version="1.3",
            groups=case.groups,
            sigalgs=case.sigalgs,
            sess_out=session if case.resumed and not resuming else None,
            sess_in=session if resuming else None,
        )
        if not result.ok:
            raise RuntimeError(f"{case.label}: handshake failed:\n{result.output[-800:]}")
        if resuming and not result.reused:
            raise RuntimeError(f"{case.label}: session not resumed")

    return connect


def plain_http(port: int) -> Callable[[], None]:
    request = f"GET / HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode()

    def connect() -> None:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(request)
            while conn.recv(4096):
                pass

    return connect


def speed_floor(client: Build) -> dict[str, float]:
    """Operations per second of the primitives a server handshake uses, from `openssl speed`."""
    argv = ("speed", "-seconds", "1", "-mr", "ecdsap256", "rsa2048", "ecdhx25519", "ML-KEM-768")
    assert client.openssl_argv is not None
    done = client.run(client.openssl_argv, *argv, timeout=300)
    rates: dict[str, float] = {}
    label: tuple[str, ...] = ()
    for line in done.stderr.splitlines():  # -mr writes +DTP and +R lines to stderr
        if line.startswith("+DTP:"):
            label = tuple(line.split(":")[1:4])
        elif line.startswith("+R") and label:
            _, count, _, seconds = line.split(":")
            rates[":".join(label)] = int(count) / float(seconds)
    return {
        "ECDSA P-256 sign": rates["256:sign:ecdsa"],
        "RSA 2048 sign": rates["rsa2048:signs:1"],
        "X25519 derive": rates["253::ecdh"],
        "ML-KEM-768 encaps": rates["ML-KEM-768:encaps:1"],
    }


def page(port: int, ca: Path, requests: int = 20) -> None:
    context = ssl.create_default_context(cafile=str(ca))
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    conn._context.check_hostname = False  # type: ignore[attr-defined]
    for _ in range(requests):
        conn.request("GET", "/", headers={"Host": NAME})
        conn.getresponse().read()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="trixie", help="provisioned build (nginx + OpenSSL)")
    parser.add_argument("--connections", type=int, default=100, help="per case and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "handshakes.json")
    args = parser.parse_args()
    build = build_or_exit(args.build)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ecdsa = CertificateFactory(folder / "ecdsa", "ecdsa").leaf(NAME, "ecdsa")
        rsa = CertificateFactory(folder / "rsa", "rsa").leaf(NAME, "rsa")
        ports = {k: free_port() for k in ("colon", "tuple", "plain", "keepalive", "no_keepalive")}
        conf = folder / "conf" / "nginx.conf"
        conf.parent.mkdir()
        conf.write_text(
            CONF.format(
                ecdsa_cert=ecdsa.fullchain,
                ecdsa_key=ecdsa.key,
                rsa_cert=rsa.fullchain,
                rsa_key=rsa.key,
                name=NAME,
                **ports,
            )
        )
        prepare_prefix(conf, build, workers=1)
        results: dict[str, object] = {
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
            "date": time.strftime("%Y-%m-%d"),
            "build": f"nginx {build.nginx_version} with {build.tls_library}",
            "connections_per_round": args.connections,
            "rounds": args.rounds,
        }
        cases: dict[str, dict[str, float]] = {}
        with Server(build, conf, list(ports.values())) as server:
            assert server.process is not None
            worker = worker_pid(server.process.pid)
            loops: dict[str, Callable[[], None]] = {
                "plain HTTP (no TLS)": plain_http(ports["plain"])
            }
            for case in CASES:
                session = folder / f"{case.label}.session".replace(" ", "_").replace(",", "")
                loops[case.label] = handshake(build, ports[case.port_key], case, session)
            samples: dict[str, list[tuple[float, float]]] = {label: [] for label in loops}
            for _ in range(args.rounds):  # alternating, so drift hits every case alike
                for label, connect in loops.items():
                    samples[label].append(per_connection(worker, args.connections, connect))
            base_cpu = statistics.median(c for c, _ in samples["plain HTTP (no TLS)"])
            for label, runs in samples.items():
                cpu = statistics.median(c for c, _ in runs)
                cases[label] = {
                    "cpu_us": round(cpu, 1),
                    "tls_cpu_us": round(cpu - base_cpu, 1),
                    "spread_us": round(max(c for c, _ in runs) - min(c for c, _ in runs), 1),
                    "wall_ms": round(statistics.median(w for _, w in runs), 2),
                }
                print(label, cases[label], flush=True)
            keepalive: dict[str, dict[str, float]] = {}
            for key in ("keepalive", "no_keepalive"):
                log = conf.parent / "connections.log"
                log.unlink(missing_ok=True)
                os.kill(server.process.pid, 10)  # SIGUSR1: reopen logs
                time.sleep(0.3)
                before = cpu_ns(worker)
                page(ports[key], ecdsa.root)
                spent = (cpu_ns(worker) - before) / 1000
                time.sleep(0.3)
                lines = [ln.split() for ln in log.read_text().splitlines() if ln.strip()]
                keepalive[key] = {
                    "requests": len(lines),
                    "connections": len({c for _, c in lines}),
                    "worker_cpu_us": round(spent, 1),
                }
                print(key, keepalive[key], flush=True)
        floor = speed_floor(build)
        results.update(cases=cases, keepalive_page=keepalive, openssl_speed_per_s=floor)
        floor_us = {name: round(1e6 / rate, 1) for name, rate in floor.items()}
        results["openssl_speed_us"] = floor_us
        print("openssl speed (µs per op)", floor_us)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
