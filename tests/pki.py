"""A throwaway PKI for live tests: root CA -> intermediate -> leaf, ECDSA P-256 or RSA 2048."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import AuthorityInformationAccessOID, NameOID

from tests.helpers import make_key

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@dataclass(frozen=True)
class Chain:
    """Files for one leaf: fullchain (leaf + intermediate), key, and the root to trust."""

    fullchain: Path
    leaf: Path
    key: Path
    root: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key_usage(ca: bool, key: PrivateKey) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not ca,
        content_commitment=False,
        key_encipherment=not ca and isinstance(key, rsa.RSAPrivateKey),
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


class CertificateFactory:
    """Issues leaves from one root and one intermediate, both created once per factory."""

    def __init__(self, folder: Path, kind: str = "ecdsa") -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.now = datetime.datetime.now(datetime.UTC)
        self.root_key = make_key(kind)
        self.root = self._issue(_name("nginxgen test root"), self.root_key, None, None, ca=True)
        self.intermediate_key = make_key(kind)
        self.intermediate = self._issue(
            _name("nginxgen test intermediate"),
            self.intermediate_key,
            self.root,
            self.root_key,
            ca=True,
        )
        self.root_path = folder / "root.crt"
        self.root_path.write_bytes(_pem(self.root))

    def _issue(
        self,
        subject: x509.Name,
        key: PrivateKey,
        issuer: x509.Certificate | None,
        issuer_key: PrivateKey | None,
        ca: bool,
        sans: tuple[str, ...] = (),
        ocsp_url: str | None = None,
        days: int = 30,
        usage: x509.ObjectIdentifier = x509.oid.ExtendedKeyUsageOID.SERVER_AUTH,
    ) -> x509.Certificate:
        not_after = self.now + datetime.timedelta(days=days)
        not_before = min(
            self.now - datetime.timedelta(minutes=5), not_after - datetime.timedelta(30)
        )
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer.subject if issuer else subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_after)
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
            .add_extension(_key_usage(ca, key), critical=True)
        )
        if issuer_key is not None:
            # RFC 5280 profile as real CAs issue it; strict verifiers (sslyze) insist on it.
            builder = builder.add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False
            )
        if not ca:
            builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        if sans:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(n) for n in sans]), critical=False
            )
        if ocsp_url:
            builder = builder.add_extension(
                x509.AuthorityInformationAccess(
                    [
                        x509.AccessDescription(
                            AuthorityInformationAccessOID.OCSP,
                            x509.UniformResourceIdentifier(ocsp_url),
                        )
                    ]
                ),
                critical=False,
            )
        return builder.sign(issuer_key or key, hashes.SHA256())

    def ca(self, name: str) -> tuple[x509.Certificate, PrivateKey]:
        """A CA one level below the intermediate (two below the root)."""
        key = make_key("ecdsa")
        return self._issue(_name(name), key, self.intermediate, self.intermediate_key, True), key

    def leaf(
        self,
        name: str,
        kind: str = "ecdsa",
        sans: tuple[str, ...] = (),
        ocsp_url: str | None = None,
        days: int = 30,
        client: bool = False,
        issuer: tuple[x509.Certificate, PrivateKey] | None = None,
    ) -> Chain:
        """A leaf valid for `days` from now (negative: expired that many days ago); `client`:
        for TLS client authentication (a client certificate); `issuer`: a CA of `ca()`'s, else
        the intermediate (the fullchain then has every CA up to the root's child)."""
        key = make_key(kind)
        above, above_key = issuer or (self.intermediate, self.intermediate_key)
        usage = x509.oid.ExtendedKeyUsageOID
        cert = self._issue(
            _name(name),
            key,
            above,
            above_key,
            ca=False,
            sans=(name, *sans),
            ocsp_url=ocsp_url,
            days=days,
            usage=usage.CLIENT_AUTH if client else usage.SERVER_AUTH,
        )
        stem = f"{name}.{kind}"
        leaf = self.folder / f"{stem}.crt"
        fullchain = self.folder / f"{stem}.fullchain.crt"
        key_path = self.folder / f"{stem}.key"
        leaf.write_bytes(_pem(cert))
        chain = [above] if above is self.intermediate else [above, self.intermediate]
        fullchain.write_bytes(_pem(cert) + b"".join(_pem(c) for c in chain))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        return Chain(fullchain=fullchain, leaf=leaf, key=key_path, root=self.root_path)


def empty_crl(factory: CertificateFactory, path: Path) -> Path:
    """An empty CRL from the root (ssl_crl must load one)."""
    now = datetime.datetime.now(datetime.UTC)
    made = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(factory.root.subject)
        .last_update(now)
        .next_update(now + datetime.timedelta(days=1))
        .sign(factory.root_key, hashes.SHA256())
    )
    path.write_bytes(made.public_bytes(serialization.Encoding.PEM))
    return path


def ocsp_response(factory: CertificateFactory, chain: Chain, path: Path) -> Path:
    """A good OCSP response for the chain's leaf from its issuer (the intermediate), in DER as a
    responder sends it and `openssl ocsp -respout` writes it: what ssl_stapling_file takes."""
    from cryptography.x509 import ocsp

    leaf = x509.load_pem_x509_certificate(chain.leaf.read_bytes())
    now = datetime.datetime.now(datetime.UTC)
    made = (
        ocsp.OCSPResponseBuilder()
        .add_response(
            cert=leaf,
            issuer=factory.intermediate,
            algorithm=hashes.SHA1(),  # the CertID hash RFC 6960 clients send
            cert_status=ocsp.OCSPCertStatus.GOOD,
            this_update=now,
            next_update=now + datetime.timedelta(days=1),
            revocation_time=None,
            revocation_reason=None,
        )
        .responder_id(ocsp.OCSPResponderEncoding.HASH, factory.intermediate)
        .sign(factory.intermediate_key, hashes.SHA256())
    )
    path.write_bytes(made.public_bytes(serialization.Encoding.DER))
    return path
