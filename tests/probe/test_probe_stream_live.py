"""`nginxgen probe --config --stream` on real nginx: a stream address with a default server and a
virtual server b.example, each with its own certificate, groups and protocols. The probe's
observations for each name are checked against `openssl s_client` (the oracle, not our probe):
a TLS 1.2 handshake, a TLS 1.3 handshake offering X25519 alone and one offering P-256 alone,
and the certificate's subject; and the probe reports no difference from the stream model.

Which server decides, seen here on every build with stream TLS: b.example's certificate is its
own; its groups are the default server's; its protocols are the default server's on nginx
1.28.3 and its own on 1.31.3 (nginx 1.29.2 moved server selection into the ClientHello
callback, knowledge default_server_only.ssl_protocols)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from tests.builds import REPO, Build
from tests.conf.test_stream_live import STREAM_BUILDS, _main
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory


def _tree(port: int, a: tuple[Path, Path], b: tuple[Path, Path]) -> str:
    return f"""stream {{
    server {{
        listen 127.0.0.1:{port} ssl default_server;
        ssl_certificate {a[0]}; ssl_certificate_key {a[1]};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ecdh_curve prime256v1;
        return "a\\n";
    }}
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name b.example;
        ssl_certificate {b[0]}; ssl_certificate_key {b[1]};
        ssl_protocols TLSv1.3;
        ssl_ecdh_curve X25519;
        return "b\\n";
    }}
}}
"""


@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_probe_stream_listeners(build: Build, client: Build, tmp_path: Path) -> None:
    pki = CertificateFactory(tmp_path / "pki")
    a = pki.leaf("a.example", sans=("a.example",))
    b = pki.leaf("b.example", sans=("b.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(_tree(port, (a.fullchain, a.key), (b.fullchain, b.key))))
    (tmp_path / "logs").mkdir()
    with Server(build, conf, [port]):
        done = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", "127.0.0.1", "--config", str(conf),
             "--stream", "--format", "json", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
        results = json.loads(done.stdout)
        seen = {}
        for result in results:
            name = result["sni"]
            sni = name or "127.0.0.1"  # s_client sends no SNI for an IP address
            tls12 = s_client(client, port, sni, version="1.2", path=None)
            x25519 = s_client(client, port, sni, version="1.3", groups="X25519", path=None)
            p256 = s_client(client, port, sni, version="1.3", groups="P-256", path=None)
            assert result["port"] == port
            assert result["protocols"]["TLSv1.2"] == tls12.ok, (name, tls12.output[-400:])
            assert result["protocols"]["TLSv1.3"] == (x25519.ok or p256.ok), name
            assert result["groups"]["X25519"] == x25519.ok, (name, x25519.output[-400:])
            assert result["groups"]["secp256r1"] == p256.ok, (name, p256.output[-400:])
            subject = result["certificate"]["subject"]
            assert f"subject=CN={subject.removeprefix('CN=')}" in (x25519.output + p256.output)
            seen[name] = (tls12.ok, x25519.ok, p256.ok, subject)
    # which server decides: the certificate is the name's, the groups the default server's,
    # the protocols the default server's before nginx 1.29.2 and the name's from then; the
    # probe reports b.example's lines that do not apply, each with why, and nothing else (a
    # value in effect the server did not show would say the model is wrong)
    own_protocols = Version(build.nginx_version) >= Version("1.29.2")
    ignored = {"ssl_ecdh_curve"} | (set() if own_protocols else {"ssl_protocols"})
    mismatches = {(r["sni"], m["setting"]): m for r in results for m in r["mismatches"]}
    assert set(mismatches) == {("b.example", key) for key in ignored}, done.stdout[-3000:]
    assert all("is the default server of" in m["why"] for m in mismatches.values())
    lines = conf.read_text().splitlines()
    deciding = {  # the default server's lines, which decide
        n + 1 for n, text in enumerate(lines) if "prime256v1" in text or "TLSv1.2 TLSv1.3" in text
    }
    assert {m["because"]["line"] for m in mismatches.values()} <= deciding
    assert done.returncode == 1, done.stderr
    assert seen["b.example"] == (not own_protocols, False, True, "CN=b.example"), seen
    assert seen[None] == (True, False, True, "CN=a.example"), seen
