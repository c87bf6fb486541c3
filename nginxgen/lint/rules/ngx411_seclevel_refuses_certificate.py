"""A `@SECLEVEL=N` in `ssl_ciphers` that the server's own certificate does not meet.

OpenSSL checks every certificate nginx loads against the security level (ssl_security_cert):
the leaf's key, each chain certificate's key and each signature's digest must give at least the
level's bits (1: 80, 2: 112, 3: 128, 4: 192, 5: 256). nginx sets the cipher string before it
loads the certificates, so `nginx -t` stops at the certificate (`SSL_CTX_use_certificate(...)
failed (SSL: ... ee key too small)`, `ca key too small`, `ca md too weak`). An ECDSA P-256 key
gives 128 bits and fails at level 4 and 5; RSA 2048 gives 112 and fails from level 3; a chain
signed with SHA-256 fails from level 4. Only certificates lint can read are judged; the level a
build uses without `@SECLEVEL` is NGX724's.

With an ECDSA P-256 certificate, `ssl_ciphers HIGH:@SECLEVEL=5;` stops nginx and
`ssl_ciphers HIGH:@SECLEVEL=3;` does not (the rule reads the certificate file, so the example
needs a real one).

Sources: OpenSSL SSL_CTX_set_security_level.pod; ssl/t1_lib.c ssl_security_cert; the bits of
each key and digest in libraries.toml [security_bits]; nginx -t on the builds
(tests/lint/test_value_regressions.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import evaluate_line, model
from nginxgen.lint.rules._files import load_chain, read
from nginxgen.lint.rules._values import tls_servers

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.base.der import Certificate

RULE = Rule(
    code="NGX411",
    name="seclevel-refuses-certificate",
    severity=Severity.ERROR,
    fix="lower @SECLEVEL to what the certificate meets, or issue a stronger certificate",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    if not libraries.has(ctx.target.library, "security_levels"):
        return  # @SECLEVEL is then NGX410's: the library refuses the string itself
    said: set[int] = set()
    chains: dict[str, list[Certificate]] = {}
    # http and stream servers alike: each loads its certificates under its own cipher string
    for server in tls_servers(ctx.config.loaded.statements, ctx.target):
        ciphers = server.settings.get("ssl_ciphers")
        if not ciphers or not ciphers[-1].args or id(ciphers[-1]) in said:
            continue
        level = evaluate_line(ctx, ciphers[-1]).result.seclevel
        if level is None:
            continue
        needs = model(ctx).seclevel.min_bits[min(level, 5)]
        for stmt in server.settings.get("ssl_certificate", ()):
            path = stmt.args[0] if stmt.args else ""
            if path not in chains:
                data = read(ctx, path) if path else None
                chains[path] = load_chain(data) if data else []
            why = _shortfall(chains[path], needs, ctx.has("checks_leaf_signature_digest"))
            if why:
                said.add(id(ciphers[-1]))
                yield ctx.finding(
                    RULE,
                    ciphers[-1],
                    f"{ctx.library()} at @SECLEVEL={level} needs {needs} security bits, and "
                    f"{path} {why}: nginx -t fails",
                )
                break


def _shortfall(chain: list[Certificate], needs: int, leaf_digest: bool) -> str | None:
    """What in a certificate file gives fewer than `needs` bits, in OpenSSL's words
    (`leaf_digest`: whether the library checks the leaf's signature digest, NGX728)."""
    for index, x509 in enumerate(chain):
        kind, size = x509.key
        bits = libraries.key_security_bits(kind, size)
        if bits is not None and bits < needs:
            which = "ee key too small" if index == 0 else "ca key too small"
            return f"has a {kind} {size}-bit key of {bits} bits ({which})"
        if x509.issuer == x509.subject or (index == 0 and not leaf_digest):
            continue  # a self-signed certificate's digest is not checked
        digest = x509.signature_digest
        digest_bits = libraries.digest_security_bits(digest) if digest else None
        if digest and digest_bits is not None and digest_bits < needs:
            return f"is signed with {digest.upper()} ({digest_bits} bits: ca md too weak)"
    return None
