"""`ssl_ech_file` on an nginx whose TLS library lacks OpenSSL's ECH API (anything but OpenSSL
4.0 and newer): nginx warns `"ssl_ech_file" is not supported on this platform, ignored` and
serves no Encrypted Client Hello. A DNS record that publishes the key then makes clients try
ECH against a server that never accepts it.

Fail (nginx 1.31.3 with OpenSSL 3.3): ssl_ech_file ech.pem;
Fix: build nginx 1.29.4 or newer against OpenSSL 4.0 (nginx CHANGES 1.29.4;
https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_ech_file), or remove the line and
the DNS record's ech= parameter.

Sources: nginx src/event/ngx_event_openssl.c ngx_ssl_ech_files() (#ifdef SSL_OP_ECH_GREASE);
`nginx -t` of nginx 1.31.3 with OpenSSL 3.3.7 (tests/lint/test_lint_ech.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import directives, ech, libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX505",
    name="ech-unsupported",
    severity=Severity.WARNING,
    fix="build nginx against OpenSSL 4.0, or remove ssl_ech_file",
    triggers=("ssl_ech_file",),
)


def check(ctx: Context) -> Iterator[Finding]:
    name = ech.directive().name
    if directives.nginx_directive(ctx.target, name) is None or ctx.has("ech"):
        return  # an nginx without the directive: NGX007 says so
    refusal = libraries.capability(ctx.target.library, "ech").refusal
    for stmt in ctx.named(name):
        if stmt.directive == name:
            yield ctx.finding(RULE, stmt, f"{ctx.library()}: {refusal}")
