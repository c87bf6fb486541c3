"""TLS 1.3 resumption behind `return 444` (trial 10, Alliedium's awesome-nginx on BoringSSL: a
default server that answers with nothing). nginx writes nothing to the probe's first
connection; OpenSSL sends its TLS 1.3 tickets anyway and the next connection resumes, BoringSSL
sends them only with its first write, so there is no ticket to offer. The probe said the
BoringSSL server "does not do what this config says (not reloaded?)"; s_client sees the same
as the probe, and the probe now leaves that check uncompared there (and compares it on
OpenSSL, where it resumes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import REPO, Build
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory


@pytest.mark.parametrize(
    ("build", "resumes"),
    [("trixie", True), ("boringssl", False), ("awslc", False)],
    indirect=["build"],
)
def test_tls13_resumption_behind_444(
    build: Build, client: Build, resumes: bool, tmp_path: Path
) -> None:
    chain = CertificateFactory(tmp_path / "pki", "ecdsa").leaf("a.example", sans=("a.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nuser root;\nevents {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        "    ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3;\n"
        f"    server {{ listen 127.0.0.1:{port} ssl default_server;\n"
        f"        ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
        "        return 444; }\n}\n"
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    sessions = tmp_path / "session.pem"
    with Server(build, conf, [port]):
        s_client(client, port, "a.example", version="1.3", sess_out=sessions, path="/")
        again = s_client(client, port, "a.example", version="1.3", sess_in=sessions, path=None)
        probed = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--config",
             str(conf), "--sni", "a.example", "--format", "json", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
    assert ("Reused, TLSv1.3" in again.output) == resumes, again.output[-600:]
    (result,) = [r for r in json.loads(probed.stdout) if r["sni"] == "a.example"]
    assert result["resumption"]["tls13_psk_resumed"] is resumes, result["resumption"]
    assert result["resumption"]["tls13_answered"] is False, result["resumption"]
    assert result["mismatches"] == [], result["mismatches"]
