"""The model of TLS towards backends (conf/upstream): what a location's pass to a TLS backend
gets, line by line, as nginx's merge gives it (ngx_http_proxy_merge_loc_conf)."""

from __future__ import annotations

from pathlib import Path

from nginxgen.conf.config import build
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.upstream import BackendTls
from nginxgen.knowledge.target import resolve

OLD = ("1.22.1", "openssl-3.0.22")
MID = ("1.26.3", "openssl-3.5.9")
NEW = ("1.31.3", "openssl-3.3.7")


def model(body: str, target: tuple[str, str], tmp_path: Path) -> dict[str, BackendTls]:
    """The backends of `body` (http{} content), by the location's path."""
    path = tmp_path / "nginx.conf"
    path.write_text("events {}\nhttp {\n" + body + "\n}\n")
    effective = Effective(build(load_path(str(path))), resolve(*target))
    return {b.location.stmt.args[-1]: b for b in effective.backends()}


SERVER = "server {{ listen 443 ssl; server_name a.example; {body} }}"


def test_only_tls_passes_are_backends(tmp_path: Path) -> None:
    found = model(
        SERVER.format(
            body="location /a { proxy_pass http://b.example; }"
            " location /b { proxy_pass HTTPS://b.example; }"
            " location /c { grpc_pass grpcs://b.example:50051; }"
            " location /d { grpc_pass b.example:50051; }"
            " location /e { uwsgi_pass suwsgi://b.example:9000; }"
            " location /f { proxy_pass $url; }"  # TLS or not only at run time: not modelled
        ),
        MID,
        tmp_path,
    )
    assert sorted(found) == ["/b", "/c", "/e"]
    assert found["/c"].directive("verify") == "grpc_ssl_verify"


def test_each_setting_is_merged_on_its_own(tmp_path: Path) -> None:
    """A location's own line wins, else the server's, else http{}'s, else the default; the
    nested location inherits its enclosing location's."""
    found = model(
        "proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_protocols TLSv1.3;\n"
        + SERVER.format(
            body="proxy_ssl_server_name on; proxy_ssl_verify off;"
            " location /a { proxy_pass https://b.example; proxy_ssl_verify on;"
            "   location /a/n { proxy_pass https://c.example; proxy_ssl_session_reuse off; } }"
            " location /b { proxy_pass https://b.example; }"
        ),
        OLD,
        tmp_path,
    )
    a, nested, b = found["/a"], found["/a/n"], found["/b"]
    assert (a.verify().value, a.verify().level) == (True, "location")
    assert (nested.verify().value, nested.verify().level) == (True, "location")
    assert (b.verify().value, b.verify().level) == (False, "server")
    assert b.trusted_certificate().value == "/ca.pem"
    assert b.trusted_certificate().level == "http"
    assert b.protocols().value == ("TLSv1.3",)
    assert (b.server_name().value, b.sni()) == (True, "b.example")
    assert nested.session_reuse().value is False and a.session_reuse().value is True
    assert a.session_reuse().line is None  # nginx's default decides


def test_defaults_by_release(tmp_path: Path) -> None:
    body = SERVER.format(body="location / { proxy_pass https://b.example; }")
    protocols = {t: model(body, t, tmp_path)["/"].protocols() for t in (OLD, MID, NEW)}
    assert protocols[OLD].value == ("TLSv1", "TLSv1.1", "TLSv1.2")
    assert protocols[MID].value == ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3")
    assert protocols[NEW].value == ("TLSv1.2", "TLSv1.3")
    backend = model(body, MID, tmp_path)["/"]
    assert backend.verify().value is False and backend.verify().line is None
    assert backend.server_name().value is False and backend.sni() is None
    assert backend.verify_depth().value == "1" and backend.ciphers().value == "DEFAULT"


def test_the_default_name_is_the_upstream_blocks(tmp_path: Path) -> None:
    found = model(
        "upstream backend { server 127.0.0.1:8443; }\n"
        + SERVER.format(
            body="proxy_ssl_server_name on;"
            " location /a { proxy_pass https://Backend/x; }"
            " location /b { proxy_pass https://backend; proxy_ssl_name api.example:8443; }"
            " location /c { proxy_pass https://127.0.0.1:8443; }"
            " location /d { proxy_pass https://[::1]:8443; }"
            " location /e { proxy_pass https://b.example; proxy_ssl_name $host; }"
            " location /f { proxy_pass https://b.example; proxy_ssl_name $proxy_host; }"
        ),
        MID,
        tmp_path,
    )
    a = found["/a"].name()
    assert (a.value, a.line, a.hostname) == ("Backend", None, True)
    assert a.upstream is not None and a.upstream.args == ["backend"]
    assert found["/b"].name().value == "api.example"  # the port is stripped, as nginx does
    assert found["/b"].sni() == "api.example"
    # no SNI for an IP address literal (RFC 6066), whatever server_name says
    assert found["/c"].name().hostname is False and found["/c"].sni() is None
    assert found["/d"].name().value == "[::1]" and found["/d"].sni() is None
    assert found["/e"].name().value is None  # per request
    assert found["/f"].name().value == "b.example"


def test_keepalive_before_and_after_1_29_7(tmp_path: Path) -> None:
    """Before 1.29.7 a backend connection is kept only with `keepalive` in the upstream{} block,
    proxy_http_version 1.1 and the Connection header cleared; from 1.29.7 an upstream{} block
    keeps 32 by default and proxy_pass speaks HTTP/1.1 without Connection. Implicit upstreams
    (a literal host) never keep one; uwsgi never does."""
    plain = (
        "upstream backend { server 127.0.0.1:8443; }\n"
        "upstream pooled { server 127.0.0.1:8443; keepalive 8; }\n"
        + SERVER.format(
            body="location /a { proxy_pass https://backend; }"
            " location /b { proxy_pass https://b.example; }"
            " location /c { proxy_pass https://pooled; proxy_http_version 1.1;"
            '   proxy_set_header Connection ""; }'
            " location /d { proxy_pass https://pooled; proxy_http_version 1.1; }"
            " location /e { grpc_pass grpcs://pooled; }"
            " location /f { uwsgi_pass suwsgi://pooled; }"
            " location /g { proxy_pass https://pooled; proxy_set_header Connection close; }"
        )
    )
    old = {k: v.keepalive() for k, v in model(plain, MID, tmp_path).items()}
    new = {k: v.keepalive() for k, v in model(plain, NEW, tmp_path).items()}
    assert {k: v.kept for k, v in old.items()} == {
        "/a": False, "/b": False, "/c": True, "/d": False, "/e": True, "/f": False, "/g": False,
    }  # fmt: skip
    assert {k: v.kept for k, v in new.items()} == {
        "/a": True, "/b": False, "/c": True, "/d": True, "/e": True, "/f": False, "/g": False,
    }  # fmt: skip
    assert old["/d"].connection is not None and old["/d"].connection.value == "close"
    assert new["/a"].connections == 32 and old["/a"].connections == 0
    assert old["/c"].line is not None and old["/c"].connections == 8


def test_what_the_connection_header_asks_of_the_backend(tmp_path: Path) -> None:
    """The backend keeps the connection unless asked to close it (HTTP/1.1), or when asked to
    keep it (HTTP/1.0, `Connection: keep-alive`: scripts/fuzz.py backends saw nginx 1.26.3 keep
    it, where the model had said never for HTTP/1.0); a variable header is known per request."""
    body = "upstream pooled { server 127.0.0.1:8443; keepalive 8; }\n" + SERVER.format(
        body="location /a { proxy_pass https://pooled; proxy_set_header Connection keep-alive; }"
        " location /b { proxy_pass https://pooled; proxy_http_version 1.1;"
        "   proxy_set_header Connection keep-alive; }"
        " location /c { proxy_pass https://pooled; proxy_http_version 1.1;"
        '   proxy_set_header Connection "Keep-Alive, Close"; }'
        " location /d { proxy_pass https://pooled; proxy_set_header Connection upgrade; }"
        " location /e { proxy_pass https://pooled; proxy_http_version 1.1;"
        "   proxy_set_header Connection $connection_upgrade; }"
        " location /f { proxy_pass https://pooled; proxy_http_version 1.1;"
        "   proxy_set_header Connection upgrade; }"
    )
    kept = {k: v.keepalive().kept for k, v in model(body, MID, tmp_path).items()}
    assert kept == {"/a": True, "/b": True, "/c": False, "/d": False, "/e": None, "/f": True}


def test_groups_towards_the_backend(tmp_path: Path) -> None:
    """No proxy_ssl_ecdh_curve exists: the library's default groups, or a conf_command's; a
    level's own conf_command lines replace the enclosing ones."""
    found = model(
        "proxy_ssl_conf_command Groups X25519:secp256r1;\n"
        + SERVER.format(
            body="location /a { proxy_pass https://b.example; }"
            " location /b { proxy_pass https://b.example;"
            "   proxy_ssl_conf_command Options -SessionTicket; }"
        ),
        MID,
        tmp_path,
    )
    ids, line = found["/a"].groups()
    assert ids == frozenset({"x25519", "secp256r1"}) and line is not None
    ids, line = found["/b"].groups()
    assert line is None and ids is not None and "X25519MLKEM768" in ids  # OpenSSL 3.5 default
