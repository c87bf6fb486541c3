"""The model against live nginx (issue 25, first oracle): random multi-server trees on one TLS
socket are served by a real build and probed, per name, with `probe --config`. A server just
started with a tree runs that tree, so no mismatch may say the server does not do what the config
says; every other mismatch must name a line (what the config meant and why it is not in effect).

Trees: 2-4 servers on one address:port, the default server explicit (sometimes refusing
handshakes) or by order; protocols, groups, tickets and session caches at http{} level, in the
servers, or both; HSTS with and without `always`; `location /` with add_header lines of its own
or a `return`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from tests.builds import Build
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory

NAMES = ("s0.test", "s1.test", "s2.test", "s3.test")
SETTINGS = {
    "ssl_protocols": ("TLSv1.2 TLSv1.3", "TLSv1.3", "TLSv1.2"),
    "ssl_ecdh_curve": ("X25519:prime256v1", "prime256v1", "secp384r1:X25519", "X25519MLKEM768:X25519"),
    "ssl_session_tickets": ("on", "off"),
    "ssl_session_cache": ("shared:S:1m", "none", "off"),
}  # fmt: skip
HSTS = 'add_header Strict-Transport-Security "max-age=63072000"'
LOCATIONS = (
    "",
    "location / { add_header X-Frame-Options DENY; }",
    'location / { return 200 "ok"; }',
    "location / { return 404; }",
)
NOT_RUNNING = "does not do what this config says"


@dataclass(frozen=True)
class LiveTree:
    servers: tuple[str, ...]  # each server's body, certificate lines added when written
    http: str  # http{}-level lines
    default: int | None  # the explicit default server, if any
    reject: bool  # the explicit default refuses handshakes


def _lines(draw: st.DrawFn) -> list[str]:
    out = []
    for directive, values in SETTINGS.items():
        if draw(st.integers(0, 3)) == 0:
            out.append(f"{directive} {draw(st.sampled_from(values))};")
    return out


@st.composite
def live_trees(draw: st.DrawFn) -> LiveTree:
    count = draw(st.integers(2, 4))
    default = draw(st.one_of(st.none(), st.integers(0, count - 1)))
    reject = default is not None and draw(st.booleans())
    servers = []
    for i in range(count):
        body = [f"server_name {NAMES[i]};", *_lines(draw)]
        hsts = draw(st.sampled_from(("", f"{HSTS};", f"{HSTS} always;")))
        if hsts:
            body.append(hsts)
        body.append(draw(st.sampled_from(LOCATIONS)))
        if reject and i == default:
            body = [f"server_name {NAMES[i]};", "ssl_reject_handshake on;"]
        servers.append("\n        ".join(b for b in body if b))
    return LiveTree(tuple(servers), "\n    ".join(_lines(draw)), default, reject)


def write(tree: LiveTree, folder: Path, build: Build, port: int) -> Path:
    certs = CertificateFactory(folder / "certs", "ecdsa").leaf(NAMES[0], "ecdsa", sans=NAMES[1:])
    blocks = []
    for i, body in enumerate(tree.servers):
        default = " default_server" if tree.default == i else ""
        cert = f"ssl_certificate {certs.fullchain}; ssl_certificate_key {certs.key};"
        blocks.append(
            f"    server {{\n        listen 127.0.0.1:{port} ssl{default};\n        {cert}\n"
            f"        {body}\n    }}\n"
        )
    conf = folder / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n    "
        + tree.http
        + "\n"
        + "".join(blocks)
        + "}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return conf


def _refuses(tree: LiveTree, sni: list[str]) -> bool:
    """Whether the server that takes this name refuses handshakes (its own server when a
    server_name has it, else the default server)."""
    named = [i for i in range(len(tree.servers)) if sni and NAMES[i] == sni[-1]]
    taker = named[0] if named else (tree.default if tree.default is not None else 0)
    return tree.reject and taker == tree.default


@dataclass(frozen=True)
class LiveOutcome:
    kind: str  # "agreed", "refused by nginx -t"
    names: int
    mismatches: int  # explained mismatches (a line and why it is not in effect)
    seconds: float


def check_live(tree: LiveTree, build: Build, folder: Path) -> LiveOutcome:
    from tests.live import nginx_check

    started = time.monotonic()
    port = free_port()
    conf = write(tree, folder, build, port)
    if nginx_check(build, conf).returncode != 0:
        return LiveOutcome("refused by nginx -t", 0, 0, time.monotonic() - started)
    runs = [["--sni", name] for name in NAMES[: len(tree.servers)]]
    runs += [["--sni", "unknown.test"], []]  # a name no server has, and no SNI at all
    explained = 0
    with Server(build, conf, [port]):
        for sni in runs:
            done = subprocess.run(
                [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", *sni,
                 "--format", "json", "--config", str(conf), *build.target_flags],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            if done.returncode == 2 and _refuses(tree, sni):
                assert "no TLS answer" in done.stderr, done.stderr  # as the config says
                continue
            assert done.returncode in (0, 1), (sni, done.stdout[-2000:], done.stderr[-2000:])
            for answer in json.loads(done.stdout):
                for mismatch in answer.get("mismatches", []):
                    assert NOT_RUNNING not in mismatch["why"], (sni, mismatch, conf.read_text())
                    assert mismatch["file"] and mismatch["line"], (sni, mismatch)
                    explained += 1
    return LiveOutcome("agreed", len(runs), explained, time.monotonic() - started)
