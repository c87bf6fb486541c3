"""NGX713 judges each location that passes requests in early data to a backend (issue 44): only
what refuses a request in early data or tells the backend counts, where the request goes. The
live counterpart (the backend really runs a replay twice, and is told or not) is
tests/lint/test_early_data_live.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.shell.cli import main
from tests.every_rule import lint_checked
from tests.helpers import make_cert

OPENSSL = ("1.26.3", "openssl-3.5.7")
BORING = ("1.26.3", "boringssl")
PASS = "proxy_pass http://127.0.0.1:8080;"
TELL = "proxy_set_header Early-Data $ssl_early_data;"
REFUSE = "if ($ssl_early_data) { return 425; }"
DEFAULT = "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"


def tree(server: str, top: str = "", early: str = "ssl_early_data on;") -> str:
    return (
        "events {}\nhttp {\nssl_protocols TLSv1.2 TLSv1.3;\n" + early + "\n" + top + "\n"
        "server { listen 443 ssl default_server; server_name a.example;\n"
        "  ssl_certificate c.pem; ssl_certificate_key c.key;\n"
        f"  {server}\n}}\n}}\n"
    )


def lines(text: str, tmp_path: Path, target: tuple[str, str] = OPENSSL) -> list[int]:
    """The lines NGX713 reports."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    found = lint_checked(load_path(str(conf)), resolve(*target))
    return [f.line for f in found if f.code == "NGX713"]


REPORTED = {
    "a response header only": f"add_header X-Early-Data $ssl_early_data; location / {{ {PASS} }}",
    "a log line only": f"access_log /var/log/x.log tls; location / {{ {PASS} }}",
    "the http{} header replaced in the location": (
        f"location / {{ {PASS} proxy_set_header Host $host; }}"
    ),
    "one location of two tells": f"location /a {{ {PASS} {TELL} }} location /b {{ {PASS} }}",
    "an outer location's if, a nested location answers": (
        f"location / {{ {REFUSE} location /api {{ {PASS} }} }}"
    ),
    "a FastCGI backend": "location ~ \\.php$ { fastcgi_pass unix:/run/php.sock; }",
    "a map not used": f"location / {{ {PASS} }}",
}
TOPS = {
    "a log line only": "log_format tls '$ssl_protocol $ssl_early_data';",
    "the http{} header replaced in the location": TELL,
    "a map not used": "map $ssl_early_data $too_early { default 0; 1 1; }",
}


@pytest.mark.parametrize("case", sorted(REPORTED))
def test_what_protects_nothing_is_reported(case: str, tmp_path: Path) -> None:
    text = tree(REPORTED[case], top=TOPS.get(case, ""))
    assert lines(text, tmp_path) == [4], case  # the ssl_early_data line


PROTECTED = {
    "the location tells": f"location / {{ {PASS} {TELL} }}",
    "the server tells every location": f"{TELL} location / {{ {PASS} }}",
    "the server refuses": f"{REFUSE} location / {{ {PASS} }}",
    "the location refuses": f"location / {{ {REFUSE} {PASS} }}",
    "a map refuses": f"if ($too_early) {{ return 425; }} location / {{ {PASS} }}",
    "a map is told": f"location / {{ {PASS} proxy_set_header Early-Data $too_early; }}",
    "a set variable is told": (
        f"set $e $ssl_early_data; location / {{ {PASS} proxy_set_header Early-Data $e; }}"
    ),
    "FastCGI is told": (
        "location ~ \\.php$ { fastcgi_pass unix:/run/php.sock; "
        "fastcgi_param EARLY_DATA $ssl_early_data; }"
    ),
    "OpenSSL's anti-replay": f"ssl_conf_command Options AntiReplay; location / {{ {PASS} }}",
    "files only": "root /var/www; location / { try_files $uri =404; }",
    "every request answered by return": f"return 301 https://b.example; location / {{ {PASS} }}",
}


@pytest.mark.parametrize("case", sorted(PROTECTED))
def test_what_protects_or_runs_nothing_twice_is_not(case: str, tmp_path: Path) -> None:
    top = "map $ssl_early_data $too_early { default 0; 1 1; }" if "map" in case else ""
    assert lines(tree(PROTECTED[case], top=top), tmp_path) == [], case


def test_the_default_server_decides_0rtt_with_openssl(tmp_path: Path) -> None:
    """A virtual server's own `ssl_early_data on` under a default server without it: with
    OpenSSL no request comes in early data (NGX104 says the line is ignored); with BoringSSL it
    does (the vhost decides)."""
    text = (
        "events {}\nhttp {\n" + DEFAULT + "server { listen 443 ssl; server_name b.example;\n"
        f"  ssl_certificate c.pem; ssl_certificate_key c.key; ssl_early_data on;\n"
        f"  location / {{ {PASS} }}\n}}\n}}\n"
    )
    assert lines(text, tmp_path) == []
    assert lines(text, tmp_path, BORING) == [5]


def test_a_generated_tree_with_0rtt_added(tmp_path: Path) -> None:
    """`ssl_early_data on;` added to a tree nginxgen generated with a backend: its own log_format
    reads $ssl_early_data, which protects nothing."""
    pair = make_cert(tmp_path, "example.com")
    site = tmp_path / "site.yaml"
    site.write_text(
        "extends: intermediate\nsites:\n  - domains: [example.com]\n    certificates:\n"
        f"      - cert: {pair.cert}\n        key: {pair.key}\n"
        f"    upstream:\n      url: https://127.0.0.1:8443/\n      name: api.example\n"
        f"      trusted_certificate: {pair.cert}\n"
    )
    out = tmp_path / "out"
    flags = ["--nginx-version", OPENSSL[0], "--tls-library", OPENSSL[1]]
    assert main(["generate", "--config", str(site), "--out", str(out), *flags]) == 0
    assert lines((out / "nginx.conf").read_text(), out) == []
    tls = out / "tls.conf"
    assert "$ssl_early_data" in tls.read_text()
    tls.write_text(tls.read_text() + "ssl_early_data on;\n")
    conf = out / "nginx.conf"
    found = lint_checked(load_path(str(conf)), resolve(*OPENSSL))
    (finding,) = [f for f in found if f.code == "NGX713"]
    assert finding.file == str(tls), finding


@pytest.mark.parametrize(
    ("passing", "fix"),
    [
        (PASS, "proxy_set_header Early-Data $ssl_early_data;"),
        ("fastcgi_pass unix:/run/php.sock;", "fastcgi_param EARLY_DATA $ssl_early_data;"),
        ("grpc_pass grpc://127.0.0.1:50051;", "grpc_set_header Early-Data $ssl_early_data;"),
    ],
)
def test_the_fix_text_is_the_line_of_the_backends_module(
    passing: str, fix: str, tmp_path: Path
) -> None:
    # a new user's trial (HestiaCP's PHP-FPM vhost): a fastcgi_pass location was told to add
    # proxy_set_header, which a FastCGI backend never receives
    conf = tmp_path / "nginx.conf"
    conf.write_text(tree(f"location / {{ {passing} }}"))
    found = [f for f in lint_checked(load_path(str(conf)), resolve(*OPENSSL)) if f.code == "NGX713"]
    assert len(found) == 1 and found[0].fix.startswith(fix), found


def test_0rtt_is_not_moved_into_a_default_server_that_would_replay(tmp_path: Path) -> None:
    """NGX104's unsafe fix moves a vhost's `ssl_early_data on` into the default server, which
    then takes 0-RTT for every server of the address: where one of them hands requests to a
    backend unprotected, NGX713 turned it off again and the fixes never settled (trial 24:
    `internal error: fixes did not settle`). No move there, and the text says what comes first;
    with that backend protected, the move is made."""
    vhost = (
        "server { listen 8443 ssl; server_name b.example; ssl_certificate c.pem;\n"
        f"  ssl_certificate_key c.key; ssl_early_data on; location / {{ {PASS} {TELL} }} }}\n"
    )

    def default(location: str) -> str:
        return (
            "events {}\nhttp {\nserver { listen 8443 ssl default_server; ssl_certificate c.pem;\n"
            f"  ssl_certificate_key c.key; {location} }}\n{vhost}}}\n"
        )

    flags = ["--nginx-version", OPENSSL[0], "--tls-library", OPENSSL[1], "--unsafe-fixes"]
    conf = tmp_path / "nginx.conf"
    php = "location ~ \\.php$ { fastcgi_pass 127.0.0.1:9000; }"
    conf.write_text(default(php))
    found = lint_checked(load_path(str(conf)), resolve(*OPENSSL))
    (moved,) = [f for f in found if f.code == "NGX104"]
    assert moved.line == 6 and moved.autofix is None, moved
    assert "once fastcgi_pass at" in (moved.fix or "") and "fastcgi_param EARLY_DATA" in (
        moved.fix or ""
    )
    assert main(["lint", "--fix", "--select", "NGX104,NGX713", *flags, str(conf)]) == 1
    assert conf.read_text() == default(php)  # settled, with nothing to move
    protected = php.replace("9000;", "9000; fastcgi_param EARLY_DATA $ssl_early_data;")
    conf.write_text(default(protected))
    assert main(["lint", "--fix", "--select", "NGX104,NGX713", *flags, str(conf)]) == 0
    assert conf.read_text().count("ssl_early_data on;") == 1
    assert "ssl_certificate_key c.key; ssl_early_data on;" not in conf.read_text()
