"""Shared by the rules that read the files a config names (certificates, keys, DH parameters,
ticket keys), through nginxgen.conf.files and nginxgen.base.der: a file that cannot be read is
skipped, these rules only speak about what they could see."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf import files
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.base.der import Certificate

__all__ = ["certificate_files", "issuer_of", "load_chain", "read", "resolve"]

# CA files a config names: where the issuer of a leaf may be found
CA_DIRECTIVES = (
    "ssl_trusted_certificate",
    "ssl_client_certificate",
    "proxy_ssl_trusted_certificate",
    "grpc_ssl_trusted_certificate",
    "uwsgi_ssl_trusted_certificate",
)
SIBLINGS = ("*.pem", "*.crt", "*.cer")
MAX_SIBLINGS = 64


def resolve(ctx: Context, path: str) -> str | None:
    return files.resolve(ctx.config.loaded, path)


def read(ctx: Context, path: str) -> bytes | None:
    return files.read(ctx.config.loaded, path)


@record
class CertificateFile:
    """One `ssl_certificate` line of a TLS server, with its key line (same position)."""

    server: Server
    stmt: Stmt
    key_stmt: Stmt | None
    chain: list[Certificate]  # leaf first, as written
    key_match: int | None  # index in chain of the certificate the key belongs to; None: unknown


def _certificate_files(ctx: Context) -> list[CertificateFile]:
    out: list[CertificateFile] = []
    seen: set[tuple[int, int | None]] = set()
    # Fleets name one chain and key in thousands of vhosts: read and match each pair once.
    chains: dict[str, list[Certificate]] = {}
    matches: dict[tuple[str, str | None], int | None] = {}
    for server in ctx.tls_servers():
        certs = server.effective("ssl_certificate")
        keys = server.effective("ssl_certificate_key")
        for index, stmt in enumerate(certs):
            key_stmt = keys[index] if index < len(keys) else None
            ident = (id(stmt), id(key_stmt) if key_stmt else None)
            if ident in seen or not stmt.args:
                continue
            seen.add(ident)
            cert_path = stmt.args[0]
            if cert_path not in chains:
                data = read(ctx, cert_path)
                chains[cert_path] = load_chain(data) if data else []
            chain = chains[cert_path]
            if not chain:
                continue
            key_path = key_stmt.args[0] if key_stmt and key_stmt.args else None
            if (cert_path, key_path) not in matches:
                key_data = read(ctx, key_path) if key_path else None
                from nginxgen.base.der import key_index

                matches[cert_path, key_path] = key_index(key_data, chain) if key_data else None
            out.append(CertificateFile(server, stmt, key_stmt, chain, matches[cert_path, key_path]))
    return out


def load_chain(data: bytes, trusted: str = "first") -> list[Certificate]:
    """The certificates of a PEM file nginx reads, leaf first (nginxgen.base.der, imported only
    once a file is read: most lints of a commit read none); `trusted`: which blocks in the
    `TRUSTED CERTIFICATE` form are read (der.load_chain), by default an ssl_certificate
    file's."""
    from nginxgen.base.der import load_chain as read_chain

    return read_chain(data, trusted)


def certificate_files(ctx: Context) -> Iterator[CertificateFile]:
    """Each readable certificate file of a TLS server, once per (certificate, key) line pair."""
    return iter(ctx.memo("certificate_files", lambda: _certificate_files(ctx)))


@record(frozen=True)
class Issuer:
    certificate: Certificate
    file: str  # where it was found


def _candidates(ctx: Context, cert_path: str) -> list[tuple[str, list[Certificate]]]:
    """What is knowable here about CAs, memoized per lint: the CA files the config names, the
    files beside the certificate file, and this machine's bundle of public roots."""
    import glob
    import os

    from nginxgen.knowledge import pki

    def chain(path: str, data: bytes | None) -> tuple[str, list[Certificate]]:
        return path, load_chain(data) if data else []

    named = ctx.memo(
        "ca_files",
        lambda: [
            chain(s.args[0], read(ctx, s.args[0]))
            for s in ctx.all_statements()
            if s.directive in CA_DIRECTIVES and s.args
        ],
    )
    full = resolve(ctx, cert_path)
    beside = []
    if full is not None:
        folder = os.path.dirname(full)
        paths = sorted(
            {p for pattern in SIBLINGS for p in glob.glob(os.path.join(folder, pattern))}
        )
        beside = [chain(p, read(ctx, p)) for p in paths[:MAX_SIBLINGS] if p != full]

    def system() -> list[tuple[str, list[Certificate]]]:
        path = pki.system_ca_bundle().path
        try:
            with open(path, "rb") as handle:
                return [chain(path, handle.read())]
        except OSError:
            return []

    return [*named, *beside, *ctx.memo("system_cas", system)]


def issuer_of(ctx: Context, cert_path: str, leaf: Certificate) -> Issuer | None:
    """The certificate that signed `leaf` (its subject is the leaf's issuer and its key verifies
    the leaf's signature), among what is knowable here; None: not found."""
    for path, certs in _candidates(ctx, cert_path):
        for cert in certs:
            if cert.subject == leaf.issuer and leaf.signed_by(cert):
                return Issuer(cert, path)
    return None
