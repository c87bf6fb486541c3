"""The suites an approximate cipher model (BoringSSL, AWS-LC: OpenSSL's rules) says a string
enables, against a live server of that build (trial 10: lint listed AES256-CCM, ARIA and DHE
suites for BoringSSL's `HIGH:!aNULL:!MD5`, which s_client could not get). Each static-RSA
suite the model keeps (NGX402's) is negotiated by s_client alone, and none the model leaves out
(the library does not have them: nginx -t of one alone says no cipher matches) is."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.ciphers.engine import evaluate
from nginxgen.ciphers.model import load_model, model_for
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.live import Server, free_port, s_client
from tests.pki import CertificateFactory

STRING = "HIGH:!aNULL:!MD5"  # nginx's default


@pytest.mark.parametrize("build", ["boringssl", "awslc"], indirect=True)
def test_the_model_keeps_the_suites_the_library_has(
    build: Build, client: Build, tmp_path: Path
) -> None:
    model = model_for(resolve(build.nginx_version, build.tls_library).library)
    # the suites the string selects, as NGX402 and NGX403 count them
    suites = [s.name for s in evaluate(STRING, model).suites if not s.tls13 and s.au == "RSA"]
    unmeasured = [
        s.name
        for s in evaluate(STRING, load_model("openssl-3.5")).suites
        if not s.tls13 and s.au == "RSA"
    ]
    assert set(suites) < set(unmeasured)  # some left out: CCM, ARIA, Camellia, DHE
    chain = CertificateFactory(tmp_path / "pki", "rsa").leaf("a.example", kind="rsa")
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nuser root;\nevents {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"    server {{ listen 127.0.0.1:{port} ssl; server_name a.example;\n"
        f"        ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
        f"        ssl_protocols TLSv1.2; ssl_ciphers '{STRING}';\n        return 204; }}\n}}\n"
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [port]):
        # the static-RSA ones NGX402 names (which of the others the library's own rules select
        # is still approximate: BoringSSL leaves ECDHE-RSA-AES128-SHA256 out of HIGH)
        refused = [
            name
            for name in suites
            if not name.startswith("ECDHE-")
            and not s_client(client, port, "a.example", version="1.2", ciphers=name, path=None).ok
        ]
        taken = [
            name
            for name in unmeasured
            if name not in suites
            and s_client(client, port, "a.example", version="1.2", ciphers=name, path=None).ok
        ]
    assert refused == [], refused  # every static-RSA suite of the model: negotiated
    assert taken == [], taken  # the ones it left out: never
