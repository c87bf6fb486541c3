"""`ssl_verify_client optional` (or `optional_no_ca`) with nothing that checks
`$ssl_client_verify`: every client gets in, with a certificate or without one.

With `optional` nginx asks for a certificate and serves the request whatever the client sent;
only `$ssl_client_verify` (NONE, SUCCESS or FAILED:reason) tells. `optional_no_ca` does not
even check who issued it. Unless an `if` of the server (or a `map` it reads) acts on the
verdict, or a header or parameter hands it to the backend (which is then trusted to check it),
the client certificate protects nothing. Not reported where an include of the server could not
be read (it may hold the check).

Fail:
    ssl_verify_client optional; ssl_client_certificate /etc/nginx/client-ca.pem;
Fix (refuse what did not verify; or `ssl_verify_client on`):
    ssl_verify_client optional; ssl_client_certificate /etc/nginx/client-ca.pem;
    if ($ssl_client_verify != SUCCESS) { return 403; }

Sources: https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_verify_client and
#var_ssl_client_verify; nginx src/http/ngx_http_request.c ngx_http_process_request (only `on`
refuses a request without a certificate), seen on nginx 1.22.1, 1.26.3 and 1.31.3.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._client_certs import once, verifying

RULE = Rule(
    code="NGX741",
    name="client-verify-unchecked",
    severity=Severity.WARNING,
    fix="if ($ssl_client_verify != SUCCESS) { return 403; }  (or ssl_verify_client on;)",
    triggers=("ssl_verify_client",),
)


def check(ctx: Context) -> Iterator[Finding]:
    lines: set[int] = set()
    for settings in verifying(ctx):
        verify = settings.verify
        if verify.line is None or verify.value not in ("optional", "optional_no_ca"):
            continue
        if settings.checks or settings.unknown is not None or not once(lines, settings):
            continue
        yield ctx.finding(
            RULE,
            verify.line,
            f"ssl_verify_client {verify.value} and nothing checks $ssl_client_verify: clients "
            "without a valid certificate are served like the others",
        )
