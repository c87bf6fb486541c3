"""nginx 1.28.3, the stable line, against OpenSSL 3.6.3 and 4.0.3, compiled here from crates.io's
sources (issue 36; scripts/source_builds.py): what `nginx -V` and the build's own `openssl`
program say, that the modules TLS configurations use are in, that the post-quantum hybrid group
passes `nginx -t`, and that the build's own s_client, an independent client of the same
library, negotiates it over loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import NEWEST_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.knowledge.test_tls_libraries_live import nginx_t, one_server
from tests.live import Server, free_port, s_client

LIBRARY = {"openssl36": "3.6.3", "openssl40": "4.0.3"}
# What the live tests and the tables need of nginx: HTTP/2 and HTTP/3, the stream TLS family
MODULES = {"http_ssl", "http_v2", "http_v3", "http_stub_status", "http_realip"}
MODULES |= {"stream", "stream_ssl", "stream_ssl_preread", "stream_realip"}


@pytest.fixture(params=NEWEST_BUILD_NAMES)
def newest(
    request: pytest.FixtureRequest, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> Build:
    return require_build(provisioned, str(request.param))


def test_nginx_v_and_the_openssl_program_name_the_versions(newest: Build) -> None:
    version = LIBRARY[newest.name]
    said = newest.nginx("-V").stderr
    assert "nginx version: nginx/1.28.3\n" in said
    assert f"built with OpenSSL {version} " in said
    target = build_target(newest)
    assert str(target.library) == newest.tls_library == f"openssl-{version}"
    modules = target.modules or frozenset()
    assert modules >= MODULES, sorted(MODULES - modules)
    # the program is the same compile: its library is the one nginx was built with
    program = newest.openssl("version", "-a").stdout
    assert program.startswith(f"OpenSSL {version} ") and f"(Library: OpenSSL {version} " in program


def test_the_hybrid_group_passes_nginx_t(newest: Build, tmp_path: Path) -> None:
    done = nginx_t(newest, tmp_path, "ssl_ecdh_curve X25519MLKEM768:X25519;")
    assert done.returncode == 0 and "[warn]" not in done.stderr, done.stderr


def test_quic_passes_nginx_t(newest: Build, tmp_path: Path) -> None:
    """HTTP/3 through nginx 1.28's OpenSSL compatibility layer (nginx uses OpenSSL's own QUIC
    API only from 1.29.x)."""
    done = nginx_t(newest, tmp_path, f"listen 127.0.0.1:{free_port()} quic; http3 on;")
    assert done.returncode == 0, done.stderr


def test_a_stream_tls_server_with_preread_passes_nginx_t(newest: Build, tmp_path: Path) -> None:
    done = nginx_t(newest, tmp_path, "ssl_preread on; return ok;", block="stream")
    assert done.returncode == 0, done.stderr


def test_its_own_s_client_negotiates_tls13_with_mlkem(newest: Build, tmp_path: Path) -> None:
    port = free_port()
    lines = "ssl_protocols TLSv1.2 TLSv1.3; ssl_ecdh_curve X25519MLKEM768:X25519; return 200;"
    with Server(newest, one_server(tmp_path, port, lines), [port]):
        hello = s_client(newest, port, "a.test")
    assert hello.ok and hello.status == 200, hello.output[-1500:]
    assert (hello.protocol, hello.group) == ("TLSv1.3", "X25519MLKEM768"), hello.output[-1500:]
