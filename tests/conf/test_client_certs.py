"""The client-certificate model (nginxgen/conf/client_certificates.py) without a live server: the settings
in effect with their lines, the checks of `$ssl_client_verify`, the CA names, the depth a CA file
needs, and what a request gets for each SNI/Host pair. tests/conf/test_client_certificates_live.py
holds the same pairs against real nginx."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from nginxgen.conf.client_certificates import (
    ClientCertificates,
    ca_names,
    client_certificates,
    depth_needed,
    request_outcome,
)
from nginxgen.conf.config import Config, Server, build
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve

SOCKET = "*:443"


def load(tmp_path: Path, http: str) -> Config:
    conf = tmp_path / "nginx.conf"
    conf.write_text("events {}\nhttp {\n" + http + "\n}\n")
    return build(load_path(str(conf)))


def server(name: str, body: str = "", default: bool = False) -> str:
    flag = " default_server" if default else ""
    return (
        f"server {{ listen 443 ssl{flag}; server_name {name}; ssl_certificate c; "
        f"ssl_certificate_key k; {body} }}\n"
    )


def named(config: Config, name: str) -> Server:
    return next(s for s in config.servers if name in s.names)


def test_settings_in_effect_with_their_lines(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        "ssl_verify_client optional; ssl_client_certificate /ca.pem;\n"
        + server("a.example", default=True)
        + server("b.example", "ssl_verify_client ON; ssl_verify_depth 3; ssl_ocsp leaf;"),
    )
    a = client_certificates(config, named(config, "a.example"))
    b = client_certificates(config, named(config, "b.example"))
    assert (a.verify.value, a.verify.line and a.verify.line.line) == ("optional", 3)
    assert b.verify.value == "on" and b.required and b.asks
    assert a.client_certificate.value == b.client_certificate.value == "/ca.pem"
    assert (a.depth.value, a.depth.line) == ("1", None)  # nginx's default
    assert b.depth.value == "3" and b.ocsp.value == "leaf" and a.ocsp.value == "off"
    assert a.crl.value is None and a.trusted_certificate.value is None


@pytest.mark.parametrize(
    ("http", "body", "how"),
    [
        ("", "if ($ssl_client_verify != SUCCESS) { return 403; }", ["if"]),
        ("", "location / { if ($ssl_client_verify != SUCCESS) { return 403; } }", ["if"]),
        ("", "location / { proxy_set_header X-Verify $ssl_client_verify; }", ["passed"]),
        ("proxy_set_header X-Verify ${ssl_client_verify};", "", ["passed"]),
        (
            "map $ssl_client_verify $denied { default 1; SUCCESS 0; }",
            "if ($denied) { return 403; }",
            ["if"],
        ),
        ("", "set $v $ssl_client_verify; if ($v != SUCCESS) { return 403; }", ["if"]),
        ("", 'return 200 "$ssl_client_verify";', []),  # shown, not judged
        ("", "if ($ssl_client_verify_x) { return 403; }", []),  # another variable
    ],
)
def test_checks_of_the_verdict(tmp_path: Path, http: str, body: str, how: list[str]) -> None:
    config = load(
        tmp_path, http + "\n" + server("a.example", "ssl_verify_client optional; " + body)
    )
    settings = client_certificates(config, config.servers[0])
    assert [c.how for c in settings.checks] == how


def _cert(subject: str, issuer: str, key: ec.EllipticCurvePrivateKey, signer: ec.EllipticCurvePrivateKey, ca: bool = True) -> bytes:  # fmt: skip
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(signer, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def _ca_files(tmp_path: Path) -> None:
    keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(3)]
    root = _cert("root", "root", keys[0], keys[0])
    one = _cert("one", "root", keys[1], keys[0])
    two = _cert("two", "one", keys[2], keys[1])
    (tmp_path / "two-levels.pem").write_bytes(two + one + root)
    (tmp_path / "one-level.pem").write_bytes(one + root)
    (tmp_path / "root.pem").write_bytes(root)
    (tmp_path / "no-root.pem").write_bytes(two + one)
    # a server's full chain (its leaf, then the CAs), as named for OCSP stapling
    leaf = _cert("server.example", "one", keys[2], keys[1], ca=False)
    (tmp_path / "server-chain.pem").write_bytes(leaf + one + root)


@pytest.mark.parametrize(
    ("files", "needed", "issuer"),
    [
        ("ssl_client_certificate root.pem;", 0, "CN=root"),
        ("ssl_client_certificate one-level.pem;", 1, "CN=one"),
        ("ssl_client_certificate two-levels.pem;", 2, "CN=two"),
        # the trust store is both files: the intermediates in one, the root in the other
        ("ssl_client_certificate no-root.pem; ssl_trusted_certificate root.pem;", 2, "CN=two"),
        ("ssl_client_certificate no-root.pem;", None, None),  # nothing reaches a root
        # the server's own leaf in the trusted file issues no client certificate
        (
            "ssl_client_certificate one-level.pem; ssl_trusted_certificate server-chain.pem;",
            1,
            "CN=one",
        ),
        ("ssl_client_certificate missing.pem;", None, None),  # not readable here
    ],
)
def test_depth_needed(tmp_path: Path, files: str, needed: int | None, issuer: str | None) -> None:
    _ca_files(tmp_path)
    config = load(tmp_path, server("a.example", "ssl_verify_client on; " + files))
    depth = depth_needed(config, client_certificates(config, config.servers[0]))
    assert (depth and depth.needed, depth and depth.issuer) == (needed, issuer)


def test_ca_names_are_the_client_certificate_file_subjects(tmp_path: Path) -> None:
    _ca_files(tmp_path)
    config = load(
        tmp_path,
        server("a.example", "ssl_verify_client on; ssl_client_certificate two-levels.pem;")
        + server("b.example", "ssl_verify_client on; ssl_trusted_certificate root.pem;")
        + server("c.example", "ssl_client_certificate root.pem;")  # verify off: no request
        + server("d.example", "ssl_verify_client on; ssl_client_certificate nowhere.pem;"),
    )
    target = resolve("1.26.3", "openssl-3.5.7")
    names = [ca_names(config, client_certificates(config, s), target) for s in config.servers]
    assert names == [("CN=two", "CN=one", "CN=root"), (), (), None]


@pytest.mark.parametrize(
    ("nginx_version", "library", "order"),
    [
        ("1.26.3", "boringssl", ("CN=one", "CN=two", "CN=root")),  # SSL_load_client_CA_file sorts
        ("1.26.3", "aws-lc-5.12.0", ("CN=one", "CN=two", "CN=root")),
        ("1.28.3", "boringssl", ("CN=two", "CN=one", "CN=root")),  # nginx lists them itself
        ("1.22.1", "openssl-3.0", ("CN=two", "CN=one", "CN=root")),
    ],
)
def test_ca_names_in_the_order_the_library_gives_them(
    tmp_path: Path, nginx_version: str, library: str, order: tuple[str, ...]
) -> None:
    """X509_NAME_cmp's order: the shorter canonical encoding first ("root" is longer than
    "one" and "two"), then its bytes."""
    _ca_files(tmp_path)
    config = load(
        tmp_path,
        server("a.example", "ssl_verify_client on; ssl_client_certificate two-levels.pem;"),
    )
    settings = client_certificates(config, config.servers[0])
    assert ca_names(config, settings, resolve(nginx_version, library)) == order


# a: verify off (default server), b: on, c: optional, d: on with a second name
PAIRS = (
    server("a.example", default=True)
    + server("b.example", "ssl_verify_client on; ssl_client_certificate ca.pem;")
    + server("c.example", "ssl_verify_client optional; ssl_client_certificate ca.pem;")
    + server("d.example www.d.example", "ssl_verify_client on; ssl_client_certificate ca.pem;")
)


@pytest.mark.parametrize(
    ("sni", "host", "certificate", "status", "answering"),
    [
        ("a.example", "a.example", False, None, "a.example"),
        ("b.example", "b.example", False, 400, "b.example"),
        ("b.example", "b.example", True, None, "b.example"),
        ("b.example", "B.Example", False, 400, "b.example"),  # the same name, another case
        ("c.example", "c.example", False, None, "c.example"),
        ("a.example", "b.example", True, 421, "b.example"),  # Host's server verifies
        ("b.example", "a.example", False, None, "a.example"),  # Host's server does not
        ("b.example", "c.example", True, 421, "c.example"),  # optional counts too
        ("d.example", "www.d.example", True, 421, "d.example"),  # same server, other name
        ("b.example", "nowhere.example", True, None, "a.example"),  # default server: off
        (None, "b.example", True, 400, "b.example"),  # no SNI: the default asked for nothing
        ("nowhere.example", "b.example", True, 400, "b.example"),  # SNI names no server
    ],
)
def test_request_outcome(
    tmp_path: Path,
    sni: str | None,
    host: str,
    certificate: bool,
    status: int | None,
    answering: str,
) -> None:
    config = load(tmp_path, PAIRS)
    outcome = request_outcome(config, SOCKET, sni, host, certificate)
    assert (outcome.status, outcome.answering.names[0]) == (status, answering), outcome.why


@pytest.mark.parametrize(
    ("sni", "host", "trusted", "kind"),
    [
        ("b.example", "b.example", False, "certificate-error"),  # on: refused
        ("c.example", "c.example", False, "certificate-error"),  # optional: refused too
        ("e.example", "e.example", False, "served"),  # optional_no_ca: an unknown issuer passes
        ("a.example", "a.example", False, "served"),  # off: not asked, not judged
        (None, "b.example", False, "no-certificate"),  # the default asked for none
        ("b.example", "b.example", True, "served"),
    ],
)
def test_a_certificate_that_does_not_verify(
    tmp_path: Path, sni: str | None, host: str, trusted: bool, kind: str
) -> None:
    """Verified in the handshake against the handshake server's CA files, judged by the
    answering server's mode (scripts/fuzz.py backends: what a client certificate from a CA no
    server trusts gets)."""
    config = load(
        tmp_path,
        PAIRS + server("e.example", "ssl_verify_client optional_no_ca;"),
    )
    asked: list[str] = []

    def trusts(settings: ClientCertificates) -> bool:
        asked.append(settings.server.names[0])
        return trusted

    outcome = request_outcome(config, SOCKET, sni, host, True, trusts)
    assert outcome.kind == kind, outcome.why
    assert set(asked) <= {sni}  # only the handshake server's files are asked


# --- the rules that read the model ----------------------------------------------------------


def lint_codes(tmp_path: Path, http: str, target: tuple[str, str]) -> list[tuple[str, str]]:
    from nginxgen.knowledge.target import resolve
    from tests.every_rule import lint_checked

    conf = tmp_path / "nginx.conf"
    conf.write_text("events {}\nhttp {\n" + http + "\n}\n")
    found = lint_checked(load_path(str(conf)), resolve(*target))
    return [(f.code, f.message) for f in found if f.code in ("NGX010", "NGX742")]


@pytest.mark.parametrize(
    ("files", "depth", "message"),
    [
        ("ssl_client_certificate two-levels.pem;", "", "ssl_verify_depth 1 (nginx's default): "
         "a client certificate issued by CN=two needs 2"),
        ("ssl_client_certificate two-levels.pem;", "ssl_verify_depth 2;", None),
        ("ssl_client_certificate one-level.pem;", "", None),
        ("ssl_client_certificate one-level.pem;", "ssl_verify_depth 0;", "ssl_verify_depth 0: a "
         "client certificate issued by CN=one needs 1"),
        ("ssl_client_certificate missing.pem;", "ssl_verify_depth 0;", None),  # not readable
    ],
)  # fmt: skip
def test_verify_depth_too_low(tmp_path: Path, files: str, depth: str, message: str | None) -> None:
    _ca_files(tmp_path)
    body = f"ssl_verify_client on; {files} {depth}"
    found = lint_codes(tmp_path, server("a.example", body), ("1.26.3", "openssl-3.5.7"))
    assert [m for c, m in found if c == "NGX742"] == ([message] if message else [])


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (("1.26.3", "openssl-3.5.7"), "no ssl_client_certificate for ssl_verify_client"),
        (("1.31.3", "openssl-3.3.7"), None),  # ssl_trusted_certificate is enough from 1.27.2
    ],
)
def test_trusted_certificate_alone_by_release(
    tmp_path: Path, target: tuple[str, str], message: str | None
) -> None:
    body = "ssl_verify_client on; ssl_trusted_certificate /ca.pem; ssl_crl /ca.crl;"
    found = lint_codes(tmp_path, server("a.example", body), target)
    assert [m for c, m in found if c == "NGX010"] == ([message] if message else [])


def test_ca_missing_at_http_level_is_reported_once(tmp_path: Path) -> None:
    http = "ssl_verify_client on;\n" + server("a.example") + server("b.example")
    found = lint_codes(tmp_path, http, ("1.31.3", "openssl-3.3.7"))
    assert found == [
        ("NGX010", "no ssl_client_certificate or ssl_trusted_certificate for ssl_verify_client")
    ]
