"""`ssl_certificate` and `ssl_certificate_key` lines that do not pair up.

nginx pairs them by position in one server (RSA and ECDSA dual certificates each need their own
key, in the same order); fewer keys than certificates makes nginx refuse the config (`no
"ssl_certificate_key" is defined for certificate ...`).

Sources: ngx_http_ssl_module docs (ssl_certificate).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX714",
    name="certificate-key-pairs",
    severity="error",
    fix="give each ssl_certificate its ssl_certificate_key, in the same order",
)


def check(ctx: Context) -> Iterator[Finding]:
    for server in ctx.tls_servers():
        certs = server.effective("ssl_certificate")
        keys = server.effective("ssl_certificate_key")
        if certs and len(keys) < len(certs):
            yield ctx.finding(
                RULE,
                certs[len(keys)],
                f"{len(certs)} certificates but {len(keys)} keys: nginx refuses this",
            )
