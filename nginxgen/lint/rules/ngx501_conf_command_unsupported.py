"""`ssl_conf_command` with BoringSSL, AWS-LC or LibreSSL: nginx refuses the config.

These libraries have no SSL_CONF_cmd(); nginx stops with `SSL_CONF_cmd() is not available on
this platform`. That also means no kTLS and no TLS 1.3 suite control from nginx with them.

Fail (BoringSSL): ssl_conf_command Groups X25519:prime256v1;
Fix (no ssl_conf_command; groups through ssl_ecdh_curve): ssl_ecdh_curve X25519:prime256v1;

Sources: nginx ngx_ssl_conf_commands(); BoringSSL include/openssl/ssl.h (no
SSL_CONF_cmd).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX501",
    name="conf-command-unsupported",
    severity=Severity.ERROR,
    fix="remove ssl_conf_command (use ssl_ecdh_curve for groups)",
    triggers=(
        "ssl_conf_command",
        "proxy_ssl_conf_command",
        "grpc_ssl_conf_command",
        "uwsgi_ssl_conf_command",
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    capability = libraries.capability(ctx.target.library, "ssl_conf_command")
    if capability.available:
        return
    for stmt in ctx.named(*ctx.names_ending("ssl_conf_command")):
        if stmt.directive.endswith("ssl_conf_command"):
            yield ctx.finding(RULE, stmt, f"{ctx.library()}: {capability.refusal}")
