"""NGX413 against a live server (trial 9, Mobilizon's config: `ssl_ciphers
'EECDH+aRSA+AESGCM:!ECDSA'` beside an ECDSA certificate): nginx -t passes, s_client's TLS 1.2
handshake fails and TLS 1.3 succeeds; lint says TLS 1.2 fails, and the probe's model
expects it (it said "not reloaded"). With the suites for both key types, both succeed and lint
says nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.builds import REPO, Build
from tests.every_rule import lint_checked
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory


@pytest.mark.parametrize(
    ("ciphers", "tls12"),
    [
        ("EECDH+aRSA+AESGCM:!ECDSA", False),
        ("ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256", True),
    ],
)
@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
def test_tls12_needs_a_suite_for_the_certificate(
    build: Build, client: Build, ciphers: str, tls12: bool, tmp_path: Path
) -> None:
    chain = CertificateFactory(tmp_path / "pki", "ecdsa").leaf("a.example", sans=("a.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nuser root;\nevents {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"    server {{ listen 127.0.0.1:{port} ssl; server_name a.example;\n"
        f"        ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
        f"        ssl_protocols TLSv1.2 TLSv1.3;\n        ssl_ciphers '{ciphers}';\n"
        "        return 204; }\n}\n"
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [port]):
        old = s_client(client, port, "a.example", version="1.2", path=None)
        new = s_client(client, port, "a.example", version="1.3", path=None)
        probed = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--config",
             str(conf), "--sni", "a.example", "--format", "json", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
    # the probe's model knows it too: TLS 1.2 off is what the config says, not "not reloaded"
    (result,) = [r for r in json.loads(probed.stdout) if r["sni"] == "a.example"]
    assert result["protocols"]["TLSv1.2"] == tls12, result["protocols"]
    assert result["mismatches"] == [], result["mismatches"]
    assert new.ok, new.output[-400:]
    assert old.ok == tls12, old.output[-400:]
    target = resolve(build.nginx_version, build.tls_library)
    found = [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX413"]
    assert bool(found) != tls12, found
    assert all("TLS 1.2 handshakes fail" in f.message for f in found)
