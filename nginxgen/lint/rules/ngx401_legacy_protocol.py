"""SSLv2, SSLv3, TLS 1.0 or TLS 1.1 enabled.

SSLv3 is broken (POODLE); TLS 1.0 and 1.1 lack AEAD suites and rely on SHA-1, are deprecated by
RFC 8996, refused by PCI DSS and NIST SP 800-52r2, and off by default in nginx since 1.27.3.
On OpenSSL 3 they only work at security level 0 (`@SECLEVEL=0` in ssl_ciphers): without it a
TLS 1.1 client gets an internal-error alert, so the line is dead configuration rather than
exposure and is reported as info; with it, or on a library that negotiates them (OpenSSL 1.1.1,
LibreSSL, BoringSSL, AWS-LC), as a warning.

SSLv2 and SSLv3 are the same warning (or info), not an error: nginx -t reads them (they are
words of ssl_protocols' table in every release) and starts, and what an error means here is
"nginx -t refuses this" or "a security setting silently does not apply". An error where nginx
starts would block CI for a line that does nothing: no library nginx builds with today
negotiates SSLv2 (gone in OpenSSL 1.1.0) and none built with default options SSLv3 (no-ssl3
since OpenSSL 1.1.0; BoringSSL and AWS-LC removed it). The value differential (real nginx -t
on every build) found nginx starting with `ssl_protocols SSLv2 SSLv3 TLSv1.2;` on all of them.

Fail: ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
Fix:  ssl_protocols TLSv1.2 TLSv1.3;

Sources: RFC 8996; RFC 7568 (SSLv3); OpenSSL NEWS 1.1.0 and 3.0.0; nginx CHANGES 1.27.3 (TLSv1 and TLSv1.1 no longer
enabled by default).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.knowledge import web
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._default_server import protocols_in_effect

RULE = Rule(
    code=rule_codes.LEGACY_PROTOCOL,  # the generator names it too
    name="legacy-protocol",
    severity=Severity.WARNING,
    fix="ssl_protocols TLSv1.2 TLSv1.3;",
    otherwise=(
        (Severity.INFO, "the library cannot negotiate the protocols anyway (dead configuration)"),
        (
            Severity.ERROR,
            "the line enables nothing else: no protocol the library negotiates, so every "
            "handshake fails (nginx -t passes)",
        ),
    ),
    autofix=(
        Applicability.UNSAFE,
        "removes SSLv2/SSLv3/TLSv1/TLSv1.1 from ssl_protocols (clients that only speak them lose access)",
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    used = protocols_in_effect(ctx)  # a line no TLS address takes enables nothing (NGX103)
    for stmt in ctx.named("ssl_protocols"):
        if stmt.directive != "ssl_protocols" or (used is not None and id(stmt) not in used):
            continue
        legacy = [p for p in stmt.args if p in web.legacy_protocols()]
        if not legacy:
            continue
        message = f"{' '.join(legacy)} enabled: deprecated protocols (RFC 8996)"
        severity: Severity | None = None
        if not ctx.legacy_protocols_negotiable():
            why = (
                "without @SECLEVEL=0"
                if ctx.has("legacy_protocols")
                else "from nginx at all (its minimum is TLS 1.2)"
            )
            message += (
                f"; {ctx.library()} cannot negotiate them {why}, so this is dead configuration "
                "(clients get an alert)"
            )
            severity = Severity.INFO
            if len(legacy) == len(stmt.args):
                # trial 22 (a mail proxy's `ssl_protocols TLSv1 SSLv3;`): nothing else is on,
                # so no client can connect; nginx -t passes, s_client gets `protocol version`
                message += "; the line enables no other protocol, so every handshake fails"
                severity = Severity.ERROR
        kept = [p for p in stmt.args if p not in legacy] or ["TLSv1.2", "TLSv1.3"]
        # unsafe: clients that only speak the old protocols can no longer connect
        yield ctx.finding(
            RULE,
            stmt,
            message,
            severity=severity,
            edits=_fixes.set_args(ctx, stmt, kept),
        )
