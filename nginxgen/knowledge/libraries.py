"""TLS libraries (libraries.toml): what each lets nginx do, and the facts about keys and
signatures each applies. QuicTLS answers as the OpenSSL version it is based on (`like`)."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import Version, in_range
from nginxgen.knowledge.builds import library_display, library_entry
from nginxgen.knowledge.data import toml_file

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.builds import Library


@record(frozen=True)
class Support:
    """Which versions of one library have something (a capability, a group, a syntax): none,
    all, or those `since <= version < until` (an unknown version counts as the newest)."""

    present: bool
    since: str | None = None
    until: str | None = None

    def holds(self, version: Version | None) -> bool:
        return self.present and in_range(version, self.since, self.until)


NO_SUPPORT = Support(False)


def support(entry: bool | dict[str, str] | None) -> Support:
    """A table's `library = true | false | {since, until}` as a record."""
    if entry is None or isinstance(entry, bool):
        return Support(bool(entry))
    return Support(True, entry.get("since"), entry.get("until"))


def supports(table: dict[str, Any], library: Library) -> bool:
    """Whether a `{library kind = true | false | {since, until} | [{since, until}, ...]}`
    table holds for `library` (a list: any of the ranges, where what was measured is not one
    range of versions)."""
    entry = table.get(behaves_as(library))
    if isinstance(entry, list):
        return any(support(part).holds(library.version) for part in entry)
    return support(entry).holds(library.version)


def behaves_as(library: Library) -> str:
    """The kind whose entries answer for this library: QuicTLS answers as OpenSSL."""
    return str(library_entry(library.kind).get("like", library.kind))


@record(frozen=True)
class Capability:
    name: str
    summary: str
    available: bool
    refusal: str
    source: str


def capability(library: Library, name: str) -> Capability:
    data = toml_file("libraries")["capability"][name]
    return Capability(
        name=name,
        summary=data["summary"],
        available=supports(data, library),
        refusal=data.get("refusal", f"{library_display(library.kind)} lacks {data['summary']}"),
        source=data["source"],
    )


def has(library: Library, name: str) -> bool:
    return capability(library, name).available


def capability_names() -> frozenset[str]:
    return frozenset(toml_file("libraries")["capability"])


def max_early_data(library: Library) -> int | None:
    """The max_early_data_size nginx's TLS 1.3 tickets carry with ssl_early_data on."""
    sizes = toml_file("libraries")["capability"]["early_data"]["max_early_data"]
    size = sizes.get(behaves_as(library))
    return int(size) if size is not None else None


def tls13_fixed_suites(library: Library) -> list[str] | None:
    """The TLS 1.3 suites a library always offers when nginx cannot choose them, if known."""
    fixed: list[str] | None = toml_file("libraries")["tls13_fixed_suites"].get(library.kind)
    return fixed


def dh_parameter_blocks(library: Library) -> tuple[str, ...]:
    """The PEM block names the library's PEM_read_bio_DHparams takes (nginx's ssl_dhparam
    reader); for a library not known, any of them."""
    table = toml_file("libraries")["dh_parameter_blocks"]
    known = table.get(behaves_as(library))
    if known is None:
        known = [name for kind in ("openssl", "boringssl", "aws-lc") for name in table[kind]]
    return tuple(dict.fromkeys(known))


def pem_no_start_line(library: Library, block: str) -> str | None:
    """The library's error, as nginx prints it after its own words, for a PEM file without a
    `block` block; None where it is not known."""
    table = toml_file("libraries")["dh_parameter_blocks"]
    kind = behaves_as(library)
    text = table["no_start_line"].get(kind)
    if text is None or (
        kind == "openssl"
        and not in_range(library.version, table["no_start_line_openssl_since"], None)
    ):
        return None
    return str(text).format(block=block)


def key_floor_bits(kind: str) -> int | None:
    """Smallest key size of 112-bit strength for RSA, ECDSA or DH (None: no floor known)."""
    value = toml_file("libraries")["key_floor_bits"].get(kind)
    return int(value) if isinstance(value, int) else None


def key_security_bits(kind: str, bits: int) -> int | None:
    """The security bits OpenSSL gives a key of this kind and size (key_kind's words); None
    for a kind no table covers."""
    table = toml_file("libraries")["security_bits"]
    if kind == "RSA":
        return next((strength for least, strength in table["RSA"] if bits >= least), 0)
    if kind == "ECDSA":
        return bits // 2
    value = table.get(kind)
    return int(value) if isinstance(value, int) else None


def cipher_string_stop(library: Library, text: str) -> str | None:
    """The first character of a cipher string at which the library stops (INVALID_COMMAND):
    one that is no letter, digit or character of [cipher_string_characters]; None where it
    reads on (OpenSSL) or none is there."""
    allowed = toml_file("libraries")["cipher_string_characters"].get(behaves_as(library))
    if allowed is None:
        return None
    return next((c for c in text if not (c.isascii() and c.isalnum()) and c not in allowed), None)


def default_level_bits() -> int:
    """The security bits OpenSSL 3's default security level asks of keys and signatures: the
    level's minimum, said once (cipher_models.toml [seclevel])."""
    level = int(toml_file("libraries")["security_bits"]["default_level"])
    return int(toml_file("cipher_models")["seclevel"]["min_bits"][level])


def digest_security_bits(digest: str) -> int | None:
    """The security bits OpenSSL gives a certificate signature's digest ("sha256"); None where
    the table does not say."""
    value = toml_file("libraries")["security_bits"]["digest"].get(digest.lower())
    return int(value) if isinstance(value, int) else None


@record(frozen=True)
class WeakCipherFamilies:
    """Cipher-string words that ask for broken suite families (libraries.toml
    [weak_cipher_families]): whole words, parts of words, and word beginnings."""

    words: frozenset[str]
    substrings: tuple[str, ...]
    prefixes: tuple[str, ...]


@cache
def weak_cipher_families() -> WeakCipherFamilies:
    data = toml_file("libraries")["weak_cipher_families"]
    return WeakCipherFamilies(
        frozenset(data["words"]), tuple(data["substrings"]), tuple(data["prefixes"])
    )
