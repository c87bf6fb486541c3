"""Encrypted Client Hello's published parts: the ECHConfigList (RFC 9849 section 4), the key file
OpenSSL 4.0 writes with `openssl ech -public_name NAME -out FILE` and reads with
`s_server -ech_key` and nginx's `ssl_ech_file`, and the `ech=` parameter of a DNS HTTPS record
(RFC 9460 section 2.1 presentation form, RFC 9848 the parameter). Read and written here only:
the generator writes key files and records, the linter reads them, the probe sends what they
publish. It imports nothing of nginxgen but `records`, and `cryptography` only inside the
functions that handle keys.

The wire form (RFC 9849 section 4, all integers big-endian):

    ECHConfigList: uint16 length, then ECHConfig*
    ECHConfig:     uint16 version, uint16 length, contents (version 0xfe0d below)
    contents:      uint8 config_id, uint16 kem_id, opaque public_key<1..2^16-1>,
                   HpkeSymmetricCipherSuite cipher_suites<4..2^16-4> (uint16 kdf, uint16 aead),
                   uint8 maximum_name_length, opaque public_name<1..255>,
                   ECHConfigExtension extensions<0..2^16-1> (uint16 type, opaque data<0..2^16-1>)

A config of another version is kept whole (a client ignores it, section 4) and listed in
`EchConfigList.others`.

The key file is two PEM blocks: `PRIVATE KEY` (PKCS #8, the HPKE X25519 key) and `ECHCONFIG`
(base64 of the ECHConfigList carrying its public key), as OpenSSL 4.0.3's `openssl ech` writes.
"""

from __future__ import annotations

import base64
import binascii
import os
import re

from nginxgen.base.records import record

ECH_VERSION = 0xFE0D  # RFC 9849 section 4: the ECHConfig version of the final protocol
ECH_EXTENSION = 0xFE0D  # RFC 9849 section 11.1: the encrypted_client_hello extension type
SVCB_ECH_KEY = 5  # RFC 9848 / IANA SVCB SvcParamKeys: "ech" is key5
# RFC 9180 section 7: the HPKE identifiers OpenSSL 4.0's `openssl ech` uses by default
KEM_X25519_HKDF_SHA256 = 0x0020
KDF_HKDF_SHA256 = 0x0001
AEAD_AES_128_GCM = 0x0001


class EchError(ValueError):
    """A config list, key file or record that cannot be read: the reason in one line, and the
    line of the text it is on where there is one."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@record(frozen=True)
class HpkeSuite:
    kdf_id: int
    aead_id: int


@record(frozen=True)
class EchConfig:
    """One ECHConfig of version 0xfe0d, as published; `raw` is its whole encoding (version and
    length included), which HPKE's info string and the retry comparison use as is."""

    config_id: int
    kem_id: int
    public_key: bytes
    suites: tuple[HpkeSuite, ...]
    maximum_name_length: int
    public_name: str
    extensions: tuple[tuple[int, bytes], ...]
    raw: bytes

    @property
    def mandatory_extensions(self) -> tuple[int, ...]:
        """Extension types with the high bit set: a client that knows none of them must skip
        this config (RFC 9849 section 4.2)."""
        return tuple(kind for kind, _ in self.extensions if kind & 0x8000)


@record(frozen=True)
class EchConfigList:
    configs: tuple[EchConfig, ...]  # the 0xfe0d ones, in order
    others: tuple[tuple[int, bytes], ...]  # (version, whole encoding) of every other version
    raw: bytes  # the list as received, length prefix included

    def base64(self) -> str:
        return base64.b64encode(self.raw).decode("ascii")


@record(frozen=True)
class EchKeyFile:
    """An OpenSSL 4.0 ECH key file: the HPKE private key (raw X25519, 32 bytes) and the config
    list it publishes."""

    private_key: bytes
    config_list: EchConfigList

    def public_key(self) -> bytes:
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        key = X25519PrivateKey.from_private_bytes(self.private_key).public_key()
        return key.public_bytes(Encoding.Raw, PublicFormat.Raw)

    def matches(self) -> bool:
        """Whether the private key is the one behind every config's public key."""
        public = self.public_key()
        return all(c.public_key == public for c in self.config_list.configs)


class _Reader:
    """Length-prefixed fields of a TLS structure, each running-past-the-end read an EchError
    that names the field."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def left(self) -> int:
        return len(self.data) - self.at

    def take(self, size: int, what: str) -> bytes:
        if size > self.left():
            raise EchError(f"{what}: {size} bytes announced, {self.left()} left")
        out = self.data[self.at : self.at + size]
        self.at += size
        return out

    def integer(self, width: int, what: str) -> int:
        return int.from_bytes(self.take(width, what), "big")

    def vector(self, width: int, what: str) -> bytes:
        return self.take(self.integer(width, f"{what} length"), what)


def parse_config(raw: bytes) -> EchConfig:
    """One ECHConfig of version 0xfe0d, its whole encoding."""
    outer = _Reader(raw)
    version = outer.integer(2, "ECHConfig version")
    if version != ECH_VERSION:
        raise EchError(f"ECHConfig version {version:#06x}, not {ECH_VERSION:#06x}")
    body = _Reader(outer.vector(2, "ECHConfig"))
    config_id = body.integer(1, "config_id")
    kem_id = body.integer(2, "kem_id")
    public_key = body.vector(2, "public_key")
    if not public_key:
        raise EchError("public_key is empty")
    suites_raw = body.vector(2, "cipher_suites")
    if not suites_raw or len(suites_raw) % 4:
        raise EchError(f"cipher_suites: {len(suites_raw)} bytes, not a multiple of 4 above 0")
    suites = tuple(
        HpkeSuite(int.from_bytes(suites_raw[i : i + 2], "big"),
                  int.from_bytes(suites_raw[i + 2 : i + 4], "big"))
        for i in range(0, len(suites_raw), 4)
    )  # fmt: skip
    maximum_name_length = body.integer(1, "maximum_name_length")
    name = body.vector(1, "public_name")
    if not name:
        raise EchError("public_name is empty")
    try:
        public_name = name.decode("ascii")
    except UnicodeDecodeError:
        raise EchError(f"public_name {name!r} is not ASCII") from None
    extensions_reader = _Reader(body.vector(2, "extensions"))
    extensions = []
    while extensions_reader.left():
        kind = extensions_reader.integer(2, "extension type")
        extensions.append((kind, extensions_reader.vector(2, f"extension {kind:#06x}")))
    if body.left() or outer.left():
        raise EchError(f"{_bytes(body.left() + outer.left())} after the ECHConfig's last field")
    return EchConfig(config_id, kem_id, public_key, suites, maximum_name_length, public_name,
                     tuple(extensions), raw)  # fmt: skip


def parse_config_list(data: bytes) -> EchConfigList:
    """An ECHConfigList in wire form (length prefix included)."""
    reader = _Reader(data)
    body = _Reader(reader.vector(2, "ECHConfigList"))
    if reader.left():
        raise EchError(f"{_bytes(reader.left())} after the ECHConfigList")
    if not body.left():
        raise EchError("the ECHConfigList is empty")
    configs, others = [], []
    while body.left():
        start = body.at
        version = body.integer(2, "ECHConfig version")
        body.vector(2, "ECHConfig")
        raw = body.data[start : body.at]
        if version == ECH_VERSION:
            configs.append(parse_config(raw))
        else:
            others.append((version, raw))
    return EchConfigList(tuple(configs), tuple(others), data)


def serialise_config(config_id: int, public_key: bytes, public_name: str,
                     suites: tuple[HpkeSuite, ...] | None = None,
                     kem_id: int = KEM_X25519_HKDF_SHA256, maximum_name_length: int = 0,
                     extensions: tuple[tuple[int, bytes], ...] = ()) -> bytes:  # fmt: skip
    """One ECHConfig's whole encoding (version 0xfe0d); the suite HKDF-SHA256 with AES-128-GCM
    unless `suites` says otherwise."""
    suites = suites or (HpkeSuite(KDF_HKDF_SHA256, AEAD_AES_128_GCM),)
    name = public_name.encode("ascii")
    if not 1 <= len(name) <= 255:
        raise EchError(f"public_name {public_name!r}: 1 to 255 bytes")
    suites_raw = b"".join(s.kdf_id.to_bytes(2, "big") + s.aead_id.to_bytes(2, "big")
                          for s in suites)  # fmt: skip
    extensions_raw = b"".join(k.to_bytes(2, "big") + _vector(v, 2) for k, v in extensions)
    body = (
        bytes([config_id])
        + kem_id.to_bytes(2, "big")
        + _vector(public_key, 2)
        + _vector(suites_raw, 2)
        + bytes([maximum_name_length])
        + _vector(name, 1)
        + _vector(extensions_raw, 2)
    )
    return ECH_VERSION.to_bytes(2, "big") + _vector(body, 2)


def serialise_config_list(configs: list[bytes]) -> bytes:
    """An ECHConfigList of whole ECHConfig encodings, in the order given."""
    return _vector(b"".join(configs), 2)


def _vector(data: bytes, width: int) -> bytes:
    if len(data) >= 1 << (8 * width):
        raise EchError(f"{len(data)} bytes do not fit a {width}-byte length")
    return len(data).to_bytes(width, "big") + data


def decode_base64(text: str) -> EchConfigList:
    """An ECHConfigList from its base64 form (whitespace between the characters allowed)."""
    compact = "".join(text.split())
    if not compact:
        raise EchError("empty: an ECHConfigList in base64 was expected")
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise EchError(f"{_short(text.strip())!r} is not base64") from None
    return _config_list(data)


def _config_list(data: bytes) -> EchConfigList:
    """parse_config_list for bytes that were meant to be one: its errors say so."""
    try:
        return parse_config_list(data)
    except EchError as exc:
        raise EchError(f"not an ECHConfigList ({exc})") from None


_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\s*(.*?)-----END \1-----", re.DOTALL)


def read_key_file(text: str) -> EchKeyFile:
    """The key file OpenSSL 4.0 writes (`openssl ech -out`): a PKCS #8 `PRIVATE KEY` block with
    an X25519 key and an `ECHCONFIG` block with the config list."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        load_pem_private_key,
    )

    blocks = {}
    for match in _PEM.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match.group(1) in blocks:
            raise EchError(f"a second {match.group(1)} block", line)
        blocks[match.group(1)] = (match, line)
    for needed in ("PRIVATE KEY", "ECHCONFIG"):
        if needed not in blocks:
            raise EchError(f"no {needed} block (an ECH key file has PRIVATE KEY and ECHCONFIG)")
    key_match, key_line = blocks["PRIVATE KEY"]
    try:
        key = load_pem_private_key(key_match.group(0).encode("ascii"), password=None)
    except (ValueError, TypeError) as exc:
        raise EchError(f"the PRIVATE KEY block cannot be read: {exc}", key_line) from None
    if not isinstance(key, X25519PrivateKey):
        raise EchError(f"the PRIVATE KEY is {type(key).__name__}, not X25519", key_line)
    config_match, config_line = blocks["ECHCONFIG"]
    try:
        configs = decode_base64(config_match.group(2))
    except EchError as exc:
        raise EchError(f"ECHCONFIG: {exc}", config_line) from None
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return EchKeyFile(raw, configs)


def write_key_file(private_key: bytes, config_list: bytes) -> str:
    """The key file for a raw X25519 private key and its config list, in OpenSSL 4.0's layout."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    key = X25519PrivateKey.from_private_bytes(private_key)
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode("ascii")
    encoded = base64.b64encode(config_list).decode("ascii")
    lines = [encoded[i : i + 64] for i in range(0, len(encoded), 64)]
    return pem + "-----BEGIN ECHCONFIG-----\n" + "\n".join(lines) + "\n-----END ECHCONFIG-----\n"


def new_key_file(public_name: str, maximum_name_length: int = 0) -> str:
    """A fresh key file: a new X25519 key and one config (a random config_id, HKDF-SHA256 with
    AES-128-GCM), as `openssl ech -public_name NAME` makes one."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        PublicFormat,
    )

    key = X25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    config = serialise_config(os.urandom(1)[0], public, public_name,
                              maximum_name_length=maximum_name_length)  # fmt: skip
    private = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return write_key_file(private, serialise_config_list([config]))


def https_record(owner: str, config_list: EchConfigList, alpn: tuple[str, ...] = (),
                 ttl: int = 3600, priority: int = 1, target: str = ".") -> str:  # fmt: skip
    """An HTTPS resource record in zone-file presentation form (RFC 9460 sections 2.1 and 9),
    with `alpn=` and `ech=` (RFC 9848)."""
    params = []
    if alpn:
        params.append('alpn="' + ",".join(alpn) + '"')
    params.append(f"ech={config_list.base64()}")
    name = owner if owner.endswith(".") else owner + "."
    return f"{name} {ttl} IN HTTPS {priority} {target} {' '.join(params)}"


@record(frozen=True)
class _Word:
    """A word of zone-file text (quotes and escapes kept as written) and the line it is on."""

    text: str
    line: int


def _zone_records(text: str) -> list[list[_Word]]:
    """The records of zone-file text, each a list of its words (RFC 1035 section 5.1): `;` starts
    a comment to the end of the line outside quotes, `\\X` escapes one character, parentheses
    continue a record over lines."""
    records: list[list[_Word]] = []
    words: list[_Word] = []
    word, start, line, depth, at = "", 1, 1, 0, 0

    def close() -> None:
        nonlocal word
        if word:
            words.append(_Word(word, start))
        word = ""

    while at < len(text):
        char = text[at]
        if not word:
            start = line
        if char in '"\\':
            end = _verbatim_end(text, at, line)
            word += text[at:end]
            line += text.count("\n", at, end)
            at = end
            continue
        if char == ";":
            close()
            at = text.find("\n", at)
            at = len(text) if at < 0 else at
            continue
        if char.isspace() or char in "()":
            close()
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "\n":
                line += 1
                if depth <= 0 and words:
                    records.append(words)
                    words, depth = [], 0
        else:
            word += char
        at += 1
    close()
    if words:
        records.append(words)
    return records


def _verbatim_end(text: str, at: int, line: int) -> int:
    """Where the quoted string (its `\\X` escapes inside) or the escape `\\X` at `at` ends: it
    goes into the word as written."""
    if text[at] == "\\":
        return at + 2
    end = at + 1
    while end < len(text) and text[end] != '"':
        end += 2 if text[end] == "\\" else 1
    if end >= len(text):
        raise EchError("a quoted string is not closed", line)
    return end + 1


def ech_from_record(text: str) -> EchConfigList:
    """The ECHConfigList of the first HTTPS (or SVCB) record with one in zone-file text: the
    presentation form's `ech=` (also written `key5=`, quoted or not, RFC 9460 section 2.1), or
    the generic form `\\# LENGTH HEX` (RFC 3597) that older `dig` prints, whose SvcParams are
    read for key 5. Comments are skipped; an error carries the line of the value."""
    records = _zone_records(text)
    for words in records:
        texts = [w.text for w in words]
        if "\\#" in texts:
            at = texts.index("\\#")
            try:
                found = _ech_from_wire(texts[at + 1 :])
            except EchError as exc:
                raise EchError(str(exc), words[at].line) from None
            if found is not None:
                return found
            continue
        for word in words:
            key, equals, value = word.text.partition("=")
            if equals and key.lower() in ("ech", f"key{SVCB_ECH_KEY}"):
                try:
                    return decode_base64(value.strip('"'))
                except EchError as exc:
                    raise EchError(f"{key}=: {exc}", word.line) from None
    where = "the record" if len(records) == 1 else "any record"
    raise EchError(f"no ech= parameter in {where}", records[0][0].line if records else None)


def _ech_from_wire(tokens: list[str]) -> EchConfigList | None:
    try:
        size = int(tokens[0])
        data = bytes.fromhex("".join(tokens[1:]))
    except (IndexError, ValueError):
        raise EchError("the \\# form needs a length and hex digits") from None
    if len(data) != size:
        raise EchError(f"the \\# form announces {size} bytes and has {len(data)}")
    reader = _Reader(data)
    reader.integer(2, "SvcPriority")
    while (label := reader.integer(1, "TargetName label")) != 0:  # a wire-form domain name
        reader.take(label, "TargetName label")
    while reader.left():
        key = reader.integer(2, "SvcParamKey")
        value = reader.vector(2, f"SvcParam key{key}")
        if key == SVCB_ECH_KEY:
            return _config_list(value)
    return None


def read_config_list(value: str) -> EchConfigList:
    """What `--ech-config` may be: a file (a key file, or a record or base64 in it), a DNS
    record's text, or the base64 ECHConfigList itself. A file's errors name no content of it
    (it may be a key) and carry the line they are about."""
    if not value.strip():
        raise EchError("empty: give a key file, an HTTPS record or a base64 ECHConfigList")
    if os.path.isdir(value):
        raise EchError(f"{value} is a directory: give a key file (ech.pem) or a record file")
    if not os.path.isfile(value):
        if _is_record(value):
            return ech_from_record(value)
        if _PATH.search(value) and not _BASE64.fullmatch("".join(value.split())):
            raise EchError(f"{value}: no such file")
        return decode_base64(value)
    with open(value, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    begin = text.find("-----BEGIN ECHCONFIG-----")
    if begin >= 0:
        line = text.count("\n", 0, begin) + 1
        match = _PEM.search(text, begin)
        if match is None:
            raise EchError("the ECHCONFIG block has no END line", line)
        try:
            return decode_base64(match.group(2))
        except EchError as exc:
            raise EchError(f"ECHCONFIG: {exc}", line) from None
    if _is_record(text):
        return ech_from_record(text)
    if not text.strip():
        raise EchError("the file is empty")
    if not _BASE64.fullmatch("".join(text.split())):
        raise EchError(
            "neither an ECH key file (no ECHCONFIG block), an HTTPS record (no ech=) nor a "
            "base64 ECHConfigList"
        )
    try:
        return decode_base64(text)
    except EchError as exc:
        first = text.count("\n", 0, len(text) - len(text.lstrip())) + 1  # of the base64
        raise EchError(str(exc), first) from None


def _is_record(text: str) -> bool:
    """Whether text (comments aside) reads as a record: a `key=value` parameter or `\\#`."""
    try:
        records = _zone_records(text)
    except EchError:
        return True  # an unclosed quote: let the record reader say where
    return any(_RECORD.search(" ".join(w.text for w in words)) for words in records)


# a record's text: a `key=value` parameter (RFC 9460 2.1: keys are lower-case, a value follows;
# base64's `=` is padding at the end) or the generic `\\#` form (RFC 3597)
_RECORD = re.compile(r"(^|\s)[a-z][a-z0-9-]*=[^\s=]|\\#")
# base64 (RFC 4648 section 4), padded
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
# what reads as a file name: a folder separator, `~` or `.` first, or an extension at the end
_PATH = re.compile(r"/|^[~.]|\.[A-Za-z0-9]{1,8}$")


def _bytes(count: int) -> str:
    return "1 byte" if count == 1 else f"{count} bytes"


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."
