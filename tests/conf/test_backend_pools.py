"""Kept backend connections that several locations share (conf/backend_pools.py): an upstream{}
block's keepalive cache serves every location that passes to it, unless it is `local` (the
default from nginx 1.29.7). scripts/fuzz.py backends saw a location with verification on served
over another location's unverified connection, with that location's SNI, on 1.22.1, 1.26.3 and
1.31.3."""

from __future__ import annotations

from pathlib import Path

from nginxgen.conf.backend_pools import shared_pools
from nginxgen.conf.config import build
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve

MID = ("1.26.3", "openssl-3.5.9")
NEW = ("1.31.3", "openssl-3.3.7")
LOCATIONS = (
    "server { listen 443 ssl; server_name a.example;"
    " location /a { proxy_pass https://api; proxy_ssl_server_name on; }"
    " location /b { proxy_pass https://api; proxy_ssl_verify on;"
    "   proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_name api.example; }"
    " location /c { proxy_pass https://solo; } }"
)


def pools(keepalive: str, target: tuple[str, str], tmp_path: Path) -> dict[str, tuple[str, ...]]:
    """The shared pools of LOCATIONS with `keepalive` in the block both /a and /b pass to."""
    path = tmp_path / "nginx.conf"
    path.write_text(
        "events {}\nhttp {\n"
        f"upstream api {{ server 127.0.0.1:8443; {keepalive} }}\n"
        "upstream solo { server 127.0.0.1:8443; keepalive 4; }\n" + LOCATIONS + "\n}\n"
    )
    effective = Effective(build(load_path(str(path))), resolve(*target))
    return {p.block.args[0]: p.differ for p in shared_pools(effective.backends())}


def test_a_block_that_keeps_connections_shares_them(tmp_path: Path) -> None:
    assert pools("keepalive 8;", MID, tmp_path) == {
        "api": ("verify", "trusted_certificate", "name", "server_name")
    }
    assert pools("keepalive 8;", NEW, tmp_path) == {
        "api": ("verify", "trusted_certificate", "name", "server_name")
    }


def test_local_and_no_keepalive_share_nothing(tmp_path: Path) -> None:
    assert pools("", MID, tmp_path) == {}  # keeps nothing before 1.29.7
    assert pools("", NEW, tmp_path) == {}  # from 1.29.7: `keepalive 32 local` by default
    assert pools("keepalive 8 local;", NEW, tmp_path) == {}
