"""A certificate its issuer signed with SHA-1 or MD5. Clients refuse such a signature (RFC 9155
deprecates SHA-1 signatures in TLS 1.2; browsers stopped trusting SHA-1 certificates in 2017),
and OpenSSL 3 refuses to load the certificate at its default security level, where SHA-1 gives
63 bits and MD5 39 (`nginx -t`: `SSL_CTX_use_certificate(...) failed (SSL: ... ca md too
weak)`), on the releases that check the loaded certificate's signature (libraries.toml
checks_leaf_signature_digest: seen on 3.0, 3.3 and 3.6; not on 3.5.9 and 4.0.3). A
self-signed certificate's own signature is not checked.

Sources: OpenSSL ssl/t1_lib.c ssl_security_cert_sig, crypto/x509/x509_set.c; RFC 9155; nginx -t
on the seven builds (tests/lint/test_weak_signature_live.py), found trying remiq's
nginx-ssl-client as a new user (trial 13).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX728",
    name="certificate-weak-signature",
    severity=Severity.WARNING,
    fix="have the certificate issued again with a SHA-256 signature",
    otherwise=(
        (Severity.ERROR, "the library refuses the certificate at its default security level"),
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    refuses = ctx.has("checks_leaf_signature_digest") and ctx.has("refuses_small_keys")
    for cert in certificate_files(ctx):
        leaf = cert.chain[0]
        digest = leaf.signature_digest
        if digest is None or leaf.issuer == leaf.subject:
            continue
        bits = libraries.digest_security_bits(digest)
        if bits is None or bits >= libraries.default_level_bits():
            continue
        message = f"{cert.stmt.args[0]} is signed with {digest.upper()} ({bits} security bits)"
        if refuses:
            message += f": {ctx.library()} refuses it (ca md too weak); nginx -t fails"
        else:
            message += ": clients refuse such a signature"
        yield ctx.finding(RULE, cert.stmt, message, severity=Severity.ERROR if refuses else None)
