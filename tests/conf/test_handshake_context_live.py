"""Which TLS context a name's handshake runs on (issue 44), on real nginx: a server with no
certificate of its own gets no context (ngx_http_ssl_merge_srv_conf returns before making one),
so the SNI that selects it leaves the connection on the default server's context: the default
server's certificate, protocols and client-certificate request (its CA names), while the
request is still the selected server's (its `ssl_verify_client on` answers 400). The model
(conf/effective.handshake_server, read by NameModel and request_outcome) said the selected
server's own lines applied: no CA names sent, and from nginx 1.29.2 its own protocols.

The oracle is `openssl s_client` (-msg shows the CertificateRequest, then the CA names it
listed); `nginxgen probe --config` must then report no value the server did not show, only
the vhost's own lines that do not apply, each saying why; the language server's hover says the
same of those lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nginxgen.conf.client_certificates import request_outcome
from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge.target import resolve
from tests.builds import BUILD_NAMES, Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conf.test_client_certificates_live import s_client
from tests.helpers import hovers
from tests.live import Server, free_port, prepare_prefix
from tests.pki import CertificateFactory, _pem

NO_CONTEXT = "has no certificate of its own"


def _tree(tmp_path: Path, build: Build) -> tuple[Path, int, list[str]]:
    """a.example: the default server, with a certificate for both names, `ssl_verify_client
    optional` and a CA file; b.example: no certificate, TLS 1.3 only and `ssl_verify_client on`
    of its own. (conf, port, the CA names a.example's file gives)"""
    pki = CertificateFactory(tmp_path / "pki")
    leaf = pki.leaf("a.example", sans=("a.example", "b.example"))
    ca = tmp_path / "ca.pem"
    ca.write_bytes(_pem(pki.intermediate) + _pem(pki.root))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        "ssl_protocols TLSv1.2 TLSv1.3;\n"
        f"server {{ listen 127.0.0.1:{port} ssl default_server; server_name a.example;\n"
        f"    ssl_certificate {leaf.fullchain}; ssl_certificate_key {leaf.key};\n"
        f"    ssl_verify_client optional; ssl_client_certificate {ca};\n"
        '    return 200 "a $ssl_client_verify\\n"; }\n'
        f"server {{ listen 127.0.0.1:{port} ssl; server_name b.example;\n"
        "    ssl_protocols TLSv1.3;\n"
        "    ssl_verify_client on;\n"
        '    return 200 "b $ssl_client_verify\\n"; }\n'
        "}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return conf, port, ["CN=nginxgen test intermediate", "CN=nginxgen test root"]


@pytest.mark.live
@pytest.mark.parametrize("build", BUILD_NAMES, indirect=True)
def test_a_vhost_without_a_certificate_runs_on_the_default_servers_context(
    build: Build, client: Build, tmp_path: Path
) -> None:
    conf, port, ca_names = _tree(tmp_path, build)
    with Server(build, conf, [port]):
        tls12 = s_client(client, port, "b.example", "b.example", None, "1_2")
        tls13 = s_client(client, port, "b.example", "b.example", None, "1_3")
        done = run_nginxgen(
            "probe",
            f"127.0.0.1:{port}",
            "--sni",
            "b.example",
            "--format",
            "json",
            "--config",
            str(conf),
            *build.target_flags,
            timeout=300,
        )
    # the oracle: TLS 1.2 completes (the default server's protocols), the CertificateRequest
    # names the default server's CAs, the leaf is the default server's, and b answers 400
    for seen in (tls12, tls13):
        assert seen.requested and seen.ca_names == ca_names, seen.output[-1500:]
        assert seen.status == 400 and "No required SSL certificate was sent" in seen.output
        assert "subject=CN=a.example" in seen.output
    # the model, as every shell reads it
    target = resolve(build.nginx_version, build.tls_library)
    config = build_config(load_path(str(conf)))
    socket = f"127.0.0.1:{port}"
    model = NameModel(Effective(config, target), socket, "b.example")
    assert model.client_certificate_request().value is True
    assert model.client_ca_names().value == tuple(ca_names)
    assert model.protocols().value == {"TLSv1.2", "TLSv1.3"}
    assert model.certificates().value is not None
    assert model.server.names == ["b.example"] and model.context.names == ["a.example"]
    outcome = request_outcome(config, socket, "b.example", "b.example", certificate=False)
    assert (outcome.handshake.names, outcome.answering.names, outcome.kind) == (
        ["a.example"],
        ["b.example"],
        "no-certificate",
    )
    # the probe: every value in effect is what the server showed; b's own ssl_protocols is
    # reported as a line that does not apply, and why
    found = json.loads(done.stdout)
    by_name = {r["sni"]: r for r in found}
    for result in found:
        for m in result["mismatches"]:
            assert NO_CONTEXT in m["why"], (result["sni"], m)
    (ignored,) = by_name["b.example"]["mismatches"]
    assert ignored["setting"] == "ssl_protocols" and ignored["expected"] == ["TLSv1.3"]
    assert by_name["b.example"]["client_certificate"]["ca_names"] == ca_names
    assert by_name["b.example"]["certificate"]["subject"] == "CN=a.example"


def test_the_hover_says_the_handshake_is_the_default_servers(tmp_path: Path) -> None:
    """The language server reads the same answer: b.example's ssl_protocols line is ignored
    on the address, because b.example has no certificate of its own (on nginx 1.31.3, where a
    vhost with one would decide its protocols itself)."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "    server { listen 443 ssl default_server; ssl_certificate a.crt;"
        " ssl_certificate_key a.key; }\n"
        "    server { listen 443 ssl; server_name b.example;\n"
        "        ssl_protocols TLSv1.3; }\n"
        "    server { listen 443 ssl; server_name c.example; ssl_certificate c.crt;"
        " ssl_certificate_key c.key;\n"
        "        ssl_protocols TLSv1.3; }\n"
        "}\n"
    )
    vhost, own = hovers(conf, (5, 7), ("1.31.3", "openssl-3.5.7"))
    assert "ignored on *:443" in vhost and NO_CONTEXT in vhost, vhost
    assert "ignored" not in own, own
