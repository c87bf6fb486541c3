"""Certificates and keys for the questions the config model and the rules ask of them (names,
expiry, key kind and size, signature digest, OCSP responders, which certificate a key belongs
to), read from their DER encoding here, without cryptography: importing cryptography.x509 was
most of a one-file lint that reads a certificate (docs/benchmarks.md).

Whatever this reader does not know (a string type, a curve, a key format, a structure that is
not plain DER) is asked of cryptography through nginxgen.base.pem, for that one question, so the
answers are always cryptography's. A file this reader cannot take apart whole is read by
cryptography whole. Certificates compare their names as cryptography does: by the attribute
types and decoded values of each relative distinguished name."""

from __future__ import annotations

import binascii
import contextlib
import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    import datetime
    from typing import Any

    NameKey = tuple[frozenset[tuple[str, str]], ...]

_PEM = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_DH_PEM = re.compile(rb"-----BEGIN (?:X9\.42 )?DH PARAMETERS-----\r?\n(.*?)-----END ", re.DOTALL)
_CERTIFICATE_TAGS = (b"CERTIFICATE", b"X509 CERTIFICATE")  # what cryptography reads as one
# `openssl x509 -trustout`: the certificate, then its trust settings (X509_CERT_AUX). OpenSSL's
# PEM_read_bio_X509_AUX reads it, PEM_read_bio_X509 skips it as any block of another kind.
_TRUSTED_TAG = b"TRUSTED CERTIFICATE"
# which TRUSTED CERTIFICATE blocks a reader takes (load_chain)
TRUSTED_FIRST, TRUSTED_ALL, TRUSTED_NONE = "first", "all", "none"
_KEY_TAGS = (b"PRIVATE KEY", b"RSA PRIVATE KEY", b"EC PRIVATE KEY")

# tags
_INTEGER, _BIT_STRING, _OCTET_STRING, _OID = 0x02, 0x03, 0x04, 0x06
_SEQUENCE, _SET, _UTC_TIME, _GENERALIZED_TIME = 0x30, 0x31, 0x17, 0x18
_ENUMERATED = 0x0A
_STRINGS = {0x0C: "utf-8", 0x13: "ascii", 0x16: "ascii"}  # UTF8, Printable, IA5String

# RFC 8017 A.2.4, RFC 5758 3.2, RFC 3279 2.2.1: signature algorithm -> its digest
_SIGNATURE_DIGESTS = {
    "1.2.840.113549.1.1.4": "md5",
    "1.2.840.113549.1.1.5": "sha1",
    "1.2.840.113549.1.1.11": "sha256",
    "1.2.840.113549.1.1.12": "sha384",
    "1.2.840.113549.1.1.13": "sha512",
    "1.2.840.113549.1.1.14": "sha224",
    "1.2.840.10045.4.1": "sha1",
    "1.2.840.10045.4.3.1": "sha224",
    "1.2.840.10045.4.3.2": "sha256",
    "1.2.840.10045.4.3.3": "sha384",
    "1.2.840.10045.4.3.4": "sha512",
}
_NO_DIGEST = ("1.3.101.112", "1.3.101.113")  # Ed25519, Ed448 (RFC 8410): none, as cryptography
_RSA = "1.2.840.113549.1.1.1"
_EC = "1.2.840.10045.2.1"
_EDWARDS = {"1.3.101.112": ("Ed25519", 256), "1.3.101.113": ("Ed448", 448)}
# RFC 5480 2.1.1.1 named curves -> key size, as cryptography's curve.key_size
_CURVES = {
    "1.2.840.10045.3.1.7": 256,
    "1.3.132.0.34": 384,
    "1.3.132.0.35": 521,
    "1.3.132.0.33": 224,
    "1.2.840.10045.3.1.1": 192,
    "1.3.132.0.10": 256,
}
_AIA, _OCSP = "1.3.6.1.5.5.7.1.1", "1.3.6.1.5.5.7.48.1"  # RFC 5280 4.2.2.1


# what _read_certificate gives of a certificate it reads whole
_FIELDS = (
    "signature_digest",
    "issuer",
    "not_after",
    "subject",
    "key",
    "public_key_id",
    "ocsp_urls",
)


class _Unknown(Exception):
    """Not plain DER of the shape expected, or a case this reader leaves to cryptography."""


def _tlv(data: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """The tag at `pos`, and where its content starts and ends (definite, minimal lengths)."""
    if pos + 2 > end:
        raise _Unknown
    tag, first = data[pos], data[pos + 1]
    if tag & 0x1F == 0x1F:  # high tag numbers: none in what is read here
        raise _Unknown
    pos += 2
    if first < 0x80:
        length = first
    else:
        count = first & 0x7F
        if count == 0 or count > 4 or pos + count > end or data[pos] == 0:
            raise _Unknown
        length = int.from_bytes(data[pos : pos + count], "big")
        if length < 0x80:
            raise _Unknown
        pos += count
    if pos + length > end:
        raise _Unknown
    return tag, pos, pos + length


def _items(data: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """The elements of a constructed value's content."""
    out = []
    while start < end:
        tag, begin, stop = _tlv(data, start, end)
        out.append((tag, begin, stop))
        start = stop
    return out


def _expect(item: tuple[int, int, int], tag: int) -> tuple[int, int]:
    if item[0] != tag:
        raise _Unknown
    return item[1], item[2]


def _oid(content: bytes) -> str:
    if not content or content[-1] & 0x80:
        raise _Unknown
    arcs: list[int] = []
    value = 0
    for byte in content:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(str(a) for a in (first, arcs[0] - 40 * first, *arcs[1:]))


def _unsigned(content: bytes) -> int:
    if not content or content[0] & 0x80:
        raise _Unknown
    return int.from_bytes(content, "big")


def _algorithm(data: bytes, item: tuple[int, int, int]) -> tuple[str, tuple[int, int, int] | None]:
    """An AlgorithmIdentifier: its OID and its parameters (None when absent)."""
    parts = _items(data, *_expect(item, _SEQUENCE))
    if not parts or len(parts) > 2:
        raise _Unknown
    oid = _oid(data[slice(*_expect(parts[0], _OID))])
    return oid, parts[1] if len(parts) == 2 else None


def _name(data: bytes, item: tuple[int, int, int]) -> NameKey:
    """A Name as cryptography compares it: per RDN, the set of (type, decoded value)."""
    rdns = []
    for rdn in _items(data, *_expect(item, _SEQUENCE)):
        attributes = set()
        members = _items(data, *_expect(rdn, _SET))
        for attribute in members:
            parts = _items(data, *_expect(attribute, _SEQUENCE))
            if len(parts) != 2 or parts[1][0] not in _STRINGS:
                raise _Unknown
            kind = _oid(data[slice(*_expect(parts[0], _OID))])
            try:
                value = data[parts[1][1] : parts[1][2]].decode(_STRINGS[parts[1][0]])
            except UnicodeDecodeError:
                raise _Unknown from None
            attributes.add((kind, value))
        if not attributes or len(attributes) != len(members):  # cryptography refuses both
            raise _Unknown
        rdns.append(frozenset(attributes))
    return tuple(rdns)


# the string types OpenSSL canonicalizes in a name (x_name.c ASN1_MASK_CANON), by tag, with how
# ASN1_STRING_to_UTF8 reads each (T61String as Latin-1)
_CANON_STRINGS = {0x0C: "utf-8", 0x13: "latin-1", 0x14: "latin-1", 0x16: "latin-1",
                  0x1A: "latin-1", 0x1E: "utf-16-be", 0x1C: "utf-32-be"}  # fmt: skip
_SPACES = b" \t\n\v\f\r"  # ossl_isspace, OPENSSL_isspace


def _tlv_bytes(tag: int, content: bytes) -> bytes:
    size = len(content)
    if size < 0x80:
        return bytes((tag, size)) + content
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes((tag, 0x80 | len(length))) + length + content


def _canon_value(tag: int, content: bytes) -> bytes:
    """A name's string value as x509_name_canon writes it (asn1_string_canon): as UTF-8,
    without leading and trailing white space, each run of white space one space, ASCII letters
    in lower case, as a UTF8String; a value of another type as it is."""
    if tag not in _CANON_STRINGS:
        return _tlv_bytes(tag, content)
    text = content.decode(_CANON_STRINGS[tag], "replace").encode("utf-8").strip(_SPACES)
    out = bytearray()
    at = 0
    while at < len(text):
        byte = text[at]
        if byte in _SPACES:
            out.append(0x20)
            while at < len(text) and text[at] in _SPACES:
                at += 1
            continue
        out.append(byte + 32 if 0x41 <= byte <= 0x5A else byte)
        at += 1
    return _tlv_bytes(0x0C, bytes(out))


def name_canon(der: bytes) -> bytes:
    """The canonical encoding OpenSSL, BoringSSL and AWS-LC compare names by (x509_name_canon):
    each RDN's SET of its attributes with their values canonical (DER's SET OF order), the
    SETs one after another without the outer SEQUENCE."""
    canon = b""
    for rdn in _items(der, *_expect(_tlv(der, 0, len(der)), _SEQUENCE)):
        members = []
        for attribute in _items(der, *_expect(rdn, _SET)):
            oid, value = _items(der, *_expect(attribute, _SEQUENCE))
            kind = _tlv_bytes(_OID, der[oid[1] : oid[2]])
            members.append(
                _tlv_bytes(_SEQUENCE, kind + _canon_value(value[0], der[value[1] : value[2]]))
            )
        canon += _tlv_bytes(_SET, b"".join(sorted(members)))
    return canon


def _time(data: bytes, item: tuple[int, int, int]) -> datetime.datetime:
    import datetime

    tag, start, end = item
    text = data[start:end]
    if tag == _UTC_TIME and len(text) == 13:
        year = int(text[:2])
        year += 1900 if year >= 50 else 2000  # RFC 5280 4.1.2.5.1
        rest = text[2:]
    elif tag == _GENERALIZED_TIME and len(text) == 15:
        year, rest = int(text[:4]), text[4:]
    else:
        raise _Unknown
    if not rest[:-1].isdigit() or rest[-1:] != b"Z":
        raise _Unknown
    month, day, hour, minute, second = (int(rest[i : i + 2]) for i in range(0, 10, 2))
    try:
        return datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.UTC)
    except ValueError:
        raise _Unknown from None


def _public_key(data: bytes, item: tuple[int, int, int]) -> tuple[tuple[str, int], tuple[Any, ...]]:
    """A SubjectPublicKeyInfo: (kind, size) as nginxgen.base.pem.key_kind says them, and what a
    private key's public half is compared with."""
    parts = _items(data, *_expect(item, _SEQUENCE))
    if len(parts) != 2:
        raise _Unknown
    algorithm, parameters = _algorithm(data, parts[0])
    start, end = _expect(parts[1], _BIT_STRING)
    if start == end or data[start] != 0:
        raise _Unknown
    key = data[start + 1 : end]
    if algorithm == _RSA:
        fields = _items(key, *_expect(_tlv(key, 0, len(key)), _SEQUENCE))
        if len(fields) != 2:
            raise _Unknown
        modulus = _unsigned(key[slice(*_expect(fields[0], _INTEGER))])
        exponent = _unsigned(key[slice(*_expect(fields[1], _INTEGER))])
        return ("RSA", modulus.bit_length()), ("RSA", modulus, exponent)
    if algorithm == _EC and parameters is not None and parameters[0] == _OID:
        curve = _oid(data[parameters[1] : parameters[2]])
        if curve not in _CURVES or key[:1] != b"\x04":  # a compressed point: cryptography's
            raise _Unknown
        return ("ECDSA", _CURVES[curve]), ("EC", curve, key)
    if algorithm in _EDWARDS and parameters is None:
        return _EDWARDS[algorithm], (algorithm, key)
    raise _Unknown


def _extensions(data: bytes, item: tuple[int, int, int]) -> dict[str, tuple[int, int]]:
    """Extension OID -> where its value is; a repeated one is cryptography's to refuse."""
    found: dict[str, tuple[int, int]] = {}
    wrapped = _tlv(data, item[1], item[2])
    if wrapped[2] != item[2]:
        raise _Unknown
    for extension in _items(data, *_expect(wrapped, _SEQUENCE)):
        parts = _items(data, *_expect(extension, _SEQUENCE))
        if len(parts) not in (2, 3):
            raise _Unknown
        oid = _oid(data[slice(*_expect(parts[0], _OID))])
        if oid in found:
            raise _Unknown
        found[oid] = _expect(parts[-1], _OCTET_STRING)
    return found


class Certificate:
    """One certificate of a PEM file, its fields read on first use. Each field this reader
    cannot give is cryptography's answer for it."""

    __slots__ = ("_crypto", "_fields", "der")

    def __init__(self, der: bytes, crypto: Any = None) -> None:
        self.der = der
        self._fields: dict[str, Any] | None = None
        self._crypto = crypto  # the certificate as cryptography read it, once it has

    def _read(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = _read_certificate(self.der)
        return self._fields

    def _field(self, name: str, otherwise: Callable[[Any], Any]) -> Any:
        """The field as read here, else `otherwise` of the certificate as cryptography reads
        it (a field this reader leaves to cryptography)."""
        fields = self._read()
        return fields[name] if name in fields else otherwise(self.crypto())

    def crypto(self) -> Any:
        """The certificate as cryptography reads it."""
        if self._crypto is None:
            from cryptography import x509

            self._crypto = x509.load_der_x509_certificate(self.der)
        return self._crypto

    @property
    def subject(self) -> NameKey:
        return self._field("subject", lambda c: _name_key(c.subject))  # type: ignore[no-any-return]

    @property
    def issuer(self) -> NameKey:
        return self._field("issuer", lambda c: _name_key(c.issuer))  # type: ignore[no-any-return]

    @property
    def subject_text(self) -> str:
        """The subject as RFC 4514 writes it (cryptography's rendering)."""
        return str(self.crypto().subject.rfc4514_string())

    @property
    def subject_order(self) -> tuple[int, bytes]:
        """Where the subject sorts among names as OpenSSL, BoringSSL and AWS-LC sort them
        (X509_NAME_cmp): by the length of the canonical encoding, then its bytes."""
        canon = name_canon(self.crypto().subject.public_bytes())
        return len(canon), canon

    @property
    def not_after(self) -> datetime.datetime:
        """The end of the validity period, in UTC."""
        return self._field("not_after", lambda c: c.not_valid_after_utc)  # type: ignore[no-any-return]

    @property
    def key(self) -> tuple[str, int]:
        """The kind and size of the certificate's key: ("RSA", 2048), ("ECDSA", 256), ..."""
        return self._field("key", _key_description)  # type: ignore[no-any-return]

    @property
    def signature_digest(self) -> str | None:
        """The digest the issuer signed with ("sha256", ...; None for Ed25519 and Ed448)."""
        return self._field("signature_digest", _digest_name)  # type: ignore[no-any-return]

    @property
    def ocsp_urls(self) -> tuple[str, ...]:
        """The OCSP responders the certificate names (none: nothing to staple)."""
        return self._field("ocsp_urls", _ocsp_urls_of)  # type: ignore[no-any-return]

    def signed_by(self, issuer: Certificate) -> bool:
        """Whether `issuer`'s key verifies this certificate's signature. cryptography's own
        check refuses SHA-1 signatures (trial 13: a SHA-1 leaf beside its root was called a
        leaf without its issuer); TLS libraries judge those by their security level, so here
        the signature is only verified, with the issuer's key and the digest it names."""
        mine, theirs = self.crypto(), issuer.crypto()
        try:
            mine.verify_directly_issued_by(theirs)
            return True
        except ValueError:  # "Unsupported signature algorithm" (SHA-1, ...): verified below
            pass
        except Exception:  # InvalidSignature, a name or key that does not fit
            return False
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

        key, digest = theirs.public_key(), mine.signature_hash_algorithm
        try:
            if isinstance(key, rsa.RSAPublicKey) and digest is not None:
                key.verify(mine.signature, mine.tbs_certificate_bytes, padding.PKCS1v15(), digest)
            elif isinstance(key, ec.EllipticCurvePublicKey) and digest is not None:
                key.verify(mine.signature, mine.tbs_certificate_bytes, ec.ECDSA(digest))
            else:
                return False
        except Exception:
            return False
        return True

    def sha256(self) -> str:
        """The certificate's SHA-256 fingerprint, in hex."""
        import hashlib

        return hashlib.sha256(self.der).hexdigest()

    def _public_key_id(self) -> tuple[Any, ...] | None:
        return self._read().get("public_key_id")  # None: key_index asks cryptography


# cryptography's answers for the fields this reader leaves to it (nginxgen.base.pem, imported
# only then)
def _digest_name(crypto: Any) -> str | None:
    digest = crypto.signature_hash_algorithm
    return None if digest is None else str(digest.name)


def _key_description(crypto: Any) -> tuple[str, int]:
    from nginxgen.base.pem import key_description

    return key_description(crypto)


def _ocsp_urls_of(crypto: Any) -> tuple[str, ...]:
    from nginxgen.base.pem import ocsp_urls

    return ocsp_urls(crypto)


def _name_key(name: Any) -> NameKey:
    return tuple(
        frozenset((attribute.oid.dotted_string, attribute.value) for attribute in rdn)
        for rdn in name.rdns
    )


def _read_certificate(der: bytes) -> dict[str, Any]:
    """The fields read: each one that this reader leaves to cryptography is missing."""
    fields: dict[str, Any] = {}
    try:
        outer = _items(der, *_expect(_tlv(der, 0, len(der)), _SEQUENCE))
        if len(outer) != 3:
            raise _Unknown
        tbs = _items(der, *_expect(outer[0], _SEQUENCE))
        if tbs and tbs[0][0] == 0xA0:  # [0] version: v1 to v3 (0 to 2), as cryptography takes
            version = _tlv(der, tbs[0][1], tbs[0][2])
            if version[2] != tbs[0][2] or der[slice(*_expect(version, _INTEGER))] not in (
                b"\x00",
                b"\x01",
                b"\x02",
            ):
                raise _Unknown
            tbs = tbs[1:]
        if len(tbs) < 6 or tbs[0][0] != _INTEGER or tbs[1][0] != _SEQUENCE:
            raise _Unknown
        validity = _items(der, *_expect(tbs[3], _SEQUENCE))
        if len(validity) != 2:
            raise _Unknown
        _time(der, validity[0])
        signature, _ = _algorithm(der, outer[1])
        _expect(outer[2], _BIT_STRING)
    except _Unknown:
        return fields
    if signature in _SIGNATURE_DIGESTS or signature in _NO_DIGEST:
        fields["signature_digest"] = _SIGNATURE_DIGESTS.get(signature)
    readers: tuple[tuple[str, Callable[[], Any]], ...] = (
        ("issuer", lambda: _name(der, tbs[2])),
        ("not_after", lambda: _time(der, validity[1])),
        ("subject", lambda: _name(der, tbs[4])),
        ("key", lambda: _public_key(der, tbs[5])),
        ("ocsp_urls", lambda: _ocsp_urls(der, tbs[6:])),
    )
    for name, read in readers:
        with contextlib.suppress(_Unknown):
            fields[name] = read()
    if "key" in fields:
        fields["key"], fields["public_key_id"] = fields["key"]
    return fields


def _ocsp_urls(der: bytes, rest: list[tuple[int, int, int]]) -> tuple[str, ...]:
    extensions = [item for item in rest if item[0] == 0xA3]  # [3] extensions
    if not extensions:
        return ()
    found = _extensions(der, extensions[0])
    if _AIA not in found:
        return ()
    start, end = found[_AIA]
    urls = []
    for description in _items(der, *_expect(_tlv(der, start, end), _SEQUENCE)):
        parts = _items(der, *_expect(description, _SEQUENCE))
        if len(parts) != 2:
            raise _Unknown
        if _oid(der[slice(*_expect(parts[0], _OID))]) != _OCSP:
            continue
        if parts[1][0] != 0x86:  # a URI; any other name is cryptography's to render
            raise _Unknown
        try:
            urls.append(der[parts[1][1] : parts[1][2]].decode("ascii"))
        except UnicodeDecodeError:
            raise _Unknown from None
    return tuple(urls)


def _blocks(data: bytes) -> list[tuple[bytes, bytes]] | None:
    """The PEM blocks of `data` (label, DER); None when it holds anything this reader leaves to
    cryptography: a block it cannot match, headers (an encrypted key), bad base64."""
    found = _PEM.findall(data)
    if len(found) != data.count(b"-----BEGIN "):
        return None
    blocks = []
    for label, body in found:
        if b":" in body:
            return None
        try:
            blocks.append((label, binascii.a2b_base64(body, strict_mode=False)))
        except binascii.Error:
            return None
    return blocks


def dh_prime_bits(data: bytes) -> int | None:
    """The size of the prime of the first DH parameters block in `data`, in bits: PKCS #3's
    DHParameter and X9.42's DomainParameters (RFC 3279 2.3.3) both start with p. None when
    there is none, or it is not plain DER. Read here, not by cryptography: its 50.0 deprecates
    finite-field DH and warns on every load (printed on each run), and 49 refuses parameters
    OpenSSL and nginx take (pyca/cryptography#15042)."""
    for body in _DH_PEM.findall(data):
        try:
            der = binascii.a2b_base64(body, strict_mode=False)
            _, start, end = _expect_sequence(der)
            begin, stop = _expect(_tlv(der, start, end), _INTEGER)
            return _unsigned(der[begin:stop]).bit_length()
        except (binascii.Error, _Unknown):
            return None
    return None


def not_ocsp_response(data: bytes) -> bool:
    """Whether `data` is surely no DER OCSPResponse (RFC 6960 4.2.1: a SEQUENCE whose first
    element is the ENUMERATED responseStatus), as d2i_OCSP_RESPONSE_bio refuses it: empty, not
    opening with a SEQUENCE (PEM, text), or a SEQUENCE opening with something else (a
    certificate in DER). What this reader cannot follow (BER lengths, a truncated file) is not
    said to be refused: OpenSSL's d2i takes some BER, and only its refusals are reported."""
    if not data or data[0] != _SEQUENCE:
        return True
    try:
        _, start, end = _tlv(data, 0, len(data))  # what follows it is never read
        return _tlv(data, start, end)[0] != _ENUMERATED
    except _Unknown:
        return False


def load_chain(data: bytes, trusted: str = TRUSTED_FIRST) -> list[Certificate]:
    """The PEM certificates in `data` that OpenSSL reads, as written (leaf first); none when it
    is not PEM or one of them cannot be read (as OpenSSL, which refuses the file then).

    `CERTIFICATE` (and the old `X509 CERTIFICATE`) blocks are always read; `TRUSTED
    CERTIFICATE` blocks (the certificate with its trust settings) as `trusted` says: only as
    the file's first certificate (TRUSTED_FIRST: nginx reads an ssl_certificate file's leaf with
    PEM_read_bio_X509_AUX and the rest of the chain with PEM_read_bio_X509), every one
    (TRUSTED_ALL), or none (TRUSTED_NONE: PEM_read_bio_X509 alone)."""
    blocks = _blocks(data)
    if blocks is None:  # not plain PEM: cryptography reads it whole (no trusted form there)
        from nginxgen.base.pem import load_chain as read_with_cryptography

        return [Certificate(_der_of(cert), cert) for cert in read_with_cryptography(data)]
    chain: list[Certificate] = []
    for label, der in blocks:
        aux = label == _TRUSTED_TAG
        wanted = trusted == TRUSTED_ALL or (trusted == TRUSTED_FIRST and not chain)
        if label not in _CERTIFICATE_TAGS and not (aux and wanted):
            continue
        if aux:
            try:  # the certificate is the block's first element, its trust settings follow
                der = der[: _expect_sequence(der)[2]]
            except _Unknown:
                return []
        cert = _certificate(der)
        if cert is None:
            return []
        chain.append(cert)
    return chain


def _certificate(der: bytes) -> Certificate | None:
    """A certificate read here, or by cryptography where this reader cannot (None: neither)."""
    if _is_certificate(der):
        return Certificate(der)
    from nginxgen.base.pem import load_der

    crypto = load_der(der)
    return None if crypto is None else Certificate(der, crypto)


def _is_certificate(der: bytes) -> bool:
    try:
        _, _, end = _expect_sequence(der)
    except _Unknown:
        return False
    return end == len(der) and len(_read_certificate(der)) == len(_FIELDS)  # every one read


def _expect_sequence(der: bytes) -> tuple[int, int, int]:
    item = _tlv(der, 0, len(der))
    _expect(item, _SEQUENCE)
    return item


def _der_of(cert: Any) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding

    return bytes(cert.public_bytes(Encoding.DER))


def key_index(data: bytes, chain: list[Certificate]) -> int | None:
    """The position in `chain` of the certificate the PEM private key in `data` belongs to; -1
    for none; None when the key cannot be read (encrypted, for ssl_password_file, or not a PEM
    key): nothing to say."""
    mine = _private_key_id(data)
    theirs = [cert._public_key_id() for cert in chain]
    if mine is not None and None not in theirs:
        return theirs.index(mine) if mine in theirs else -1
    from nginxgen.base.pem import load_key, public_bytes

    try:
        key = load_key(data)
    except (TypeError, ValueError, NotImplementedError):
        return None
    own = public_bytes(key.public_key())
    for index, cert in enumerate(chain):
        if public_bytes(cert.crypto().public_key()) == own:
            return index
    return -1


def _private_key_id(data: bytes) -> tuple[Any, ...] | None:
    """The public half of the one PEM private key in `data`, as `_public_key` gives it; None
    for anything else (several keys, an encrypted one, a kind this reader leaves to
    cryptography)."""
    blocks = _blocks(data)
    if blocks is None:
        return None
    keys = [(label, der) for label, der in blocks if label in _KEY_TAGS or b"KEY" in label]
    if len(keys) != 1 or keys[0][0] not in _KEY_TAGS:
        return None
    label, der = keys[0]
    try:
        if label == b"RSA PRIVATE KEY":
            return _rsa_private(der, 0, len(der))
        if label == b"EC PRIVATE KEY":
            return _ec_private(der, 0, len(der), None)
        return _pkcs8(der)
    except _Unknown:
        return None


def _pkcs8(der: bytes) -> tuple[Any, ...]:
    """RFC 5208 PrivateKeyInfo (RFC 5958 v1)."""
    top = _tlv(der, 0, len(der))
    if top[2] != len(der):
        raise _Unknown
    parts = _items(der, *_expect(top, _SEQUENCE))
    if len(parts) != 3 or der[slice(*_expect(parts[0], _INTEGER))] != b"\x00":
        raise _Unknown
    algorithm, parameters = _algorithm(der, parts[1])
    start, end = _expect(parts[2], _OCTET_STRING)
    if algorithm == _RSA:
        return _rsa_private(der, start, end)
    if algorithm == _EC and parameters is not None and parameters[0] == _OID:
        return _ec_private(der, start, end, _oid(der[parameters[1] : parameters[2]]))
    raise _Unknown


def _rsa_private(der: bytes, start: int, end: int) -> tuple[Any, ...]:
    """RFC 8017 A.1.2 RSAPrivateKey (two primes): its modulus and public exponent."""
    top = _tlv(der, start, end)
    if top[2] != end:
        raise _Unknown
    fields = _items(der, *_expect(top, _SEQUENCE))
    if len(fields) != 9 or der[slice(*_expect(fields[0], _INTEGER))] != b"\x00":
        raise _Unknown
    numbers = [_unsigned(der[slice(*_expect(f, _INTEGER))]) for f in fields[1:]]
    return ("RSA", numbers[0], numbers[1])


def _ec_private(der: bytes, start: int, end: int, curve: str | None) -> tuple[Any, ...]:
    """RFC 5915 ECPrivateKey with its public key written beside it (OpenSSL writes it); one
    without is cryptography's, which computes it."""
    top = _tlv(der, start, end)
    if top[2] != end:
        raise _Unknown
    parts = _items(der, *_expect(top, _SEQUENCE))
    if len(parts) < 3 or der[slice(*_expect(parts[0], _INTEGER))] != b"\x01":
        raise _Unknown
    tagged = {tag: (begin, stop) for tag, begin, stop in parts[2:]}
    if 0xA0 in tagged:  # [0] parameters: the named curve
        named = _tlv(der, *tagged[0xA0])
        inner = _oid(der[slice(*_expect(named, _OID))])
        if curve is not None and inner != curve:
            raise _Unknown
        curve = inner
    if curve not in _CURVES or 0xA1 not in tagged:
        raise _Unknown
    bits = _tlv(der, *tagged[0xA1])
    begin, stop = _expect(bits, _BIT_STRING)
    if begin == stop or der[begin] != 0 or der[begin + 1 : begin + 2] != b"\x04":
        raise _Unknown
    return ("EC", curve, der[begin + 1 : stop])
