"""`ssl_certificate` and `ssl_certificate_key` lines that do not pair up.

nginx pairs them by position in one server (RSA and ECDSA dual certificates each need their own
key, in the same order); fewer keys than certificates makes nginx refuse the config (`no
"ssl_certificate_key" is defined for certificate ...`). The same holds in stream servers, whose
lines pair up the same way (ngx_stream_ssl_merge_srv_conf).

Sources: ngx_http_ssl_module docs (ssl_certificate).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._values import tls_servers

RULE = Rule(
    code="NGX714",
    name="certificate-key-pairs",
    severity=Severity.ERROR,
    fix="give each ssl_certificate its ssl_certificate_key, in the same order",
)


def check(ctx: Context) -> Iterator[Finding]:
    stream = (
        (s.settings.get("ssl_certificate", []), s.settings.get("ssl_certificate_key", []))
        for s in tls_servers(ctx.config.loaded.statements, ctx.target, ("stream",))
    )
    http = ((s.effective("ssl_certificate"), s.effective("ssl_certificate_key"))
            for s in ctx.tls_servers())  # fmt: skip
    for certs, keys in (*http, *stream):
        if certs and len(keys) < len(certs):
            yield ctx.finding(
                RULE,
                certs[len(keys)],
                f"{len(certs)} certificates but {len(keys)} keys: nginx refuses this",
            )
