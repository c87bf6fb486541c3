"""DHE suites without `ssl_dhparam`, live (a trial of public configs: the Docker Registry's,
Passbolt's and smallstep's hello-mTLS nginx examples list `EDH+AESGCM` and no ssl_dhparam).
nginx sets no DH parameters then (since 1.11.0) and the library skips DHE suites: s_client gets
a handshake failure for one, and `probe --config` called the missing suites "the server does not
do what this config says (not reloaded?)". The model now takes DHE suites only with
ssl_dhparam, and both ways agree with the server and with s_client."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from nginxgen.probe.predict import NOT_RUNNING
from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conf.test_stream_live import _main
from tests.conftest import require_build
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory

DHE = "DHE-RSA-AES128-GCM-SHA256"


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
@pytest.mark.parametrize("dhparam", [False, True], ids=["no-dhparam", "dhparam"])
def test_dhe_suites_only_with_dh_parameters(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str, dhparam: bool
) -> None:
    build = require_build(provisioned, name)
    assert build.openssl_argv is not None
    cert = CertificateFactory(tmp_path / "pki", "rsa").leaf("dhe.test", kind="rsa")
    for needed in ("logs", "temp"):
        (tmp_path / needed).mkdir()
    dh = ""
    if dhparam:
        params = tmp_path / "ffdhe2048.pem"
        made = subprocess.run(
            [*build.openssl_argv, "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt",
             "group:ffdhe2048", "-out", str(params)],
            capture_output=True, check=False, env=build.env(),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        dh = f"ssl_dhparam {params}; "
    port = free_port()
    conf = tmp_path / "nginx.conf"
    temp = " ".join(build.temp_path_directives)
    conf.write_text(_main(
        f"http {{ access_log off; {temp}\n"
        f"server {{ listen 127.0.0.1:{port} ssl; server_name dhe.test; "
        f"ssl_certificate {cert.fullchain}; ssl_certificate_key {cert.key}; "
        f"ssl_protocols TLSv1.2; ssl_ciphers ECDHE+AESGCM:EDH+AESGCM; {dh}return 200; }}\n}}\n"
    ))  # fmt: skip
    with Server(build, conf, [port]):
        direct = s_client(build, port, "dhe.test", version="1.2", ciphers=DHE, path=None)
        done = run_nginxgen(
            "probe",
            f"127.0.0.1:{port}",
            "--sni",
            "dhe.test",
            "--format",
            "json",
            "--config",
            str(conf),
            *build.target_flags,
            timeout=300,
        )
    assert direct.ok is dhparam, direct.output[-1500:]
    assert done.returncode in (0, 1), done.stderr
    (answer,) = [r for r in json.loads(done.stdout) if r["sni"] == "dhe.test"]
    assert not [m for m in answer["mismatches"] if NOT_RUNNING in m["why"]], answer["mismatches"]
    (said,) = [s for s in answer["config"] if s["key"] == "tls12.accepted"]
    assert said["predicted"] and said["value"] == said["observed"], said
    assert (DHE in said["observed"]) is dhparam, said
