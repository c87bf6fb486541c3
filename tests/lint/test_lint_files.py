"""Rules that read the files a config names: certificate chains and keys, DH parameters and
ticket keys. Each fires on a file with the fault and is silent on the fixed file; unreadable
paths say nothing; the three error rules are confirmed on real nginx (nginx -t refuses them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from nginxgen.base.der import dh_prime_bits
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.findings import Finding
from tests.builds import ALL_BUILD_NAMES, Build
from tests.every_rule import lint_checked
from tests.live import live_target, nginx_check, prepare_prefix
from tests.pki import CertificateFactory, Chain

OPENSSL = ("1.26.3", "openssl-3.5.7")
BORING = ("1.26.3", "boringssl")
FILE_RULES = ("NGX72", "NGX73")
NAME_WEAK = "weak.example"


def site(cert: Path | str, key: Path | str, extra: str = "") -> str:
    return (
        "events {}\nhttp {\nssl_protocols TLSv1.2 TLSv1.3;\nssl_session_cache shared:S:1m;\n"
        "server { listen 443 ssl default_server; server_name a.example;\n"
        f"  ssl_certificate {cert};\n  ssl_certificate_key {key};\n  {extra}\n"
        '  add_header Strict-Transport-Security "max-age=63072000" always;\n}\n}\n'
    )


def findings(text: str, folder: Path, target: tuple[str, str] = OPENSSL) -> list[Finding]:
    conf = folder / "nginx.conf"
    conf.write_text(text)
    found = lint_checked(load_path(str(conf)), resolve(*target))
    return [f for f in found if f.code.startswith(FILE_RULES)]


def codes(text: str, folder: Path, target: tuple[str, str] = OPENSSL) -> list[str]:
    return [f.code for f in findings(text, folder, target)]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> CertificateFactory:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa")


@pytest.fixture(scope="module")
def chain(pki: CertificateFactory) -> Chain:
    return pki.leaf("a.example")


def test_a_good_chain_says_nothing(chain: Chain, tmp_path: Path) -> None:
    assert codes(site(chain.fullchain, chain.key), tmp_path) == []


def test_leaf_only_chain(chain: Chain, tmp_path: Path) -> None:
    assert codes(site(chain.leaf, chain.key), tmp_path) == ["NGX722"]


def test_a_leaf_issued_by_a_root_is_a_complete_chain(
    pki: CertificateFactory, chain: Chain, tmp_path: Path
) -> None:
    """A private CA without intermediates: the leaf alone is complete where its issuer is found
    to be a root (beside it, or in a CA file the config names); an intermediate found beside it
    is named; an issuer found nowhere is still reported."""
    by_root = pki.leaf("root-issued.example", issuer=(pki.root, pki.root_key))
    assert codes(site(by_root.leaf, by_root.key), tmp_path) == []  # pki/root.crt beside it
    alone = tmp_path / "alone"
    alone.mkdir()
    leaf = alone / "leaf.crt"
    leaf.write_bytes(by_root.leaf.read_bytes())
    assert codes(site(leaf, by_root.key), tmp_path) == ["NGX722"]  # the root is nowhere here
    trusted = f"ssl_trusted_certificate {pki.root_path};"
    assert codes(site(leaf, by_root.key, trusted), tmp_path) == []  # the config names the root
    (found,) = findings(site(chain.leaf, chain.key), tmp_path)
    assert found.code == "NGX722"
    assert "(CN=nginxgen test intermediate is in " in found.message  # a fullchain beside it


@pytest.mark.parametrize("kind", ["rsa:2048", "ec"])
def test_a_sha1_leaf_issued_by_a_named_root_is_a_complete_chain(kind: str, tmp_path: Path) -> None:
    """Trial 13 (remiq/nginx-ssl-client): a leaf its root signed with SHA-1 (the openssl command
    line signs so; cryptography refuses to), the root named in ssl_client_certificate: NGX722
    said the leaf lacks its intermediate, because cryptography's issuer check refuses SHA-1
    signatures. The signature is now verified with the root's key."""
    pki = CertificateFactory(tmp_path / "pki", "rsa" if kind.startswith("rsa") else "ecdsa")
    root_key = tmp_path / "root.key"
    root_key.write_bytes(
        pki.root_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    alone = tmp_path / "alone"
    alone.mkdir()
    leaf, key, request = alone / "leaf.crt", alone / "leaf.key", tmp_path / "leaf.csr"
    options = ["-pkeyopt", "ec_paramgen_curve:P-256"] if kind == "ec" else []
    for argv in (
        ["req", "-new", "-newkey", kind, *options, "-nodes", "-subj", "/CN=sha1.example",
         "-keyout", str(key), "-out", str(request)],
        ["x509", "-req", "-in", str(request), "-CA", str(pki.root_path), "-CAkey",
         str(root_key), "-sha1", "-days", "30", "-set_serial", "7", "-out", str(leaf)],
    ):  # fmt: skip
        subprocess.run(["openssl", *argv], check=True, capture_output=True)
    text = subprocess.run(["openssl", "x509", "-in", str(leaf), "-noout", "-text"],
                          check=True, capture_output=True, text=True).stdout  # fmt: skip
    assert re.search(r"Signature Algorithm: \S*sha1", text, re.I), text  # RSA's and ECDSA's
    named = f"ssl_client_certificate {pki.root_path}; ssl_verify_client on;"
    assert "NGX722" not in codes(site(leaf, key, named), tmp_path)
    assert "NGX722" in codes(site(leaf, key), tmp_path)  # the root is nowhere here


def test_leaf_not_first_is_a_key_mismatch(
    pki: CertificateFactory, chain: Chain, tmp_path: Path
) -> None:
    swapped = tmp_path / "swapped.pem"
    swapped.write_bytes(
        pki.intermediate.public_bytes(serialization.Encoding.PEM) + chain.leaf.read_bytes()
    )
    (found,) = findings(site(swapped, chain.key), tmp_path)
    assert found.code == "NGX721" and "not of the first" in found.message
    assert found.line == 7  # the ssl_certificate_key line


def test_key_of_another_certificate(pki: CertificateFactory, chain: Chain, tmp_path: Path) -> None:
    other = pki.leaf("b.example")
    (found,) = findings(site(chain.fullchain, other.key), tmp_path)
    assert found.code == "NGX721" and "belongs to no certificate" in found.message


def test_chain_out_of_order(pki: CertificateFactory, chain: Chain, tmp_path: Path) -> None:
    pem = serialization.Encoding.PEM
    shuffled = tmp_path / "shuffled.pem"
    shuffled.write_bytes(
        chain.leaf.read_bytes() + pki.root.public_bytes(pem) + pki.intermediate.public_bytes(pem)
    )
    assert codes(site(shuffled, chain.key), tmp_path) == ["NGX723"]
    in_order = tmp_path / "in-order.pem"
    in_order.write_bytes(chain.fullchain.read_bytes() + pki.root.public_bytes(pem))
    assert codes(site(in_order, chain.key), tmp_path) == []


def test_weak_rsa_key_is_an_error_where_the_library_refuses_it(tmp_path: Path) -> None:
    weak = CertificateFactory(tmp_path / "weak", "ecdsa").leaf("a.example", kind="rsa1024")
    text = site(weak.fullchain, weak.key)
    (on_openssl,) = findings(text, tmp_path)
    assert on_openssl.code == "NGX724" and on_openssl.severity == "error"
    assert "RSA 1024-bit" in on_openssl.message
    (on_boring,) = findings(text, tmp_path, BORING)
    assert on_boring.severity == "warning"
    strong = CertificateFactory(tmp_path / "strong", "ecdsa").leaf("a.example", kind="rsa")
    assert codes(site(strong.fullchain, strong.key), tmp_path) == []


def test_seclevel_against_the_certificate(chain: Chain, tmp_path: Path) -> None:
    """NGX411: a P-256 key gives 128 bits (level 3 takes it, 4 and 5 do not), RSA 2048 112
    (level 3 refuses it); BoringSSL has no levels (NGX410 refuses the string there)."""

    def ngx411(cert: Path, key: Path, ciphers: str, target: tuple[str, str] = OPENSSL) -> list[str]:
        conf = tmp_path / "nginx.conf"
        conf.write_text(site(cert, key, f"ssl_ciphers {ciphers};"))
        found = lint_checked(load_path(str(conf)), resolve(*target))
        return [f.message for f in found if f.code == "NGX411"]

    (message,) = ngx411(chain.fullchain, chain.key, "HIGH:@SECLEVEL=5")
    assert "256 security bits" in message and "ee key too small" in message
    assert ngx411(chain.fullchain, chain.key, "HIGH:@SECLEVEL=4")
    assert ngx411(chain.fullchain, chain.key, "HIGH:@SECLEVEL=3") == []
    assert ngx411(chain.fullchain, chain.key, "HIGH") == []  # the default level is NGX724's
    assert ngx411(chain.fullchain, chain.key, "HIGH:@SECLEVEL=5", BORING) == []
    rsa = CertificateFactory(tmp_path / "rsa", "ecdsa").leaf("r.example", kind="rsa")
    (message,) = ngx411(rsa.fullchain, rsa.key, "HIGH:@SECLEVEL=3")
    assert "RSA 2048-bit key of 112 bits" in message


@pytest.mark.parametrize(("days", "severity"), [(-2, "error"), (5, "warning"), (30, None)])
def test_expiry(pki: CertificateFactory, tmp_path: Path, days: int, severity: str | None) -> None:
    leaf = pki.leaf(f"d{days + 10}.example", days=days)
    found = findings(site(leaf.fullchain, leaf.key), tmp_path)
    assert [f.severity for f in found] == ([severity] if severity else [])
    assert all(f.code == "NGX725" for f in found)


def test_stapling_needs_an_ocsp_url(pki: CertificateFactory, chain: Chain, tmp_path: Path) -> None:
    stapling = "ssl_stapling on; resolver 127.0.0.53;"
    assert codes(site(chain.fullchain, chain.key, stapling), tmp_path) == ["NGX726"]
    with_url = pki.leaf("o.example", ocsp_url="http://ocsp.example/")
    assert codes(site(with_url.fullchain, with_url.key, stapling), tmp_path) == []
    # BoringSSL: nginx ignores ssl_stapling, "not supported" (NGX502, not a file rule), and
    # asks for no URL
    # (trial 10: both findings on one line)
    assert (
        codes(site(chain.fullchain, chain.key, stapling), tmp_path, ("1.26.3", "boringssl")) == []
    )


@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel"], indirect=True)
def test_stapling_ignored_as_nginx_says(
    build: Build, pki: CertificateFactory, chain: Chain, tmp_path: Path
) -> None:
    """NGX726 says what nginx -t warns of `ssl_stapling on`, in its words (trial 10's stubs: a
    self-signed certificate drew an info about the OCSP URL where nginx warns that it finds no
    issuer): no issuer where the leaf is alone in its file and no CA file of the server holds
    it; else no OCSP URL; nothing where both are there."""
    # an address, not a name: nginx -t resolves the responder's host, and warns where it cannot
    with_url = pki.leaf("o2.example", ocsp_url="http://127.0.0.1:9/")
    cases = {  # certificate, extra lines: the words nginx -t warns with (None: none)
        "leaf alone": (chain.leaf, "", "issuer certificate not found"),
        "leaf alone, its CA trusted": (
            chain.leaf, f"ssl_trusted_certificate {chain.fullchain};", "no OCSP responder URL"),
        "leaf alone, its CA for clients, not verifying": (
            chain.leaf, f"ssl_client_certificate {chain.fullchain};",
            "issuer certificate not found"),
        "leaf alone, its CA for clients, verifying": (
            chain.leaf, f"ssl_client_certificate {chain.fullchain}; ssl_verify_client on;",
            "no OCSP responder URL"),
        "the full chain without an OCSP URL": (chain.fullchain, "", "no OCSP responder URL"),
        "the full chain with an OCSP URL": (with_url.fullchain, "", None),
        "a stapling file": (chain.leaf, f"ssl_stapling_file {chain.leaf};", None),
    }  # fmt: skip
    conf = tmp_path / "nginx.conf"
    for case, (cert, extra, said) in cases.items():
        key = with_url.key if cert == with_url.fullchain else chain.key
        text = site(cert, key, f"ssl_stapling on; resolver 127.0.0.53; {extra}")
        conf.write_text(text)
        prepare_prefix(conf, build)
        done = nginx_check(build, conf)
        warned = re.findall(r'\[warn\] .*?"ssl_stapling" ignored, (.*?) (?:for|in) ', done.stderr)
        found = [
            f.message for f in lint_checked(load_path(str(conf)), live_target(build, conf))
            if f.code == "NGX726"
        ]  # fmt: skip
        assert warned == ([said] if said else []), (case, done.stderr)
        assert [said in m for m in found] == ([True] if said else []), (case, found)


def stapling_as_nginx_says(
    build: Build, cert: Path, key: Path, extra: str, folder: Path
) -> tuple[list[str], dict[str, Finding]]:
    """nginx -t's words for ssl_stapling it ignores (`"ssl_stapling" ignored, WORDS for|in`),
    and lint's stapling findings by code, on one TLS server with `ssl_stapling on;
    ssl_stapling_verify on;` and `extra`."""
    conf = folder / "nginx.conf"
    conf.write_text(site(cert, key, f"ssl_stapling on; ssl_stapling_verify on; {extra}"))
    prepare_prefix(conf, build)
    done = nginx_check(build, conf)
    assert "test is successful" in done.stderr, done.stderr
    warned = re.findall(r'\[warn\] .*?"ssl_stapling" ignored, (.*?)(?: (?:for|in) |$)',
                        done.stderr, re.M)  # fmt: skip
    found = {
        f.code: f for f in lint_checked(load_path(str(conf)), live_target(build, conf))
        if f.code in ("NGX502", "NGX711", "NGX712", "NGX726")
    }  # fmt: skip
    return warned, found


@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_no_stapling_advice_where_nginx_ignores_stapling(
    build: Build, pki: CertificateFactory, chain: Chain, tmp_path: Path
) -> None:
    """Trial 19 (F3): where nginx -t says it ignores ssl_stapling for the server's certificate
    (`not supported` with BoringSSL, NGX502; no issuer or no OCSP URL, NGX726), NGX711 (a
    resolver: nginx looks no responder up) and NGX712 (a trusted certificate: no response to
    verify) say nothing, and the one finding is the one that says nginx ignores it; where nginx
    staples, they are said."""
    with_url = pki.leaf("o3.example", ocsp_url="http://127.0.0.1:9/")
    boring = build.tls_library.startswith("boringssl")
    cases = {  # certificate, key: the words nginx -t warns with (None: none)
        "leaf alone": (chain.leaf, chain.key, "issuer certificate not found"),
        "no OCSP URL": (chain.fullchain, chain.key, "no OCSP responder URL"),
        "an OCSP URL": (with_url.fullchain, with_url.key, None),
    }
    for case, (cert, key, said) in cases.items():
        warned, found = stapling_as_nginx_says(build, cert, key, "", tmp_path)
        said = "not supported" if boring else said
        assert warned == ([said] if said else []), (case, warned)
        ignoring = "NGX502" if boring else "NGX726" if said else None
        expected = [ignoring] if ignoring else ["NGX711", "NGX712"]
        assert sorted(found) == expected, (case, sorted(found))


def test_stapling_advice_for_an_http_level_line_where_one_server_staples(
    pki: CertificateFactory, chain: Chain, tmp_path: Path
) -> None:
    """`ssl_stapling on` in http{} for two servers: nginx ignores it for the one whose issuer
    it does not find, not for the one with its chain and an OCSP URL. NGX711 and NGX712 are
    said for the line while one server staples, and not where none does."""
    with_url = pki.leaf("o4.example", ocsp_url="http://127.0.0.1:9/")

    def stapling_advice(*servers: tuple[Path, Path]) -> list[str]:
        conf = tmp_path / "nginx.conf"
        conf.write_text(
            "events {}\nhttp {\nssl_stapling on; ssl_stapling_verify on;\n"
            + "".join(
                f"server {{ listen 443 ssl; server_name s{n}.example;\n"
                f"  ssl_certificate {cert}; ssl_certificate_key {key}; }}\n"
                for n, (cert, key) in enumerate(servers)
            )
            + "}\n"
        )
        found = lint_checked(load_path(str(conf)), resolve(*OPENSSL))
        return sorted(f.code for f in found if f.code in ("NGX711", "NGX712"))

    alone, stapled = (chain.leaf, chain.key), (with_url.fullchain, with_url.key)
    assert stapling_advice(alone, stapled) == ["NGX711", "NGX712"]
    assert stapling_advice(alone, alone) == []


# nginx ignores ssl_stapling with BoringSSL and asks neither (NGX502): not drawn there
@pytest.mark.parametrize(
    "build", [name for name in ALL_BUILD_NAMES if name != "boringssl"], indirect=True
)
def test_no_ocsp_url_fix_and_responder(build: Build, chain: Chain, tmp_path: Path) -> None:
    """Trial 19 (F2): the fix for a certificate without an OCSP URL is not to add its issuer
    after it (nginx found that: it looks for it first, and says so where it finds none). With
    ssl_stapling_responder nginx asks the certificate for no URL: no warning, no NGX726."""
    assert not build.tls_library.startswith("boringssl"), build.tls_library
    warned, found = stapling_as_nginx_says(build, chain.fullchain, chain.key, "", tmp_path)
    assert warned == ["no OCSP responder URL"], warned
    assert "issuer" not in found["NGX726"].fix, found["NGX726"].fix
    responder = "ssl_stapling_responder http://127.0.0.1:9/;"
    warned, found = stapling_as_nginx_says(build, chain.fullchain, chain.key, responder, tmp_path)
    assert warned == [], warned
    assert sorted(found) == ["NGX712"], sorted(found)  # an address: nothing to resolve


@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel"], indirect=True)
def test_a_key_file_nginx_reads_no_key_from(build: Build, chain: Chain, tmp_path: Path) -> None:
    """NGX727 (trial 11): a key file with no key in it, and an encrypted key without an
    ssl_password_file, fail nginx -t with `cannot load certificate key`; with the password
    file both nginx and lint take the encrypted key."""
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(chain.key.read_bytes(), None)
    encrypted = tmp_path / "encrypted.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    (tmp_path / "garbage.key").write_text("not a key\n")
    (tmp_path / "password").write_text("secret\n")
    conf = tmp_path / "nginx.conf"
    cases = {  # key file, extra lines: refused?
        "no key in it": (tmp_path / "garbage.key", "", True),
        "encrypted, no password": (encrypted, "", True),
        "encrypted, with its password": (encrypted, f"ssl_password_file {tmp_path}/password;", False),
    }  # fmt: skip
    for case, (key_file, extra, refused) in cases.items():
        conf.write_text(site(chain.fullchain, key_file, extra))
        prepare_prefix(conf, build)
        done = nginx_check(build, conf)
        found = [
            f.message for f in lint_checked(load_path(str(conf)), live_target(build, conf))
            if f.code == "NGX727"
        ]  # fmt: skip
        assert (done.returncode != 0) == refused, (case, done.stderr)
        assert ("cannot load certificate key" in done.stderr) == refused, (case, done.stderr)
        assert len(found) == int(refused), (case, found)
        assert all("cannot load certificate key" in m for m in found), found


def openssl_dh(out: Path, *args: str) -> Path:
    """DH parameters made by OpenSSL, as a user makes them (`openssl dhparam`, `genpkey`)."""
    command, *rest = args  # options before `dhparam`'s size
    subprocess.run(["openssl", command, "-out", str(out), *rest], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def dhparams(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("dh")
    weak = openssl_dh(folder / "dh1024.pem", "dhparam", "1024")  # PKCS #3 `DH PARAMETERS`
    group = ("-algorithm", "DH", "-pkeyopt", "group:ffdhe2048")
    return weak, openssl_dh(folder / "ffdhe2048.pem", "genpkey", "-genparam", *group)


@pytest.fixture(scope="module")
def x942(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`X9.42 DH PARAMETERS` (p, g, q), which nginx loads too: 1024 and 2048 bits."""
    folder = tmp_path_factory.mktemp("x942")
    make = ("dhparam", "-dsaparam")
    return openssl_dh(folder / "1024.pem", *make, "1024"), openssl_dh(
        folder / "2048.pem", *make, "2048"
    )


DHE = "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:DHE-RSA-AES128-GCM-SHA256;"
ECDHE = "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;"


def test_dhparam_rules(chain: Chain, dhparams: tuple[Path, Path], tmp_path: Path) -> None:
    weak, good = dhparams
    cert = (chain.fullchain, chain.key)
    assert codes(site(*cert, f"{DHE} ssl_dhparam {weak};"), tmp_path) == ["NGX731"]
    assert codes(site(*cert, f"{DHE} ssl_dhparam {good};"), tmp_path) == []
    assert codes(site(*cert, DHE), tmp_path) == ["NGX732"]
    assert codes(site(*cert, ECDHE), tmp_path) == []
    assert codes(site(*cert, f"{ECDHE} ssl_dhparam {good};"), tmp_path) == ["NGX733"]
    tls13 = f"ssl_protocols TLSv1.3; ssl_dhparam {good};"
    assert codes(site(*cert, tls13), tmp_path) == ["NGX733"]


def test_an_http_cipher_line_is_judged_by_every_server_it_applies_to(
    chain: Chain, dhparams: tuple[Path, Path], tmp_path: Path
) -> None:
    """An http{} line with DHE suites, a default server that refuses every handshake, and a
    vhost with ssl_dhparam: the vhost negotiates DHE (trial 24, s_client on OpenSSL 3.6), so
    the suites are used; without the vhost's ssl_dhparam they are not, said of the vhost."""
    _, good = dhparams

    def tree(dhparam: str) -> str:
        return (
            f"events {{}}\nhttp {{\n{DHE}\nssl_session_cache shared:S:1m;\n"
            "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
            "server { listen 443 ssl; server_name b.example;\n"
            f"  ssl_certificate {chain.fullchain};\n  ssl_certificate_key {chain.key};\n"
            f'  {dhparam}\n  add_header Strict-Transport-Security "max-age=63072000" always;\n}}\n}}\n'
        )

    assert "NGX732" not in codes(tree(f"ssl_dhparam {good};"), tmp_path)
    (unused,) = [f for f in findings(tree(""), tmp_path) if f.code == "NGX732"]
    assert unused.line == 3 and unused.message == (
        "1 DHE suite (DHE-RSA-AES128-GCM-SHA256, ...) never used: no ssl_dhparam where this "
        f"line applies (server b.example ({tmp_path / 'nginx.conf'}:6))"
    ), unused.message


def test_dh_parameters_are_read_as_openssl_reads_them(
    dhparams: tuple[Path, Path], x942: tuple[Path, Path]
) -> None:
    for path in (*dhparams, *x942):
        shown = subprocess.run(
            ["openssl", "pkeyparam", "-in", str(path), "-text", "-noout"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        said = re.search(r"DH Parameters: \((\d+) bit\)", shown)
        assert said is not None, shown
        assert dh_prime_bits(path.read_bytes()) == int(said[1]), path


def test_dhparam_tree_prints_no_library_warning(
    chain: Chain, dhparams: tuple[Path, Path], x942: tuple[Path, Path], tmp_path: Path
) -> None:
    # Issue 44: cryptography 50 deprecates finite-field DH and warned on each run that read
    # the parameters (CryptographyDeprecationWarning on stderr, every pre-commit run).
    conf = tmp_path / "nginx.conf"
    for path in (dhparams[0], x942[0]):
        conf.write_text(site(chain.fullchain, chain.key, f"{DHE} ssl_dhparam {path};"))
        done = subprocess.run(
            [sys.executable, "-m", "nginxgen", "lint", "--nginx-version", OPENSSL[0],
             "--tls-library", OPENSSL[1], "--select", "NGX731", str(conf)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.stderr == "nginxgen: target: nginx 1.26.3 with OpenSSL 3.5.7\n", done.stderr
        assert done.returncode == 1 and "NGX731 error" in done.stdout, done.stdout


@pytest.mark.parametrize(("size", "expected"), [(32, ["NGX734"]), (48, []), (80, [])])
def test_ticket_key_size(chain: Chain, tmp_path: Path, size: int, expected: list[str]) -> None:
    (tmp_path / "ticket.key").write_bytes(b"k" * size)
    text = site(chain.fullchain, chain.key, "ssl_session_ticket_key ticket.key;")  # relative
    assert codes(text, tmp_path) == expected


@pytest.mark.parametrize("build", ["bookworm", "trixie", "wheel", "openssl40"], indirect=True)
def test_a_missing_ticket_key_file(build: Build, chain: Chain, tmp_path: Path) -> None:
    """nginx opens each ssl_session_ticket_key file as it merges the server's settings and stops
    where one does not exist (naming http{}'s `}`); NGX734 says so at the key's line, in the
    tree this machine's nginx reads (live_target), and nginx and lint both take the file once
    it is there."""
    conf = tmp_path / "nginx.conf"
    key = tmp_path / "keys" / "ticket.key"
    text = site(chain.fullchain, chain.key, f"ssl_session_ticket_key {key};")
    conf.write_text(text.replace("events {}", "worker_processes auto;\nevents {}"))
    prepare_prefix(conf, build)  # adds lines: the key's line is read after
    lines = conf.read_text().split("\n")
    at = 1 + next(n for n, line in enumerate(lines) if "ssl_session_ticket_key" in line)
    said = nginx_check(build, conf).stderr
    found = [
        f
        for f in lint_checked(load_path(str(conf)), live_target(build, conf))
        if f.code == "NGX734"
    ]
    assert f'open() "{key}" failed (2: No such file or directory)' in said, said
    assert [(f.line, f.message.split("nginx -t fails: ")[1]) for f in found] == [
        (at, f'open() "{key}" failed')
    ], found
    key.parent.mkdir()
    key.write_bytes(b"k" * 80)
    assert nginx_check(build, conf).returncode == 0, nginx_check(build, conf).stderr
    assert [
        f
        for f in lint_checked(load_path(str(conf)), live_target(build, conf))
        if f.code == "NGX734"
    ] == []


def test_unreadable_or_variable_paths_say_nothing(chain: Chain, tmp_path: Path) -> None:
    assert codes(site("/nonexistent/cert.pem", "/nonexistent/key.pem"), tmp_path) == []
    assert (
        codes(site("/etc/ssl/$ssl_server_name.crt", "/etc/ssl/$ssl_server_name.key"), tmp_path)
        == []
    )


@pytest.mark.parametrize("build", ["wheel", "bookworm", "trixie"], indirect=True)
def test_real_nginx_refuses_what_the_error_rules_flag(
    build: Build, pki: CertificateFactory, chain: Chain, x942: tuple[Path, Path], tmp_path: Path
) -> None:
    pem = serialization.Encoding.PEM
    swapped = tmp_path / "swapped.pem"
    swapped.write_bytes(pki.intermediate.public_bytes(pem) + chain.leaf.read_bytes())
    (tmp_path / "ticket.key").write_bytes(b"k" * 32)
    weak = CertificateFactory(tmp_path / "weak", "ecdsa").leaf(NAME_WEAK, kind="rsa1024")
    target = (build.nginx_version, build.tls_library)
    for extra, cert, key, code, message in [
        ("", swapped, chain.key, "NGX721", "key values mismatch"),
        ("ssl_session_ticket_key ticket.key;", chain.fullchain, chain.key, "NGX734", "48 or 80"),
        ("", weak.fullchain, weak.key, "NGX724", "ee key too small"),
        (f"{DHE} ssl_dhparam {x942[0]};", chain.fullchain, chain.key, "NGX731", "dh key too small"),
    ]:
        text = site(cert, key, extra).replace("events {}", "worker_processes auto;\nevents {}")
        assert code in codes(text, tmp_path, target)
        conf = tmp_path / "nginx.conf"
        prepare_prefix(conf, build)
        done = nginx_check(build, conf)
        assert done.returncode != 0 and message in done.stderr, done.stderr
        fixed = site(chain.fullchain, chain.key).replace(
            "events {}", "worker_processes auto;\nevents {}"
        )
        assert code not in codes(fixed, tmp_path, target)
        prepare_prefix(conf, build)
        assert nginx_check(build, conf).returncode == 0, nginx_check(build, conf).stderr


CA_LINES = {
    "ssl_certificate": "ssl_certificate {path}; ssl_certificate_key {key};",
    "ssl_client_certificate": "ssl_verify_client on; ssl_client_certificate {path};",
    "ssl_trusted_certificate": "ssl_trusted_certificate {path};",
    "proxy_ssl_trusted_certificate": "location / { proxy_pass https://127.0.0.1:9; "
    "proxy_ssl_verify on; proxy_ssl_trusted_certificate {path}; }",
}


def unloadable(chain: Chain, directive: str, path: Path) -> str:
    """A site whose `directive` names `path`; the server's own pair is good."""
    line = CA_LINES[directive].replace("{path}", str(path)).replace("{key}", str(chain.key))
    extra = "" if directive == "ssl_certificate" else line
    text = site(chain.fullchain, chain.key, extra)
    if directive == "ssl_certificate":
        text = text.replace(f"ssl_certificate {chain.fullchain};", f"ssl_certificate {path};")
    return text.replace("events {}", "worker_processes auto;\nevents {}")


@pytest.mark.parametrize("build", ["wheel", "bookworm", "trixie", "openssl36"], indirect=True)
def test_a_certificate_or_ca_file_nginx_cannot_load(
    build: Build, chain: Chain, tmp_path: Path
) -> None:
    """NGX727 on a missing file (of the tree this machine's nginx reads) and on one that is no
    PEM certificate, for every directive that loads one; nginx -t refuses each with the message
    the finding quotes, and takes the fixed file."""
    (tmp_path / "garbage.pem").write_text("not a certificate\n")
    conf = tmp_path / "nginx.conf"
    target = live_target(build, conf)
    for directive in CA_LINES:
        for name, why in (("missing.pem", "does not exist"), ("garbage.pem", "holds no")):
            conf.write_text(unloadable(chain, directive, tmp_path / name))
            found = lint_checked(load_path(str(conf)), target)
            (finding,) = [f for f in found if f.code == "NGX727"]
            assert why in finding.message, finding
            assert directive in conf.read_text().splitlines()[finding.line - 1], finding
            said = finding.message.split("nginx -t fails: ", 1)[1]
            prepare_prefix(conf, build)
            done = nginx_check(build, conf)
            assert done.returncode != 0 and said in done.stderr, (directive, name, done.stderr)
        good = chain.root if directive != "ssl_certificate" else chain.fullchain
        conf.write_text(unloadable(chain, directive, good))
        assert "NGX727" not in [f.code for f in lint_checked(load_path(str(conf)), target)]
        prepare_prefix(conf, build)
        done = nginx_check(build, conf)
        assert done.returncode == 0, (directive, done.stderr)


@pytest.mark.parametrize("build", ["bookworm", "trixie", "boringssl"], indirect=True)
@pytest.mark.parametrize("directive", ["ssl_certificate_key", "ssl_dhparam"])
def test_a_missing_key_or_dh_parameters_file(
    build: Build, chain: Chain, directive: str, tmp_path: Path
) -> None:
    """NGX727 on a certificate key or ssl_dhparam file that does not exist, in the tree this
    machine's nginx reads (found trying Sandstorm's example config as a new user: its
    `ssl_dhparam /path/to/dhparam.pem;` drew nothing), with nginx -t's own words."""
    conf = tmp_path / "nginx.conf"
    missing = tmp_path / "missing.pem"
    text = site(chain.fullchain, chain.key, f"ssl_dhparam {missing};" if "dh" in directive else "")
    if directive == "ssl_certificate_key":
        text = text.replace(f"ssl_certificate_key {chain.key};", f"ssl_certificate_key {missing};")
    conf.write_text(text.replace("events {}", "worker_processes auto;\nevents {}"))
    found = lint_checked(load_path(str(conf)), live_target(build, conf))
    (finding,) = [f for f in found if f.code == "NGX727"]
    assert directive in conf.read_text().splitlines()[finding.line - 1], finding
    said = finding.message.split("nginx -t fails: ", 1)[1]
    prepare_prefix(conf, build)
    done = nginx_check(build, conf)
    assert done.returncode != 0 and said in done.stderr, done.stderr


def test_a_missing_file_may_be_on_the_server(chain: Chain, tmp_path: Path) -> None:
    """Missing here, in a tree that is not this machine's nginx's (no --nginx-bin, or a copy):
    not reported, lint often runs without the server's files; a CA file of CRLs alone is no
    finding either."""
    for path in (tmp_path / "missing.pem", Path("/nonexistent-nginxgen/ca.pem")):
        assert "NGX727" not in codes(unloadable(chain, "ssl_client_certificate", path), tmp_path)
    crl = tmp_path / "only.crl"
    crl.write_text("-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n")
    assert "NGX727" not in codes(unloadable(chain, "ssl_trusted_certificate", crl), tmp_path)


def test_suites_that_cannot_sign_with_the_certificate(chain: Chain, tmp_path: Path) -> None:
    """NGX413 (trial 9, Mobilizon's config): aRSA suites only beside an ECDSA certificate, TLS
    1.2 fails (with TLS 1.3 off, every handshake); the other key type, or a list with both,
    says nothing; an RSA certificate beside the ECDSA one signs them."""

    def ngx413(extra: str, *chains: Chain) -> list[tuple[str, str]]:
        conf = tmp_path / "nginx.conf"
        certs = "".join(
            f"ssl_certificate {c.fullchain}; ssl_certificate_key {c.key};\n" for c in chains
        )
        conf.write_text(
            site(chains[0].fullchain, chains[0].key, certs + extra).replace(
                f"  ssl_certificate {chains[0].fullchain};\n  ssl_certificate_key {chains[0].key};\n",
                "",
            )
        )
        found = lint_checked(load_path(str(conf)), resolve(*OPENSSL))
        return [(f.severity.value, f.message) for f in found if f.code == "NGX413"]

    rsa_only = "ssl_ciphers 'EECDH+aRSA+AESGCM:!ECDSA';"
    ((severity, message),) = ngx413(rsa_only, chain)
    assert severity == "warning" and "TLS 1.2 handshakes fail" in message, message
    ((severity, message),) = ngx413(rsa_only + " ssl_protocols TLSv1.2;", chain)
    assert severity == "error" and "no handshake succeeds" in message, message
    assert (
        ngx413("ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;", chain)
        == []
    )
    rsa = CertificateFactory(tmp_path / "rsa", "ecdsa").leaf("a.example", kind="rsa")
    assert ngx413(rsa_only, rsa) == []
    assert ngx413(rsa_only, chain, rsa) == []
