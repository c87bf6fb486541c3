"""Client certificates verified with no revocation check: neither `ssl_crl` nor `ssl_ocsp`.

A client certificate that was revoked (a lost laptop, a former employee) still gets in until it
expires. nginx checks revocation only with a CRL file (`ssl_crl`, reloaded with nginx) or OCSP
(`ssl_ocsp on` or `leaf`, nginx >= 1.19.0, with a `resolver` and optionally
`ssl_ocsp_responder`). Not reported for `optional_no_ca`, which does not verify the issuer (and
cannot go with `ssl_ocsp`). Short-lived client certificates make this moot.

Fail:
    ssl_verify_client on; ssl_client_certificate /etc/nginx/client-ca.pem;
Fix:
    ssl_verify_client on; ssl_client_certificate /etc/nginx/client-ca.pem;
    ssl_crl /etc/nginx/client-ca.crl;

Sources: https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_crl and #ssl_ocsp;
nginx CHANGES 1.19.0 (ssl_ocsp).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._client_certs import once, verifying

RULE = Rule(
    code=rule_codes.CLIENT_REVOCATION_UNCHECKED,  # the generator names it too
    name="client-revocation-unchecked",
    severity=Severity.INFO,
    fix="ssl_crl /path/to/ca.crl; (or ssl_ocsp on; with a resolver)",
    triggers=("ssl_verify_client",),
)


def check(ctx: Context) -> Iterator[Finding]:
    lines: set[int] = set()
    for settings in verifying(ctx):
        if settings.verify.value not in ("on", "optional") or settings.verify.line is None:
            continue
        if settings.crl.value is not None or settings.ocsp.value in ("on", "leaf"):
            continue
        if settings.unknown is not None or not once(lines, settings):
            continue
        yield ctx.finding(
            RULE,
            settings.verify.line,
            f"ssl_verify_client {settings.verify.value} without ssl_crl or ssl_ocsp: a revoked "
            "client certificate is accepted until it expires",
        )
