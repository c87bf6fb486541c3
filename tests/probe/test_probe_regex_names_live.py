r"""A server_name regex with a named group (trial 12, Internet.nl: `~^(?<lang>nl\.|en\.)?
example\.com$`, the form nginx's documentation writes). Python's `re` refused `(?<name>`, so
the model took the name for the default server's, whose `ssl_reject_handshake on` refuses it,
and the probe called a server that answers (curl and s_client see it) "not reloaded?". The
regexes nginx compiles are now read through nginxgen.base.pcre."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import REPO, Build
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory


@pytest.mark.parametrize("build", ["trixie"], indirect=True)
def test_a_named_group_server_name_is_the_server_that_answers(
    build: Build, client: Build, tmp_path: Path
) -> None:
    chain = CertificateFactory(tmp_path / "pki", "ecdsa").leaf(
        "example.com", sans=("example.com", "nl.example.com")
    )
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nuser root;\nevents {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"    ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
        f"    server {{ listen 127.0.0.1:{port} ssl default_server; server_name _;\n"
        "        ssl_reject_handshake on; }\n"
        f"    server {{ listen 127.0.0.1:{port} ssl;\n"
        "        server_name ~^(?<lang>nl\\.|en\\.)?example\\.com$;\n"
        '        return 200 "ok $lang\\n"; }\n}\n'
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [port]):
        seen = s_client(client, port, "nl.example.com", version="1.3", path="/")
        probed = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--config",
             str(conf), "--sni", "nl.example.com", "--sni", "example.com", "--format", "json",
             *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
    assert "ok nl." in seen.output, seen.output[-600:]
    results = {r["sni"]: r for r in json.loads(probed.stdout)}
    for name in ("nl.example.com", "example.com"):
        assert results[name]["mismatches"] == [], results[name]["mismatches"]
