"""What nginx does with the same directive twice in one block (NGX006), checked against `nginx
-t` of each real build: those whose setter nginx's source says refuses a second line are refused
as "is duplicate" (nginx_directives.json's `duplicate`), `merged` ones accepted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nginxgen.knowledge import nginx
from nginxgen.knowledge.directives import refused_twice
from nginxgen.knowledge.target import resolve
from tests.builds import BUILD_NAMES, NEWEST_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t
from tests.fuzzing.generate_check import real_files


def values(folder: Path) -> dict[str, tuple[str, str]]:
    """A valid value for each directive of the table (first line, second line)."""
    files = real_files()
    cert, key = files.certificates[0]["cert"], files.certificates[0]["key"]
    ticket = folder / "ticket.key"
    ticket.write_bytes(os.urandom(80))
    same = {
        "ssl_ciphers": "HIGH",
        "ssl_ecdh_curve": "X25519",
        "ssl_prefer_server_ciphers": "on",
        "ssl_session_timeout": "5m",
        "ssl_session_tickets": "on",
        "ssl_dhparam": files.dhparam,
        "ssl_stapling": "on",
        "ssl_stapling_verify": "on",
        "ssl_stapling_file": cert,
        "ssl_stapling_responder": "http://127.0.0.1/",
        "ssl_trusted_certificate": files.chain,
        "ssl_buffer_size": "16k",
        "ssl_early_data": "on",
        "ssl_reject_handshake": "on",
        "http2": "on",
        "http3": "on",
        "keepalive_timeout": "65",
        "keepalive_requests": "1000",
        "ssl_verify_client": "off",
        "ssl_verify_depth": "1",
        "ssl_client_certificate": files.chain,
        "resolver": "127.0.0.1",
        "resolver_timeout": "5s",
        "ssl_password_file": key,
        "ssl_crl": cert,
        "ssl_ocsp": "off",
        "ssl_ocsp_cache": "off",
        "ssl_ocsp_responder": "http://127.0.0.1/",
        "ssl_certificate_cache": "off",
        "ssl_certificate_compression": "on",
        "sendfile": "on",
        "tcp_nopush": "on",
        "server_tokens": "off",
    }
    pairs = {name: (value, value) for name, value in same.items()}
    pairs["ssl_protocols"] = ("TLSv1 TLSv1.1 TLSv1.2 TLSv1.3", "TLSv1.2 TLSv1.3")
    pairs["ssl_session_cache"] = ("shared:A:1m", "shared:B:1m")
    return pairs


@pytest.mark.parametrize("name", (*BUILD_NAMES, *NEWEST_BUILD_NAMES))
def test_duplicate_table_is_what_nginx_does(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    table = nginx.duplicates()
    target = resolve(build.nginx_version, build.tls_library)
    pairs = values(tmp_path)
    assert table.merged <= set(pairs)
    checked = 0
    for directive, (first, second) in pairs.items():
        once = nginx_t(build, f"events {{}} http {{ {directive} {first}; }}", tmp_path)
        if once.startswith("unknown directive"):
            continue  # another build's module or version
        assert once == "", (directive, once)
        twice = nginx_t(
            build, f"events {{}} http {{ {directive} {first}; {directive} {second}; }}", tmp_path
        )
        refused = refused_twice(target, directive, "http")
        assert not (refused and directive in table.merged), directive
        expected = "is duplicate" if refused else ""
        assert (expected in twice) if expected else twice == "", (directive, twice)
        checked += 1
    assert checked >= 30
