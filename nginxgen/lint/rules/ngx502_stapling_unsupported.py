"""`ssl_stapling on` with BoringSSL: ignored, nothing is stapled.

Fail (BoringSSL): ssl_stapling on;
Fix (the line removed, or): ssl_stapling off;

Sources: nginx src/event/ngx_event_openssl_stapling.c (without OpenSSL's OCSP API:
"ssl_stapling" ignored, not supported); BoringSSL include/openssl/ssl.h (no OCSP client).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX502",
    name="stapling-unsupported",
    severity=Severity.WARNING,
    fix="remove ssl_stapling",
    autofix=(Applicability.SAFE, "deletes the ssl_stapling line the library ignores"),
    triggers=("ssl_stapling",),
    target_bound=("library",),
)


def check(ctx: Context) -> Iterator[Finding]:
    capability = libraries.capability(ctx.target.library, "ocsp_stapling")
    if capability.available:
        return
    for stmt in ctx.switched_on("ssl_stapling"):
        yield ctx.finding(
            RULE,
            stmt,
            f"{ctx.library()}: {capability.refusal}",
            edits=_fixes.delete(ctx, stmt),
        )
