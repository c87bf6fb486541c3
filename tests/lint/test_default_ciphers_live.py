"""No ssl_ciphers: nginx's own default list on real nginx (issue 44).

Without an ssl_ciphers line nginx uses `HIGH:!aNULL:!MD5` (knowledge: defaults), which offers
static-RSA and CBC SHA-1 suites; `openssl s_client` negotiates them. Lint judges that default
exactly like the same string written out (NGX402, NGX403, the same suites named), at the http{}
line where the line would go; its unsafe fix adds Mozilla's intermediate list there, which
nginx -t takes and after which those suites are refused and an ECDHE AEAD suite still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.shell.cli import main
from tests.builds import Build
from tests.helpers import make_cert
from tests.live import (
    Server,
    cipher_findings,
    cipher_fix_holds,
    free_port,
    prepare_prefix,
    s_client,
)

# an RSA certificate: static RSA suites need one
STATIC_RSA_CBC = "AES128-SHA"  # no forward secrecy (NGX402), CBC with SHA-1 (NGX403)
ECDHE_CBC = "ECDHE-RSA-AES128-SHA"  # forward secret, CBC with SHA-1 (NGX403)
AEAD = "ECDHE-RSA-AES128-GCM-SHA256"  # what stays
PSK = "PSK-AES128-GCM-SHA256"  # in the default list, never negotiated by nginx


def tree(folder: Path, port: int, ciphers: str = "") -> Path:
    pair = make_cert(folder, "a.test", "rsa")
    conf = folder / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"    ssl_protocols TLSv1.2 TLSv1.3;\n{ciphers}"
        f"    server {{\n        listen 127.0.0.1:{port} ssl default_server;\n"
        "        server_name a.test;\n"
        f"        ssl_certificate {pair.cert};\n        ssl_certificate_key {pair.key};\n"
        "    }\n}\n"
    )
    return conf


def negotiates(client: Build, port: int, cipher: str) -> bool:
    done = s_client(client, port, "a.test", version="1.2", ciphers=cipher, path=None)
    return done.cipher == cipher


@pytest.mark.live
@pytest.mark.parametrize(
    "build", ["bookworm", "trixie", "wheel", "openssl36", "openssl40"], indirect=True
)
def test_nginx_default_ciphers_are_judged_like_the_string_written_out(
    build: Build, client: Build, tmp_path: Path
) -> None:
    port = free_port()
    written = tmp_path / "written"
    written.mkdir()
    spelled = cipher_findings(tree(written, port, "    ssl_ciphers HIGH:!aNULL:!MD5;\n"), build)
    conf = tree(tmp_path, port)
    found = cipher_findings(conf, build)
    assert sorted(f.code for f in found) == ["NGX402", "NGX403"], found
    assert all(f.line == 3 for f in found), found  # the http{} line: where the line would go
    for default, line in zip(found, spelled, strict=True):
        assert default.code == line.code
        # the same suites, said after which servers take the default
        assert default.message.endswith(line.message), (default.message, line.message)
        assert "no ssl_ciphers for server a.test" in default.message
    prepare_prefix(conf, build)
    # the default's PSK suites are not counted: nginx sets up no pre-shared key, and a client
    # with one that offers only a PSK suite gets no handshake (found trying public configs)
    assert all("PSK" not in f.message for f in found), found
    with Server(build, conf, [port]):
        assert negotiates(client, port, STATIC_RSA_CBC)
        assert negotiates(client, port, ECDHE_CBC)
        psk = client.openssl(
            "s_client",
            "-connect",
            f"127.0.0.1:{port}",
            "-tls1_2",
            "-cipher",
            PSK,
            "-psk",
            "0a0b0c0d",
        )
        assert "CONNECTED" in psk.stdout and psk.returncode != 0, psk.stdout + psk.stderr
        assert f"Cipher is {PSK}" not in psk.stdout
    flags = ["--nginx-version", build.nginx_version, "--tls-library", build.tls_library]
    assert main(["lint", *flags, "--fix", str(conf)]) == 1  # unsafe: not applied by --fix
    assert "ssl_ciphers" not in conf.read_text()
    cipher_fix_holds(build, conf)
    with Server(build, conf, [port]):
        assert not negotiates(client, port, STATIC_RSA_CBC)
        assert not negotiates(client, port, ECDHE_CBC)
        assert negotiates(client, port, AEAD)
