"""Reading PEM certificates and keys: the one module that asks cryptography about them. It
imports nothing of nginxgen, so both certs (refusing a bad pair before generating) and the config
model (what is in the files a config names) read through it without importing each other; and
cryptography is imported inside each function, only once there are bytes to read: a lint that
reads no certificate never loads it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes, PublicKeyTypes
    from cryptography.x509 import Certificate


def load_chain(data: bytes) -> list[Certificate]:
    """The PEM certificates in `data`, as written (leaf first); none when it is not PEM.
    cryptography's warnings about what it still reads (a CA bundle's root with a negative serial
    number) are not the user's business: not printed."""
    import warnings

    from cryptography import x509

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(x509.load_pem_x509_certificates(data))
    except ValueError:
        return []


def load_der(der: bytes) -> Certificate | None:
    """The DER certificate in `der` (None: cryptography cannot read it), its warnings not
    printed (as load_chain)."""
    import warnings

    from cryptography import x509

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x509.load_der_x509_certificate(der)
    except ValueError:
        return None


def load_key(data: bytes) -> PrivateKeyTypes:
    """The unencrypted PEM private key in `data`. Raises TypeError when it is encrypted,
    ValueError when it is not a PEM key, as cryptography does: callers say which it was."""
    from cryptography.hazmat.primitives import serialization

    return serialization.load_pem_private_key(data, password=None)


def key_kind(public_key: object) -> tuple[str, int]:
    """("RSA", 2048), ("ECDSA", 256), ("Ed25519", 256), ..."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(public_key, rsa.RSAPublicKey):
        return "RSA", public_key.key_size
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        return "ECDSA", public_key.curve.key_size
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        return "Ed25519", 256
    if isinstance(public_key, ed448.Ed448PublicKey):
        return "Ed448", 448
    return type(public_key).__name__, 0


def key_description(cert: Certificate) -> tuple[str, int]:
    """The kind and size of a certificate's key, as `key_kind` says them."""
    return key_kind(cert.public_key())


def ocsp_urls(cert: Certificate) -> tuple[str, ...]:
    """The OCSP responders a certificate names (none: nothing to staple)."""
    from cryptography import x509
    from cryptography.x509.oid import AuthorityInformationAccessOID

    try:
        aia = cert.extensions.get_extension_for_class(x509.AuthorityInformationAccess).value
    except x509.ExtensionNotFound:
        return ()
    return tuple(
        str(d.access_location.value)
        for d in aia
        if d.access_method == AuthorityInformationAccessOID.OCSP
    )


def covers(cert: Certificate, name: str) -> bool:
    """Whether a certificate is valid for a host name: a DNS name of its subjectAltName, a
    `*.` wildcard standing for exactly one label (RFC 6125 6.4.3); without a subjectAltName,
    its common name."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        listed = [str(n) for n in names.get_values_for_type(x509.DNSName)]
    except x509.ExtensionNotFound:
        listed = [str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    name = name.lower().rstrip(".")
    for entry in (e.lower().rstrip(".") for e in listed):
        if entry == name:
            return True
        head, _, rest = name.partition(".")
        if entry.startswith("*.") and head and rest == entry[2:]:
            return True
    return False


def public_bytes(key: PublicKeyTypes) -> bytes:
    """A public key as DER SubjectPublicKeyInfo: equal bytes, same key."""
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
