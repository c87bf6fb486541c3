"""The stream{} model (nginxgen/conf/stream.py) without a live server: servers and listens,
the default server of each address:port, which server a name reaches (TLS, ssl_preread, none),
the TLS in effect per name by nginx version, and the client side towards a backend.
tests/conf/test_stream_live.py holds the same questions against real nginx."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.config import build
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.stream import Stream
from nginxgen.knowledge.target import resolve

OLD = ("1.24.0", "openssl-3.0")  # before stream virtual servers
MID = ("1.28.3", "openssl-3.5.7")  # virtual servers, SNI callback after the protocol choice
NEW = ("1.31.3", "openssl-3.3.7")  # ClientHello callback: protocols per virtual server

TREE = """events {}
http { server { listen 443 ssl; ssl_certificate c; ssl_certificate_key k; ssl_ecdh_curve X448; } }
stream {
    ssl_certificate c; ssl_certificate_key k;
    ssl_session_cache shared:S:1m;
    server {
        listen 127.0.0.1:8443 ssl default_server;
        listen 127.0.0.1:53 udp;
        ssl_ecdh_curve prime256v1;
        ssl_protocols TLSv1.2 TLSv1.3;
        proxy_pass backend.example:443;
        proxy_ssl on;
    }
    server {
        listen 127.0.0.1:8443 ssl proxy_protocol;
        server_name b.example;
        ssl_ecdh_curve X25519;
        ssl_protocols TLSv1.3;
        ssl_session_cache off;
        proxy_pass [::1]:9000;
        proxy_ssl on;
        proxy_ssl_verify on;
        proxy_ssl_trusted_certificate ca.pem;
        proxy_ssl_server_name on;
        proxy_ssl_name api.example;
        proxy_ssl_session_reuse off;
    }
    server { listen 127.0.0.1:9443; ssl_preread on; proxy_pass 127.0.0.1:8443; }
    server { listen 127.0.0.1:9443; server_name p.example; return "p\\n"; }
    server { listen 127.0.0.1:9444 default_server; proxy_pass 127.0.0.1:8443; }
    server { listen 127.0.0.1:9444; server_name q.example; ssl_preread on; return "q\\n"; }
}
"""


def model(tmp_path: Path, target: tuple[str, str]) -> Stream:
    path = tmp_path / "nginx.conf"
    path.write_text(TREE)
    return Stream(Effective(build(load_path(str(path))), resolve(*target)))


def test_servers_listens_and_defaults(tmp_path: Path) -> None:
    stream = model(tmp_path, NEW)
    config = stream.config
    assert config.block == "stream" and len(config.servers) == 6
    assert list(config.sockets) == [
        "127.0.0.1:8443", "127.0.0.1:53/udp", "127.0.0.1:9443", "127.0.0.1:9444",
    ]  # fmt: skip
    assert config.tls_socket("127.0.0.1:8443") and not config.tls_socket("127.0.0.1:53/udp")
    vhost = config.sockets["127.0.0.1:8443"][1]
    assert vhost.names == ["b.example"] and vhost.listens[0].proxy_protocol
    assert config.default_server("127.0.0.1:8443") is config.servers[0]
    # the first server of an address is its default without `default_server`
    assert config.default_server("127.0.0.1:9443") is config.servers[2]
    # http{}'s model is untouched by stream{}
    assert [s.block for s in stream.effective.stream.config.servers] == ["stream"] * 6


@pytest.mark.parametrize(
    ("target", "protocols"),
    [(MID, {"TLSv1.2", "TLSv1.3"}), (NEW, {"TLSv1.3"})],
)
def test_tls_per_name(tmp_path: Path, target: tuple[str, str], protocols: set[str]) -> None:
    """The default server decides the groups and the session cache for every name; protocols
    are the name's own from 1.29.2 only; a name no server has gets the default server."""
    stream = model(tmp_path, target)
    b = stream.tls("127.0.0.1:8443", "b.example")
    assert b.server.names == ["b.example"]
    groups = b.groups()
    assert groups.value == frozenset({"secp256r1"})
    assert [i.line.args for i in groups.ignored] == [["X25519"]]
    assert "stream server" in groups.ignored[0].why
    assert b.protocols().value == protocols
    assert bool(b.protocols().ignored) == (protocols != {"TLSv1.3"})
    session = b.setting("ssl_session_cache")
    assert session.line is not None and session.line.args == ["shared:S:1m"]
    assert [i.line.args for i in session.ignored] == [["off"]]
    other = stream.tls("127.0.0.1:8443", "nobody.example")
    assert other.server is stream.config.servers[0] and not other.groups().ignored
    with pytest.raises(ValueError, match="does not terminate TLS"):
        stream.tls("127.0.0.1:9443", "p.example")


def test_no_virtual_servers_before_1_25_5(tmp_path: Path) -> None:
    """Before nginx 1.25.5 a stream address:port has one server: no name selects another."""
    stream = model(tmp_path, OLD)
    assert stream.route("127.0.0.1:8443", "b.example").server is stream.config.servers[0]
    assert stream.route("127.0.0.1:9443", "p.example").chosen_by == "default"


def test_preread_routes_only_from_the_default_server(tmp_path: Path) -> None:
    stream = model(tmp_path, NEW)
    assert stream.preread_sockets() == ["127.0.0.1:9443"]
    p = stream.route("127.0.0.1:9443", "p.example")
    assert (p.server.names, p.chosen_by, p.preread, p.terminates) == (
        ["p.example"], "preread", True, False,
    )  # fmt: skip
    unknown = stream.route("127.0.0.1:9443", "b.example")
    assert unknown.chosen_by == "default" and unknown.proxy_pass is not None
    # the vhost's own ssl_preread never runs: its name reaches the default server
    q = stream.route("127.0.0.1:9444", "q.example")
    assert q.server is stream.config.default_server("127.0.0.1:9444")
    assert [i.line.args for i in q.ignored] == [["on"]] and not q.preread
    tls = stream.route("127.0.0.1:8443", "b.example")
    assert (tls.chosen_by, tls.terminates, tls.preread) == ("tls", True, False)


def test_upstream_tls(tmp_path: Path) -> None:
    """nginx's client-side defaults: no verification, no SNI, sessions reused, the name from
    proxy_pass; each line that changes one is the deciding line."""
    stream = model(tmp_path, NEW)
    default, vhost = stream.config.sockets["127.0.0.1:8443"]
    plain = stream.upstream_tls(default)
    assert plain is not None and plain.unverified
    assert (plain.server_name().value, plain.session_reuse().value, plain.name().value) == (
        False, True, "backend.example",
    )  # fmt: skip
    assert plain.verify().line is None and plain.protocols().value == ("TLSv1.2", "TLSv1.3")
    strict = stream.upstream_tls(vhost)
    assert strict is not None and not strict.unverified
    verify = strict.verify().line
    assert verify is not None and verify.args == ["on"]
    assert (strict.name().value, strict.server_name().value, strict.session_reuse().value) == (
        "api.example", True, False,
    )  # fmt: skip
    assert strict.trusted_certificate().value == "ca.pem"
    assert stream.upstream_tls(stream.config.servers[3]) is None  # no proxy_ssl: clear text
    assert (strict.sni(), plain.sni()) == ("api.example", None)
    assert strict.verify().level == "server" and plain.verify().level == "default"


def test_upstream_tls_is_http_backends_model(tmp_path: Path) -> None:
    """stream's proxy_ssl and an http location's proxy_pass https:// are one model (conf/
    client_tls) over their own levels: the same lines give the same answers; an upstream{}
    block's name is the default name in both, stream{}-level lines are inherited."""
    lines = "proxy_ssl_server_name on; proxy_ssl_protocols TLSv1.3; proxy_ssl_conf_command Groups X25519;"
    path = tmp_path / "nginx.conf"
    path.write_text(
        "events {}\n"
        "http { upstream Api { server 127.0.0.1:1; } "
        f"server {{ listen 80; {lines} location / {{ proxy_pass https://api; }} }} }}\n"
        "stream { upstream Api { server 127.0.0.1:1; } "
        f"{lines} server {{ listen 9000; proxy_pass api; proxy_ssl on; }} }}\n"
    )
    effective = Effective(build(load_path(str(path))), resolve(*NEW))
    (http,) = effective.backends()
    tcp = Stream(effective).upstream_tls(Stream(effective).config.servers[0])
    assert tcp is not None
    assert (tcp.verify().level, http.verify().level) == ("default", "default")
    assert tcp.protocols().level == "stream" and http.protocols().level == "server"
    for client in (http, tcp):
        name = client.name()
        assert (name.value, client.sni(), client.protocols().value) == ("api", "api", ("TLSv1.3",))
        assert name.upstream is not None and name.upstream.args == ["Api"]
        assert client.groups()[0] == frozenset({"x25519"})
