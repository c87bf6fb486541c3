"""`ssl_verify_depth` lower than the CA files need: client certificates issued by the deepest
CA of `ssl_client_certificate` (with `ssl_trusted_certificate`) fail verification.

OpenSSL counts the CA certificates above the client's own, the trust anchor not counted: a
client certificate issued by a root needs depth 0, by an intermediate under the root 1 (nginx's
default), by an intermediate two levels below the root 2. Such clients get 400 "The SSL
certificate error" with `on`, and `$ssl_client_verify` FAILED with `optional`. Read from the CA
files where they can be read here; a CA that reaches no self-signed root in them is left out.

Sources: https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_verify_depth; OpenSSL
SSL_CTX_set_verify_depth(3); seen on nginx 1.22.1, 1.26.3 and 1.31.3 with a two-intermediate
client chain (tests/conf/test_client_certificates_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.client_certificates import depth_needed
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._client_certs import verifying

RULE = Rule(
    code="NGX742",
    name="verify-depth-too-low",
    severity=Severity.WARNING,
    fix="ssl_verify_depth N; (the number of CA certificates between a client's and the root)",
    triggers=("ssl_verify_client",),
)


def check(ctx: Context) -> Iterator[Finding]:
    seen: set[tuple[int, int]] = set()
    for settings in verifying(ctx):
        if not settings.asks or settings.verify.value == "optional_no_ca":
            continue
        try:
            depth = int(settings.depth.value or "")
        except ValueError:  # NGX010's
            continue
        needed = depth_needed(ctx.config, settings)
        if needed is None or needed.needed <= depth:
            continue
        line = settings.depth.line or settings.verify.line
        key = (id(line), id(settings.client_certificate.line))
        if line is None or key in seen:
            continue
        seen.add(key)
        written = "" if settings.depth.line else " (nginx's default)"
        yield ctx.finding(
            RULE,
            line,
            f"ssl_verify_depth {depth}{written}: a client certificate issued by {needed.issuer} "
            f"needs {needed.needed}",
            fix=f"ssl_verify_depth {needed.needed};",
        )
