"""Issue 12: misses and false alarms found against real nginx and other linters' fixtures, each
with a config where the finding must appear and one where it must not (written here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from nginxgen.shell.cli import main
from tests.lint.test_lint_rules import DEFAULT, HSTS, MID, NEW, OLD, SITE, http
from tests.paths import REPO

MOZILLA_INTERMEDIATE_CIPHERS = (
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"
)


def findings(
    text: str, target: tuple[str, str], tmp_path: Path, name: str = "nginx.conf"
) -> list[tuple[str, str, str]]:
    path = tmp_path / name
    path.write_text(text)
    return [
        (f.code, f.severity, f.message)
        for f in lint(load_path(str(path)), resolve(*target), Selection())
    ]


def codes(text: str, target: tuple[str, str], tmp_path: Path, name: str = "nginx.conf") -> set[str]:
    return {code for code, _, _ in findings(text, target, tmp_path, name)}


# --- a file linted on its own ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ssl.conf", "options-ssl-nginx.conf", "ssl_include.conf"])
def test_cipher_lines_of_a_snippet_are_judged(name: str, tmp_path: Path) -> None:
    weak = "ssl_protocols TLSv1.2 TLSv1.3;\nssl_ciphers ALL:!ADH:RC4+RSA:+HIGH:3DES;\n"
    assert {"NGX402"} <= codes(weak, MID, tmp_path, name)
    strong = f"ssl_protocols TLSv1.2 TLSv1.3;\nssl_ciphers {MOZILLA_INTERMEDIATE_CIPHERS};\n"
    assert codes(strong, MID, tmp_path, name) == set()


def test_cipher_lines_of_a_server_whose_listen_is_elsewhere(tmp_path: Path) -> None:
    vhost = "server {\n server_name a.example;\n include listen.conf;\n ssl_ciphers AES128-SHA:DES-CBC3-SHA;\n}\n"
    found = codes(vhost, MID, tmp_path, "a.conf")
    assert "NGX403" in found or "NGX402" in found
    assert "NGX701" not in found  # no TLS to judge HSTS by: its listen is not visible


# --- HSTS from other modules -------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "more_set_headers 'Strict-Transport-Security: max-age=63072000';",
        'more_set_headers -s 200 "Strict-Transport-Security: max-age=63072000";',
        "security_headers on;",
    ],
)
def test_hsts_sent_by_other_modules(body: str, tmp_path: Path) -> None:
    assert "NGX701" not in codes(http(DEFAULT, SITE.format(body=body)), MID, tmp_path)
    other = "more_set_headers 'X-Frame-Options: DENY'; security_headers off;"
    assert "NGX701" in codes(http(DEFAULT, SITE.format(body=other)), MID, tmp_path)


# --- stapling ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "fires"),
    [
        ("", True),
        ("ssl_stapling_file /etc/ssl/ocsp.der;", False),
        ("ssl_stapling_responder http://192.0.2.7:8080/ocsp;", False),
        ("ssl_stapling_responder http://[2001:db8::7]/;", False),
        ("ssl_stapling_responder http://ocsp.example.net/;", True),
    ],
)
def test_stapling_without_resolver_needs_something_to_resolve(
    extra: str, fires: bool, tmp_path: Path
) -> None:
    config = http(f"ssl_stapling on; {extra}", DEFAULT)
    assert ("NGX711" in codes(config, MID, tmp_path)) is fires


def test_unreadable_lets_encrypt_certificate_is_known_to_have_no_ocsp_url(tmp_path: Path) -> None:
    body = "ssl_certificate /etc/letsencrypt/live/b.example/fullchain.pem; " + HSTS
    config = http("ssl_stapling on; resolver 127.0.0.53;", DEFAULT, SITE.format(body=body))
    found = [f for f in findings(config, MID, tmp_path) if f[0] == "NGX726"]
    # an info: nginx -t warns, staples nothing, and nothing else changes
    assert len(found) == 1 and found[0][1] == "info" and "Let's Encrypt" in found[0][2]
    other = http(
        "ssl_stapling on; resolver 127.0.0.53;",
        DEFAULT,
        SITE.format(body="ssl_certificate /etc/ssl/b.example/fullchain.pem; " + HSTS),
    )
    assert "NGX726" not in codes(other, MID, tmp_path)


# --- QUIC sockets ------------------------------------------------------------------------------


def test_quic_sockets_have_default_servers(tmp_path: Path) -> None:
    site = "server {{ listen 443 quic{default}; server_name {name}; ssl_certificate c; ssl_certificate_key k; ssl_ecdh_curve {curve}; {hsts} }}\n"
    a = site.format(default="", name="a.example", curve="X25519", hsts=HSTS)
    b = site.format(default="", name="b.example", curve="secp384r1", hsts=HSTS)
    found = codes(http(a, b), MID, tmp_path)
    assert {"NGX106", "NGX101"} <= found
    a_default = site.format(default=" default_server", name="a.example", curve="X25519", hsts=HSTS)
    b_same = site.format(default="", name="b.example", curve="X25519", hsts=HSTS)
    assert not {"NGX106", "NGX101"} & codes(http(a_default, b_same), MID, tmp_path)


def test_quic_on_a_release_without_it_is_one_finding_naming_the_release(tmp_path: Path) -> None:
    # a new user's trial (Home Assistant's add-on on Debian 12's nginx, read by --nginx-bin):
    # each `listen ... quic` drew NGX010 "invalid parameter" and NGX301 "needs nginx built
    # --with-http_v3_module", where no build of 1.22.1 has it
    from nginxgen.base.records import replace

    conf = tmp_path / "nginx.conf"
    conf.write_text(http("server { listen 443 quic; listen 443 ssl; server_name a.example; "
                         f"ssl_certificate c; ssl_certificate_key k; {HSTS} }}\n"))  # fmt: skip
    target = replace(resolve("1.22.1", "openssl-3.0"), modules=frozenset({"http_ssl"}))
    found = lint(load_path(str(conf)), target, Selection())
    on_quic = [f for f in found if f.code in ("NGX010", "NGX301") and "quic" in f.message]
    # nginx's own words (what nginx -t prints), and the release that has it in the fix
    assert [(f.code, f.message) for f in on_quic] == [("NGX010", 'invalid parameter "quic"')]
    assert "from nginx 1.25.0 on" in (on_quic[0].fix or ""), on_quic


def test_hsts_from_a_variable_is_not_called_without_max_age(tmp_path: Path) -> None:
    # a new user's trial (Nginx Proxy Manager's hosts): the header's value is a map's, which
    # nginx sends as "max-age=63072000; preload" (curl saw it); NGX703 called it age-less
    maps = 'map $scheme $hsts_header { https "max-age=63072000; preload"; }\n'
    site = (
        "server { listen 443 ssl default_server; server_name a.example; ssl_certificate c; "
        "ssl_certificate_key k; add_header Strict-Transport-Security $hsts_header always; }\n"
    )
    assert "NGX703" not in codes(http(maps + site), MID, tmp_path)
    age_less = site.replace("$hsts_header", '"includeSubDomains"')
    assert "NGX703" in codes(http(age_less), MID, tmp_path)


def test_a_line_ignored_on_several_addresses_is_one_finding(tmp_path: Path) -> None:
    # a new user's trial (Home Assistant's add-on): a vhost on *:443 and [::]:443, over TCP and
    # QUIC, under one default server got NGX102 four times for each session line
    default = (
        "server { listen 443 ssl default_server; listen [::]:443 ssl default_server; "
        "listen 443 quic default_server; listen [::]:443 quic default_server; "
        "ssl_reject_handshake on; }\n"
    )
    vhost = (
        "server { listen 443 ssl; listen [::]:443 ssl; listen 443 quic; listen [::]:443 quic; "
        "server_name a.example; ssl_certificate c; ssl_certificate_key k; "
        f"ssl_session_cache shared:A:1m; ssl_session_timeout 1h; {HSTS} }}\n"
    )
    session = [f for f in findings(http(default, vhost), NEW, tmp_path) if f[0] == "NGX102"]
    assert len(session) == 2, session  # one for each line
    for _, _, message in session:
        for address in ("*:443", "[::]:443", "*:443/udp", "[::]:443/udp"):
            assert f"{address} " in message or f"{address}," in message, message


def test_a_quic_only_server_gets_tls_findings(tmp_path: Path) -> None:
    quic_only = "server { listen 443 quic default_server; server_name a.example; ssl_certificate c; ssl_certificate_key k; }\n"
    assert "NGX701" in codes(http(quic_only), MID, tmp_path)


# --- ssl off -----------------------------------------------------------------------------------


def test_ssl_off_is_refused_from_1_25_1(tmp_path: Path) -> None:
    config = http(DEFAULT, SITE.format(body=f"ssl off; {HSTS}"))
    assert "NGX301" in codes(config, MID, tmp_path)  # nginx 1.26.3: unknown directive "ssl"
    assert "NGX302" in codes(config, OLD, tmp_path)  # 1.22.1: deprecated, still accepted
    assert not {"NGX301", "NGX302"} & codes(http(DEFAULT, SITE.format(body=HSTS)), MID, tmp_path)


# --- cipher strings that select nothing ----------------------------------------------------------


@pytest.mark.parametrize("string", ["DEFAULT:!ALL", "AES128+CAMELLIA", "AES128-SHA128"])
def test_cipher_string_with_no_match_is_an_error(string: str, tmp_path: Path) -> None:
    found = [f for f in findings(http(f'ssl_ciphers "{string}";', DEFAULT), MID, tmp_path)]
    assert ("NGX408", "error") in {(c, s) for c, s, _ in found}
    assert "NGX402" not in {c for c, _, _ in found}, "not called weak: it enables nothing"
    # ... and in a snippet linted on its own
    assert "NGX408" in codes(f'ssl_ciphers "{string}";\n', MID, tmp_path, "ssl.conf")


def test_tls13_only_config_with_a_matching_cipher_string(tmp_path: Path) -> None:
    modern = http(DEFAULT, top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.3;")
    assert "NGX408" not in codes(modern, MID, tmp_path)


# --- default server answering over reused HTTP/2 -------------------------------------------------


def test_reject_handshake_without_return_only_matters_with_http2(tmp_path: Path) -> None:
    plain = http("server { listen 443 ssl default_server; ssl_reject_handshake on; }\n")
    assert "NGX108" not in codes(plain, MID, tmp_path)
    h2_site = http(
        "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n",
        SITE.format(body=f"http2 on; {HSTS}"),
    )
    assert "NGX108" in codes(h2_site, MID, tmp_path)
    old_style = http(
        "server { listen 443 ssl http2 default_server; ssl_reject_handshake on; }\n",
        SITE.format(body=HSTS),
    )
    assert "NGX108" in codes(old_style, OLD, tmp_path)


def test_reject_handshake_default_server_alone_or_returning_everywhere(tmp_path: Path) -> None:
    """Issue 25: no connection to reuse when the default server is alone on its socket; no
    request reaches the default root when every location returns."""
    alone = http("server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; }\n")
    assert "NGX108" not in codes(alone, MID, tmp_path)
    default = "server {{ listen 443 ssl default_server; ssl_reject_handshake on; {body} }}\n"
    site = SITE.format(body=f"http2 on; {HSTS}")
    returning = default.format(body="location / { return 421; } location = /x { return 444; }")
    assert "NGX108" not in codes(http(returning, site), MID, tmp_path)
    for leaks in (
        "location /static/ { return 421; }",  # no location /: other URIs reach the root
        "location / { return 421; } location ~ \\.php$ { root /srv; }",  # one does not return
        "location / { location /a/ { root /srv; } return 421; }",  # nor does a nested one
    ):
        assert "NGX108" in codes(http(default.format(body=leaks), site), MID, tmp_path), leaks


def test_generated_default_server_has_the_return(tmp_path: Path) -> None:
    examples = REPO / "examples"
    for default_server in examples.glob("*/*/default-server.conf"):
        text = default_server.read_text()
        assert "return 421;" in text or "return 444;" in text, default_server


# --- the same directive twice in one block -------------------------------------------------------


def test_debian_12_protocols_plus_an_included_second_line(tmp_path: Path) -> None:
    """Debian 12's nginx.conf sets ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3 in http{}; an
    included file at the same level adds ssl_protocols TLSv1.2 TLSv1.3: nginx merges them."""
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "tls.conf").write_text("ssl_protocols TLSv1.2 TLSv1.3;\n")
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(
        "events {}\nhttp {\n ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;\n"
        " ssl_prefer_server_ciphers on;\n include conf.d/*.conf;\n" + DEFAULT + "}\n"
    )
    found = lint(load_path(str(main_conf)), resolve(*OLD), Selection(select={"NGX006"}))
    (hit,) = found
    assert hit.file.endswith("tls.conf") and hit.severity == "warning"
    assert "nginx.conf:3" in hit.message
    # a directive nginx refuses twice is an error, wherever the second line comes from
    (tmp_path / "conf.d" / "tls.conf").write_text("ssl_prefer_server_ciphers off;\n")
    found = lint(load_path(str(main_conf)), resolve(*MID), Selection(select={"NGX006"}))
    assert [(f.severity, Path(f.file).name) for f in found] == [("error", "tls.conf")]


def test_same_directive_in_different_blocks_is_not_a_duplicate(tmp_path: Path) -> None:
    config = http(
        "ssl_prefer_server_ciphers on;",
        DEFAULT,
        SITE.format(body=f"ssl_prefer_server_ciphers off; {HSTS}"),
    )
    assert "NGX006" not in codes(config, MID, tmp_path)


# --- TLS 1.3 switched off ------------------------------------------------------------------------


def test_centmin_mod_protocols_switch_tls13_off(tmp_path: Path) -> None:
    snippet = "ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\n"
    assert "NGX409" in codes(snippet, MID, tmp_path, "ssl_include.conf")
    assert "NGX409" not in codes(snippet, ("1.12.2", "openssl-1.1.1"), tmp_path, "a.conf")


# --- severity that matches exposure --------------------------------------------------------------


def severity_of(code: str, text: str, target: tuple[str, str], tmp_path: Path) -> str:
    (severity,) = {s for c, s, _ in findings(text, target, tmp_path) if c == code}
    return severity


def test_legacy_protocols_are_dead_configuration_on_openssl_3(tmp_path: Path) -> None:
    legacy = http(
        DEFAULT, top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1 TLSv1.2 TLSv1.3;"
    )
    assert severity_of("NGX401", legacy, MID, tmp_path) == "info"
    reachable = legacy.replace(
        "ssl_session_cache", "ssl_ciphers DEFAULT:@SECLEVEL=0; ssl_session_cache"
    )
    assert severity_of("NGX401", reachable, MID, tmp_path) == "warning"
    for library in ("openssl-1.1.1", "libressl-4.3.0", "aws-lc-5.12.0"):
        assert severity_of("NGX401", legacy, ("1.26.3", library), tmp_path) == "warning"
    # BoringSSL through nginx cannot offer TLS 1.0/1.1 at all (tests/knowledge/test_tls_libraries_live.py)
    assert severity_of("NGX401", legacy, ("1.26.3", "boringssl"), tmp_path) == "info"


def test_default_protocols_severity(tmp_path: Path) -> None:
    no_protocols = http(DEFAULT, top="ssl_session_cache shared:S:1m;")
    # 1.24.0 defaults to TLSv1 ... TLSv1.3: only the legacy ones are wrong, and OpenSSL 3 cannot
    # negotiate them
    assert severity_of("NGX303", no_protocols, ("1.24.0", "openssl-3.0"), tmp_path) == "info"
    assert severity_of("NGX303", no_protocols, ("1.24.0", "openssl-1.1.1"), tmp_path) == "warning"
    # 1.22.1 has no TLS 1.3 by default: a warning whatever the library
    assert severity_of("NGX303", no_protocols, OLD, tmp_path) == "warning"
    assert "NGX303" not in codes(no_protocols, NEW, tmp_path)


# --- NGX405 only when something is visibly left out ----------------------------------------------


def test_tls13_suites_info_only_when_ssl_ciphers_leaves_something_out(tmp_path: Path) -> None:
    mozilla = http(f"ssl_ciphers {MOZILLA_INTERMEDIATE_CIPHERS};", DEFAULT)
    assert "NGX405" not in codes(mozilla, MID, tmp_path)
    no_chacha = http(
        "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384;", DEFAULT
    )
    (message,) = [m for c, _, m in findings(no_chacha, MID, tmp_path) if c == "NGX405"]
    assert "CHACHA20" in message and "AESGCM" not in message.split("but")[0]
    aes256_only = http("ssl_ciphers ECDHE-ECDSA-AES256-GCM-SHA384;", DEFAULT)
    assert "NGX405" in codes(aes256_only, MID, tmp_path)


# --- path map for configs kept in git ------------------------------------------------------------


def test_path_map_reads_the_repository_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "nginx" / "snippets").mkdir(parents=True)
    (repo / "nginx" / "snippets" / "ssl.conf").write_text("ssl_protocols TLSv1.2 TLSv1.3;\n")
    (repo / "nginx" / "nginx.conf").write_text(
        "events {}\nhttp {\n include /etc/nginx/snippets/ssl.conf;\n ssl_session_cache shared:S:1m;\n"
        + DEFAULT
        + "}\n"
    )
    monkeypatch.chdir(repo)
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    # the main file lies outside the /etc/nginx its include names: a copy, read as one and said
    assert main(["lint", *target, "nginx/nginx.conf"]) == 0
    assert f"reading /etc/nginx from {repo / 'nginx'}" in capsys.readouterr().err
    # a map given is the whole answer: the host's /etc/nginx, where the snippet is missing
    assert main(["lint", *target, "--map", "/etc/nginx=/etc/nginx", "nginx/nginx.conf"]) == 1
    assert "NGX002" in capsys.readouterr().out
    assert main(["lint", *target, "--map", "/etc/nginx=nginx", "nginx/nginx.conf"]) == 0
    assert "reading" not in capsys.readouterr().err
    capsys.readouterr()
    (repo / ".nginxgen.toml").write_text('[path-map]\n"/etc/nginx" = "nginx"\n')
    assert main(["lint", *target, "nginx/nginx.conf"]) == 0, capsys.readouterr().out
    assert main(["lint", *target, "--map", "nonsense", "nginx/nginx.conf"]) == 2
    assert "expected FOLDER=HERE" in capsys.readouterr().err


def test_path_map_is_used_for_certificates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers import make_cert

    pair = make_cert(tmp_path / "repo" / "ssl", "b.example", "ecdsa")
    key_elsewhere = make_cert(tmp_path / "other", "b.example", "ecdsa")
    conf = tmp_path / "repo" / "nginx.conf"
    conf.write_text(
        http(
            DEFAULT,
            SITE.format(body=HSTS)
            .replace("ssl_certificate c;", f"ssl_certificate /etc/ssl/{Path(pair.cert).name};")
            .replace("ssl_certificate_key k;", f"ssl_certificate_key {key_elsewhere.key};"),
        )
    )
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    main(["lint", *target, str(conf)])
    assert "NGX721" not in capsys.readouterr().out  # certificate unreadable: nothing to match
    main(["lint", *target, "--map", f"/etc/ssl={tmp_path / 'repo' / 'ssl'}", str(conf)])
    assert "NGX721" in capsys.readouterr().out  # read through the map: the key is another one


def test_set_misc_directives_are_known_third_party(tmp_path: Path) -> None:
    """set-misc writes `ngx_string ("set_escape_uri")` with a space: the table had 8 of its 28
    directives, and linuxserver/docker-swag's authelia snippet drew an error."""
    text = http(DEFAULT, SITE.format(body=f"{HSTS} set_escape_uri $a $arg_b; set_random $r 1 3;"))
    path = tmp_path / "nginx.conf"
    path.write_text(text)
    found = lint(load_path(str(path)), resolve(*MID), Selection(select={"NGX007"}))
    assert [f.severity for f in found] == ["info", "info"], found
    assert all("set-misc" in f.message for f in found), found


# --- found trying public configs as a new user (issue 44) -----------------------------------------


def test_a_server_without_a_certificate_is_one_finding_for_all_its_addresses(
    tmp_path: Path,
) -> None:
    """moldyboot's console vhost: no certificate, on *:443 and [::]:443; nginx -t gives one
    error at the server's line, and so does NGX715, naming both addresses."""
    text = (
        "events {}\nhttp {\n    server {\n        listen 443 ssl default_server;\n"
        "        listen [::]:443 ssl default_server;\n        server_name a.example;\n    }\n}\n"
    )
    said = [f for f in findings(text, NEW, tmp_path) if f[0] == "NGX715"]
    assert len(said) == 1, said
    assert "no ssl_certificate for *:443 and [::]:443" in said[0][2]


def test_stapling_verify_without_stapling_is_not_judged(tmp_path: Path) -> None:
    """ssl_stapling_verify does nothing without ssl_stapling on: no NGX712 (STB1019's common
    config has the one without the other)."""
    verify = "ssl_stapling_verify on;"
    assert "NGX712" not in codes(http(DEFAULT, SITE.format(body=verify)), NEW, tmp_path)
    stapled = f"ssl_stapling on; {verify}"
    assert "NGX712" in codes(http(DEFAULT, SITE.format(body=stapled)), NEW, tmp_path)


def test_a_default_server_line_included_in_many_servers_is_one_finding(tmp_path: Path) -> None:
    """Trial 10 (mynode: 25 NGX606 findings at one line of an ssl-params.conf each server
    includes): one finding on the line, naming the addresses it decides for."""
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from tests.every_rule import lint_checked

    (tmp_path / "params.conf").write_text(
        "ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets off;\n"
    )
    servers = "".join(
        f"server {{ listen 127.0.0.1:{port} ssl; ssl_certificate c; ssl_certificate_key k; "
        "include params.conf; }\n"
        for port in (8441, 8442, 8443)
    )
    (tmp_path / "nginx.conf").write_text(f"events {{}}\nhttp {{\n{servers}}}\n")
    found = [
        f
        for f in lint_checked(
            load_path(str(tmp_path / "nginx.conf")), resolve("1.26.3", "boringssl")
        )
        if f.code == "NGX606"
    ]
    assert len(found) == 1, found
    assert "127.0.0.1:8441, 127.0.0.1:8442 and 1 more" in found[0].message


def test_no_session_cache_says_what_tickets_still_do_and_advises_a_free_zone(
    tmp_path: Path,
) -> None:
    """Trial 10: NGX601 said "every resumption is a full handshake" where session tickets (on
    by default) resume, seen with s_client; and advised `shared:SSL:10m` for stream{} where
    http{} has zone SSL already (nginx -t: already declared for a different use)."""
    text = (
        "events {}\nhttp { ssl_session_cache shared:SSL:50m; server { listen 8443 ssl; "
        "ssl_certificate c; ssl_certificate_key k; } }\n"
        "stream { server { listen 8444 ssl; ssl_certificate c; ssl_certificate_key k; "
        "proxy_pass 127.0.0.1:1; } }\n"
    )
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from tests.every_rule import lint_checked

    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    found = [
        f
        for f in lint_checked(load_path(str(conf)), resolve("1.26.3", "openssl-3.5"))
        if f.code == "NGX601"
    ]
    assert len(found) == 1 and "session ticket" in found[0].message, found
    assert found[0].fix == "ssl_session_cache shared:SSL_stream:10m; at stream{} level"
    conf.write_text(text.replace("stream { server", "stream { ssl_session_tickets off; server"))
    (off,) = [
        f
        for f in lint_checked(load_path(str(conf)), resolve("1.26.3", "openssl-3.5"))
        if f.code == "NGX601"
    ]
    assert "every resumption is a full handshake" in off.message


def test_tls13_off_only_where_a_tls_server_takes_the_line(tmp_path: Path) -> None:
    """Trial 10 (mynode): an http{}-level `ssl_protocols TLSv1 TLSv1.1 TLSv1.2` that every TLS
    server overrides switches nothing off (s_client: TLSv1.3); NGX409 said it did."""
    server = "server {{ listen 8443 ssl; {own}ssl_certificate c; ssl_certificate_key k; }}"
    head = "ssl_protocols TLSv1 TLSv1.1 TLSv1.2;"
    overridden = http(head, server.format(own="ssl_protocols TLSv1.2 TLSv1.3; "))
    assert "NGX409" not in codes(overridden, MID, tmp_path)
    assert "NGX409" in codes(http(head, server.format(own="")), MID, tmp_path)


def test_stream_proxy_pass_is_not_read_as_an_http_url(tmp_path: Path) -> None:
    """stream{}'s proxy_pass takes an address or an upstream name, never a URL (NGINX's demos:
    `proxy_pass tcp_backend;`); only a location's proxy_pass needs http:// or https://."""
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from tests.every_rule import lint_checked

    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nstream { upstream b { server 127.0.0.1:3306; }\n"
        "    server { listen 13306; proxy_pass b; } }\n"
        "http { server { listen 8080; location / { proxy_pass localhost:4433; } } }\n"
    )
    found = [
        (f.line, f.message)
        for f in lint_checked(load_path(str(conf)), resolve("1.26.3", "openssl-3.5"))
        if f.code == "NGX010"
    ]
    assert found == [(4, "invalid URL prefix: nginx -t fails")], found
