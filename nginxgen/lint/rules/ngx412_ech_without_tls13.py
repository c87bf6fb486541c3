"""Encrypted Client Hello keys on an address whose default server has TLS 1.3 off. ECH is a TLS
1.3 extension: an ECH client's handshake fails there (OpenSSL 4.0.3's s_client gets alert 47,
nginx logs `unsupported protocol`), so the keys only break the clients that use them.

Fail:
    ssl_protocols TLSv1.2;
    ssl_ech_file ech.pem;
Fix:
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ech_file ech.pem;

Sources: RFC 9849 section 6.1 (the inner ClientHello offers TLS 1.3 or later only); nginx 1.30.4
with OpenSSL 4.0.3, scripts/ech_nginx_proof.py (tls13-off; docs/live-verification.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ech import ech_sockets

RULE = Rule(
    code="NGX412",
    name="ech-without-tls13",
    severity=Severity.ERROR,
    fix="add TLSv1.3 to ssl_protocols (in the default server, or at http{} level)",
    triggers=("ssl_ech_file",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for found in ech_sockets(ctx):
        protocols = found.model.protocols().value
        if protocols is None or "TLSv1.3" in protocols:
            continue
        yield ctx.finding(
            RULE,
            found.line,
            f"{server_label(found.default)}, the default server of {found.socket}, has TLS 1.3 "
            "off: every client that uses these Encrypted Client Hello keys fails its handshake",
        )
