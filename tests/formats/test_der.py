"""nginxgen.base.der reads what the rules ask of certificates and keys without cryptography; every
answer must be cryptography's. Files made by the openssl command line, answers checked against
cryptography, field by field, and against its key matching."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from nginxgen.base import der
from tests.paths import REPO

# openssl genpkey options per key kind
KEYS = {
    "rsa": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    "p384": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
    "p256": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "ed25519": ["-algorithm", "ED25519"],
}


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root (RSA), an intermediate (P-384, with an OCSP responder, signed with SHA-384), leaves
    under it, and self-signed oddities: a date past 2049 (GeneralizedTime), a compressed EC
    point, a T61String name, an RSA-PSS signature."""
    d = tmp_path_factory.mktemp("pki")
    for name, options in KEYS.items():
        _openssl("genpkey", *options, "-out", f"{name}.key", cwd=d)
    _openssl("rsa", "-in", "rsa.key", "-traditional", "-out", "rsa.trad.key", cwd=d)
    _openssl("ec", "-in", "p256.key", "-out", "p256.trad.key", cwd=d)
    _openssl("ec", "-in", "p256.key", "-conv_form", "compressed", "-out", "p256.comp.key", cwd=d)
    _openssl("ec", "-in", "p256.key", "-no_public", "-out", "p256.nopub.key", cwd=d)
    _openssl("pkcs8", "-topk8", "-in", "p256.key", "-passout", "pass:x", "-out", "p256.enc.key", cwd=d)  # fmt: skip
    _openssl("req", "-x509", "-new", "-key", "rsa.key", "-subj", "/C=DE/O=Root/CN=Root CA", "-days", "3650", "-out", "root.pem", cwd=d)  # fmt: skip
    (d / "inter.ext").write_text(
        "basicConstraints=critical,CA:TRUE\n"
        "authorityInfoAccess=OCSP;URI:http://ocsp.example.test/,caIssuers;URI:http://ca.test/r\n"
    )
    _openssl("req", "-new", "-key", "p384.key", "-subj", "/O=Inter/CN=Intermediate", "-out", "inter.csr", cwd=d)  # fmt: skip
    _openssl("x509", "-req", "-in", "inter.csr", "-CA", "root.pem", "-CAkey", "rsa.key", "-CAcreateserial", "-days", "1000", "-sha384", "-extfile", "inter.ext", "-out", "inter.pem", cwd=d)  # fmt: skip
    (d / "leaf.ext").write_text("subjectAltName=DNS:leaf.example.test\n")
    for leaf in ("p256", "ed25519"):
        _openssl("req", "-new", "-key", f"{leaf}.key", "-subj", f"/CN={leaf}.test/OU=A+OU=B", "-out", f"{leaf}.csr", cwd=d)  # fmt: skip
        _openssl("x509", "-req", "-in", f"{leaf}.csr", "-CA", "inter.pem", "-CAkey", "p384.key", "-CAcreateserial", "-days", "90", "-extfile", "leaf.ext", "-out", f"{leaf}.pem", cwd=d)  # fmt: skip
        (d / f"{leaf}.full.pem").write_bytes((d / f"{leaf}.pem").read_bytes() + (d / "inter.pem").read_bytes())  # fmt: skip
    (d / "mask.cnf").write_text("[req]\ndistinguished_name=dn\nstring_mask=default\n[dn]\n")
    for name, extra in (
        ("far", ["-key", "p256.key", "-days", "15000"]),
        ("compressed", ["-key", "p256.comp.key", "-days", "3"]),
        ("t61", ["-key", "p256.key", "-days", "3", "-utf8", "-config", "mask.cnf"]),
        ("pss", ["-key", "rsa.key", "-days", "3", "-sigopt", "rsa_padding_mode:pss"]),
    ):
        subject = "/CN=café t61" if name == "t61" else f"/CN={name}.test"
        _openssl("req", "-x509", "-new", "-subj", subject, *extra, "-out", f"{name}.pem", cwd=d)
    (d / "combined.pem").write_bytes((d / "p256.pem").read_bytes() + (d / "p256.key").read_bytes())
    (d / "broken.pem").write_bytes((d / "p256.pem").read_bytes().replace(b"MII", b"MIJ", 1))
    return d


def _answer(ask: object) -> object:
    """The value, or the kind of error raised for it (a name cryptography cannot read)."""
    try:
        return ask()  # type: ignore[operator]
    except ValueError as exc:
        return type(exc).__name__


def _name(name: x509.Name) -> der.NameKey:
    return tuple(frozenset((a.oid.dotted_string, a.value) for a in rdn) for rdn in name.rdns)


def test_every_field_is_cryptographys(pki: Path) -> None:
    from nginxgen.base import pem

    files = sorted(pki.glob("*.pem"))
    assert len(files) == 12
    for path in files:
        data = path.read_bytes()
        ours, theirs = der.load_chain(data), pem.load_chain(data)
        assert len(ours) == len(theirs), path.name
        for mine, cert in zip(ours, theirs, strict=True):
            fresh = der.Certificate(mine.der)  # read by this module alone, where it can
            digest = cert.signature_hash_algorithm
            got = (
                _answer(lambda: fresh.subject),  # noqa: B023
                _answer(lambda: fresh.issuer),  # noqa: B023
                fresh.not_after,
                fresh.key,
                fresh.signature_digest,
                fresh.ocsp_urls,
                fresh.sha256(),
            )
            want = (
                _answer(lambda: _name(cert.subject)),  # noqa: B023
                _answer(lambda: _name(cert.issuer)),  # noqa: B023
                cert.not_valid_after_utc,
                pem.key_description(cert),
                None if digest is None else digest.name,
                pem.ocsp_urls(cert),
                cert.fingerprint(hashes.SHA256()).hex(),
            )
            assert got == want, path.name
    assert der.Certificate(der.load_chain((pki / "far.pem").read_bytes())[0].der).not_after > (
        datetime.datetime(2050, 1, 1, tzinfo=datetime.UTC)
    )
    assert der.load_chain((pki / "broken.pem").read_bytes()) == []


def test_the_common_files_are_read_without_cryptography(pki: Path) -> None:
    """The whole of each usual certificate is read here; the odd ones are cryptography's."""
    whole = {
        path.name
        for path in pki.glob("*.pem")
        for cert in der.load_chain(path.read_bytes())
        if len(der._read_certificate(cert.der)) == len(der._FIELDS)
    }
    assert {"root.pem", "inter.pem", "p256.full.pem", "ed25519.pem", "far.pem"} <= whole
    assert not {"compressed.pem", "t61.pem", "pss.pem"} & whole


def test_which_certificate_a_key_belongs_to_is_cryptographys(pki: Path) -> None:
    from nginxgen.base import pem

    light = 0
    for key in sorted([*pki.glob("*.key"), pki / "combined.pem", pki / "root.pem"]):
        data = key.read_bytes()
        light += der._private_key_id(data) is not None
        for chain_file in ("p256.full.pem", "root.pem", "inter.pem", "ed25519.full.pem"):
            chain = (pki / chain_file).read_bytes()
            try:
                own = pem.public_bytes(
                    serialization.load_pem_private_key(data, password=None).public_key()
                )
                certs = [pem.public_bytes(c.public_key()) for c in pem.load_chain(chain)]
                want: int | None = certs.index(own) if own in certs else -1
            except (TypeError, ValueError):
                want = None
            assert der.key_index(data, der.load_chain(chain)) == want, (key.name, chain_file)
    assert light == 6  # PKCS#8 and traditional RSA and EC keys, and a key beside its certificate


def test_a_lint_that_reads_a_certificate_does_not_load_cryptography(pki: Path) -> None:
    conf = pki / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        server_name a.test;\n"
        f"        ssl_certificate {pki / 'p256.full.pem'};\n"
        f"        ssl_certificate_key {pki / 'p256.key'};\n        ssl_stapling on;\n    }}\n}}\n"
    )
    code = (
        "import sys; from nginxgen.lint.cli import run; code = run([sys.argv[1]]); "
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'cryptography'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(conf)], cwd=REPO, capture_output=True, text=True
    )
    assert result.stdout.splitlines()[-1] == "1 []", result.stdout + result.stderr
    # and it did read the certificate: the chain holds the intermediate, which names no OCSP
    # responder for the leaf (NGX726 reads the leaf's)
    assert "NGX726" in result.stdout, result.stdout


def test_names_compare_by_their_canonical_encoding() -> None:
    """x509_name_canon: case, white space and the string type do not tell names apart, and
    the canonical encoding is the SETs of the RDNs without the outer SEQUENCE."""
    from cryptography import x509
    from cryptography.x509.name import _ASN1Type
    from cryptography.x509.oid import NameOID

    from nginxgen.base.der import name_canon

    def canon(value: str, kind: _ASN1Type = _ASN1Type.UTF8String) -> bytes:
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, value, _type=kind)])
        return name_canon(name.public_bytes())

    plain = canon("example ca")
    assert canon("  Example \t  CA ") == plain
    assert canon("Example CA", _ASN1Type.PrintableString) == plain
    # SET { SEQUENCE { OID 2.5.4.3, UTF8String "example ca" } }
    assert plain == bytes.fromhex("311330110603550403") + b"\x0c\x0aexample ca"
