"""Client certificates on real nginx (issue 38): what the config model (conf/client_certs.py)
says each request gets, against what nginx answers to openssl s_client with and without a
client certificate; and what `nginxgen probe` reads of the CertificateRequest, against what
s_client shows of it (-msg, "Acceptable client certificate CA names").

One tree per build: a (the default server, verify off), b (on), c (optional), d
(optional_no_ca), e (on, a CA two levels below the root, nginx's default depth 1), f (the same
with ssl_verify_depth 2); and on a second port g, alone with TLS 1.2 only (so the probe reads
the CertificateRequest from TLS 1.2's clear flight instead of decrypting TLS 1.3's)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.client_certificates import client_certificates, request_outcome
from nginxgen.conf.config import Config, build
from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.helpers import require_program
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory, Chain, _pem

BUILDS = ["bookworm", "trixie", "wheel"]
NAMES = ("a.example", "b.example", "c.example", "d.example", "e.example", "f.example")
ANSWER = 'location / { return 200 "$server_name $ssl_client_verify\\n"; }'


@dataclass(frozen=True)
class Tree:
    conf: Path
    port: int
    port12: int
    client: Chain  # issued by the intermediate (under the root)
    deep: Chain  # issued by a CA below the intermediate


def make_tree(build: Build, tmp_path: Path) -> Tree:
    pki = CertificateFactory(tmp_path / "pki")
    server = pki.leaf("a.example", sans=(*NAMES[1:], "g.example"))
    deep_ca = pki.ca("nginxgen test deep CA")
    client = pki.leaf("client", client=True)
    deep = pki.leaf("deep client", client=True, issuer=deep_ca)
    ca = tmp_path / "ca.pem"  # what b, c and g name and trust
    ca.write_bytes(_pem(pki.intermediate) + _pem(pki.root))
    deep_file = tmp_path / "deep-ca.pem"
    deep_file.write_bytes(_pem(deep_ca[0]) + _pem(pki.intermediate) + _pem(pki.root))
    port, port12 = free_port(), free_port()

    def site(name: str, body: str, listen: str = f"127.0.0.1:{port} ssl") -> str:
        return f"server {{ listen {listen}; server_name {name}; {body} {ANSWER} }}\n"

    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"ssl_certificate {server.fullchain}; ssl_certificate_key {server.key};\n"
        "ssl_protocols TLSv1.2 TLSv1.3;\n"
        + site("a.example", "", f"127.0.0.1:{port} ssl default_server")
        + site("b.example", f"ssl_verify_client on; ssl_client_certificate {ca};")
        + site("c.example", f"ssl_verify_client optional; ssl_client_certificate {ca};")
        + site("d.example", "ssl_verify_client optional_no_ca;")
        + site("e.example", f"ssl_verify_client on; ssl_client_certificate {deep_file};")
        + site(
            "f.example",
            f"ssl_verify_client on; ssl_client_certificate {deep_file}; ssl_verify_depth 2;",
        )
        + site(
            "g.example",
            f"ssl_protocols TLSv1.2; ssl_verify_client on; ssl_client_certificate {ca};",
            f"127.0.0.1:{port12} ssl",
        )
        + "}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return Tree(conf, port, port12, client, deep)


@dataclass(frozen=True)
class Seen:
    requested: bool
    ca_names: list[str]
    status: int | None
    body: str
    output: str


def s_client(
    client: Build, port: int, sni: str | None, host: str, chain: Chain | None, version: str
) -> Seen:
    """One handshake and one request by openssl s_client, the oracle: -msg shows each
    handshake message (a CertificateRequest among them), and the CA names it printed."""
    args = ["s_client", "-connect", f"127.0.0.1:{port}", "-msg", "-ign_eof", f"-tls{version}"]
    args += ["-servername", sni] if sni else ["-noservername"]
    if chain is not None:
        args += ["-cert", str(chain.fullchain), "-key", str(chain.key)]
    request = f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    done = client.openssl(*args, stdin=request)
    out = done.stdout + done.stderr
    names: list[str] = []
    listed = out.split("Acceptable client certificate CA names\n", 1)
    if len(listed) == 2:
        for line in listed[1].splitlines():
            if not re.match(r"^[A-Za-z]+ ?=", line):
                break
            names.append(line.replace(" = ", "="))
    status = re.search(r"^HTTP/1\.1 (\d{3})", out, re.M)
    body = re.search(r"^(\S+\.example \S.*)$", out, re.M)
    return Seen(
        requested=bool(re.search(r"<<< .*CertificateRequest", out)),
        ca_names=names,
        status=int(status.group(1)) if status else None,
        body=body.group(1) if body else "",
        output=out,
    )


def model(tree: Tree) -> Config:
    return build(load_path(str(tree.conf)))


# (SNI, Host): each server by its own name, then Host and SNI apart
PAIRS = [
    *((n, n) for n in NAMES[:4]),
    ("b.example", "B.EXAMPLE"),
    ("a.example", "b.example"),
    ("b.example", "a.example"),
    ("b.example", "c.example"),
    ("c.example", "d.example"),
    ("d.example", "a.example"),
    (None, "b.example"),
    ("nowhere.example", "b.example"),
    ("b.example", "nowhere.example"),
]


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_requests_get_what_the_model_says(build: Build, client: Build, tmp_path: Path) -> None:
    """For each SNI/Host pair, with and without a client certificate, over TLS 1.3 and 1.2:
    whether the handshake asked for a certificate is the SNI's server's (else the default
    server's) mode; the status is 421 where the model says misdirected, 400 where it says a
    certificate is required and none was sent, else 200 from the server the model names, with
    $ssl_client_verify SUCCESS exactly where a certificate was asked for and sent by a
    verifying server."""
    tree = make_tree(build, tmp_path)
    config = model(tree)
    socket = f"127.0.0.1:{tree.port}"
    rows = []
    with Server(build, tree.conf, [tree.port, tree.port12]):
        for version in ("1_3", "1_2"):
            for sni, host in PAIRS:
                for chain in (None, tree.client):
                    seen = s_client(client, tree.port, sni, host, chain, version)
                    said = request_outcome(config, socket, sni, host, chain is not None)
                    rows.append((version, sni, host, chain is not None, seen, said))
    wrong = []
    for version, sni, host, certificate, seen, said in rows:
        status = said.status or 200
        asked = client_certificates(config, said.handshake).asks
        answering = said.answering.names[0]
        if seen.requested != asked or seen.status != status:
            wrong.append((version, sni, host, certificate, seen.requested, seen.status, said))
        elif status == 200 and not seen.body.startswith(answering + " "):
            wrong.append((version, sni, host, certificate, seen.body, answering))
    assert wrong == []
    # what each mode makes of the verdict, by its own name over TLS 1.3
    verdicts = {
        (sni, cert): seen.body.split(" ", 1)[1]
        for version, sni, host, cert, seen, _ in rows
        if version == "1_3" and sni == host and seen.status == 200
    }
    assert verdicts[("b.example", True)] == "SUCCESS"
    assert verdicts[("c.example", False)] == "NONE"  # optional: served without one
    assert verdicts[("c.example", True)] == "SUCCESS"
    assert verdicts[("d.example", True)].startswith("FAILED:")  # no CA: not verified, served
    assert ("b.example", False) not in verdicts  # on: 400 without one


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_verify_depth_as_ngx742_says(build: Build, client: Build, tmp_path: Path) -> None:
    """A client certificate two CAs below the root: refused at nginx's default depth 1 (400,
    "The SSL certificate error"), taken at depth 2; NGX742 names e's missing depth, not f's."""
    tree = make_tree(build, tmp_path)
    with Server(build, tree.conf, [tree.port, tree.port12]):
        e = s_client(client, tree.port, "e.example", "e.example", tree.deep, "1_3")
        f = s_client(client, tree.port, "f.example", "f.example", tree.deep, "1_3")
        shallow = s_client(client, tree.port, "e.example", "e.example", tree.client, "1_3")
    assert (e.status, "The SSL certificate error" in e.output) == (400, True)
    assert (f.status, f.body) == (200, "f.example SUCCESS")
    assert (shallow.status, shallow.body) == (200, "e.example SUCCESS")  # one CA below: depth 1
    found = lint(
        load_path(str(tree.conf)), resolve(build.nginx_version, build.tls_library), Selection()
    )
    depth = [f.message for f in found if f.code == "NGX742"]
    assert depth == [
        "ssl_verify_depth 1 (nginx's default): a client certificate issued by "
        "CN=nginxgen test deep CA needs 2"
    ]


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_probe_sees_what_s_client_sees(build: Build, client: Build, tmp_path: Path) -> None:
    """`nginxgen probe --config`: for each name, whether a certificate is asked for, the CA
    names and what a client without one gets, as s_client shows them; no mismatch with the
    model. g is probed on its TLS 1.2-only port."""
    tree = make_tree(build, tmp_path)
    names = NAMES[:4]
    with Server(build, tree.conf, [tree.port, tree.port12]):
        results = {}
        for port, asked in ((tree.port, names), (tree.port12, ("g.example",))):
            done = subprocess.run(
                [
                    *(sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}"),
                    *(a for n in asked for a in ("--sni", n)),
                    *("--format", "json", "--config", str(tree.conf), *build.target_flags),
                ],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
            for result in json.loads(done.stdout):
                results[(port, result["sni"])] = result
        oracle = {
            name: s_client(client, tree.port, name, name or "127.0.0.1", None, "1_3")
            for name in (*names, None)
        }
        oracle["g.example"] = s_client(client, tree.port12, "g.example", "g.example", None, "1_2")
    assert len(results) == 7  # four names and no SNI on one port, g and no SNI on the other
    for (port, sni), result in results.items():
        assert result["mismatches"] == [], (sni, result["mismatches"])
        seen = result["client_certificate"]
        key = sni if port == tree.port or sni is not None else "g.example"
        s = oracle[key]
        assert seen["requested"] == s.requested, sni
        assert (seen["ca_names"] or []) == s.ca_names, sni
        assert seen["status_without"] == s.status, sni
        assert seen["requested_in"] == ("TLSv1.2" if port == tree.port12 else "TLSv1.3"), sni
    by_name = {sni: r["client_certificate"] for (_, sni), r in results.items() if sni}
    assert by_name["b.example"]["without"] == by_name["g.example"]["without"] == "no-certificate"
    assert by_name["b.example"]["ca_names"] == [
        "CN=nginxgen test intermediate",
        "CN=nginxgen test root",
    ]
    assert by_name["c.example"]["without"] == "served"
    assert by_name["d.example"]["requested"] and by_name["d.example"]["ca_names"] == []
    assert not by_name["a.example"]["requested"]


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_http2_requests_for_another_name_get_421(build: Build, tmp_path: Path) -> None:
    """The same check over HTTP/2 (ngx_http_v2.c hands :authority to ngx_http_set_virtual_server),
    where it matters: curl connects with SNI a.example and asks for b.example (:authority from
    its Host header), as a browser reusing the connection would; the reverse is served by a.
    Needs `http2 on` (1.25.1+) or `listen ... http2` (1.22.1)."""
    require_program("curl", "the HTTP/2 client of this test")
    tree = make_tree(build, tmp_path)
    text = tree.conf.read_text()
    http2 = "http2 on;" if Version(build.nginx_version) >= Version("1.25.1") else None
    if http2:
        text = text.replace(
            "ssl_protocols TLSv1.2 TLSv1.3;", "ssl_protocols TLSv1.2 TLSv1.3; " + http2
        )
    else:
        text = text.replace(
            f"{tree.port} ssl default_server", f"{tree.port} ssl default_server http2"
        )
    tree.conf.write_text(text)

    def get(sni: str, host: str) -> tuple[str, str]:
        done = subprocess.run(
            ["curl", "-sk", "--http2", "--max-time", "10", "-o", "/dev/null",
             "-w", "%{http_version} %{http_code}",
             "--resolve", f"{sni}:{tree.port}:127.0.0.1", "-H", f"Host: {host}",
             f"https://{sni}:{tree.port}/"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        version, status = done.stdout.split()
        return version, status

    config = model(tree)
    socket = f"127.0.0.1:{tree.port}"
    with Server(build, tree.conf, [tree.port, tree.port12]):
        seen = {
            pair: get(*pair) for pair in (("a.example", "b.example"), ("b.example", "a.example"))
        }
    said = {pair: request_outcome(config, socket, *pair, certificate=False) for pair in seen}
    assert seen == {
        ("a.example", "b.example"): ("2", "421"),
        ("b.example", "a.example"): ("2", "200"),
    }
    assert [s.status for s in said.values()] == [421, None]


@pytest.mark.live
@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_ca_names_in_the_order_nginx_sends_them(
    build: Build, client: Build, tmp_path: Path
) -> None:
    """A CA file of three subjects out of X509_NAME_cmp's order: nginx before 1.27.2 reads it
    with SSL_load_client_CA_file, which BoringSSL and AWS-LC sort (knowledge:
    client_ca_list_sorted) and OpenSSL does not; from 1.27.2 nginx lists the subjects itself,
    in the file's order. The model names them in the order s_client reads them."""
    pki = CertificateFactory(tmp_path / "pki")
    server = pki.leaf("a.example", sans=("a.example",))
    deep_ca = pki.ca("nginxgen test deep CA")
    cas = tmp_path / "cas.pem"
    cas.write_bytes(_pem(pki.intermediate) + _pem(deep_ca[0]) + _pem(pki.root))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"server {{ listen 127.0.0.1:{port} ssl; server_name a.example;\n"
        f"    ssl_certificate {server.fullchain}; ssl_certificate_key {server.key};\n"
        f"    ssl_verify_client on; ssl_client_certificate {cas}; return 200; }}\n"
        "}\n"
    )
    prepare_prefix(conf, build, workers=1)
    with Server(build, conf, [port]):
        seen = s_client(client, port, "a.example", "a.example", None, "1_2")
    config = build_config(load_path(str(conf)))
    target = resolve(build.nginx_version, build.tls_library)
    model = NameModel(Effective(config, target), f"127.0.0.1:{port}", "a.example")
    assert seen.requested, seen.output[-1500:]
    assert list(model.client_ca_names().value or ()) == seen.ca_names
    assert sorted(seen.ca_names) == sorted(
        ["CN=nginxgen test intermediate", "CN=nginxgen test deep CA", "CN=nginxgen test root"]
    )
