"""Reading certificate chains and keys: does the key match, what type is it, is the chain sane."""

from __future__ import annotations

import datetime
from pathlib import Path

from nginxgen.base.errors import NginxgenError
from nginxgen.base.pem import key_kind, load_chain, load_key, ocsp_urls, public_bytes
from nginxgen.base.records import record

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from cryptography.x509 import Certificate


# what generate says when it cannot read certificates here (cryptography is left out)
NOT_CHECKED = "certificate contents not checked here"


def unreadable_here() -> str | None:
    """Why certificates and keys cannot be read in this install, or None when they can:
    cryptography reads them, and a browser page has no build of it."""
    import importlib.util

    try:
        found = importlib.util.find_spec("cryptography")
    except ValueError:  # a module object without a spec stands in for it
        found = None
    return None if found is not None else "cryptography is not installed"


@record(frozen=True)
class CertInfo:
    path: str
    key_type: str  # "RSA", "ECDSA", "Ed25519", ...
    key_bits: int
    chain_length: int
    self_signed: bool
    not_after: datetime.datetime
    ocsp_urls: tuple[str, ...]
    leaf_first: bool


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise NginxgenError(f"{what} file not found", where=path) from None
    except IsADirectoryError:
        raise NginxgenError(f"{what} is a directory, not a file", where=path) from None
    except OSError as exc:
        raise NginxgenError(f"cannot read {what}: {exc.strerror}", where=path) from None


def inspect_chain(cert_path: str) -> tuple[CertInfo, list[Certificate]]:
    from nginxgen.base.der import load_chain as nginx_chain

    # the chain as nginx reads an ssl_certificate file (a leaf in the TRUSTED CERTIFICATE form
    # too: base/der.py)
    chain = [cert.crypto() for cert in nginx_chain(_read(cert_path, "certificate"))]
    if not chain:
        raise NginxgenError("not a PEM certificate", where=cert_path)
    leaf = chain[0]
    ocsp = ocsp_urls(leaf)
    key_type, bits = key_kind(leaf.public_key())
    # The leaf is the one no other certificate in the file was issued by... nginx needs it first.
    issuers = {c.issuer for c in chain[1:]}
    leaf_first = len(chain) == 1 or leaf.subject not in issuers
    info = CertInfo(
        path=cert_path,
        key_type=key_type,
        key_bits=bits,
        chain_length=len(chain),
        self_signed=leaf.issuer == leaf.subject,
        not_after=leaf.not_valid_after_utc,
        ocsp_urls=ocsp,
        leaf_first=leaf_first,
    )
    return info, list(chain)


def check_pair(cert_path: str, key_path: str) -> CertInfo:
    """Refuse a missing or unreadable certificate or key, or a key that does not match."""
    info, chain = inspect_chain(cert_path)
    key_data = _read(key_path, "key")
    try:
        key = load_key(key_data)
    except TypeError:
        raise NginxgenError(
            "the key is encrypted; nginx would need ssl_password_file", where=key_path
        ) from None
    except ValueError:
        raise NginxgenError("not a PEM private key", where=key_path) from None
    if public_bytes(key.public_key()) != public_bytes(chain[0].public_key()):
        raise NginxgenError(f"the key does not match the certificate {cert_path}", where=key_path)
    return info


def ca_file_here(path: str, named_by: str) -> bool:
    """Whether a CA file nginx is to trust (`ssl_client_certificate`, `*_ssl_trusted_certificate`)
    is on this machine. False when it does not exist here (configs are often generated on
    another machine than the server); refused when it is here but nginx could not load it:
    unreadable, or holding no PEM certificate (nginx -t: cannot load certificate)."""
    if not Path(path).exists():
        return False
    if unreadable_here():
        return True  # here, its contents unchecked (generate says so of every certificate)
    if not load_chain(_read(path, "CA file")):
        raise NginxgenError(
            f"holds no PEM certificate ({named_by} names it): nginx -t would fail with "
            '"cannot load certificate"',
            where=path,
        )
    return True
