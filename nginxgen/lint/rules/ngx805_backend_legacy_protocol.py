"""TLS 1.0 or 1.1 (or SSLv3) allowed towards a backend.

`proxy_ssl_protocols` (and `grpc_`, `uwsgi_`) with TLSv1 or TLSv1.1 lets nginx settle for a
deprecated protocol with a backend that offers nothing better, or that an attacker on the path
makes look so: no AEAD suites, SHA-1 in the handshake (RFC 8996). The same fact as NGX401 on the
client side; as there, a library that cannot negotiate them (OpenSSL 3 without `@SECLEVEL=0`
in the pass's ciphers, BoringSSL) makes the line dead configuration, reported as info; SSLv2
and SSLv3 are an error. Only written lines are reported: the default (TLSv1 TLSv1.1 TLSv1.2
before nginx 1.23.4, with TLSv1.3 until 1.27.3, TLSv1.2 TLSv1.3 since) is NGX303's question.

Fail: location / { proxy_pass https://api.example.com; proxy_ssl_protocols TLSv1 TLSv1.1 TLSv1.2; }
Fix:  location / { proxy_pass https://api.example.com; proxy_ssl_protocols TLSv1.2 TLSv1.3; }

Sources: RFC 8996; nginx.org ngx_http_proxy_module docs (proxy_ssl_protocols); nginx CHANGES
1.27.3 (TLSv1 and TLSv1.1 no longer enabled by default, for proxy_ssl_protocols too).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.upstream import BackendTls
from nginxgen.knowledge import web
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._backends import passes

RULE = Rule(
    code="NGX805",
    name="backend-legacy-protocol",
    severity=Severity.WARNING,
    fix="proxy_ssl_protocols TLSv1.2 TLSv1.3;",
    otherwise=(
        (Severity.ERROR, "SSLv2 or SSLv3 is allowed"),
        (Severity.INFO, "the library cannot negotiate them anyway (dead configuration)"),
    ),
    autofix=(
        Applicability.UNSAFE,
        "removes SSLv2/SSLv3/TLSv1/TLSv1.1 from the line (a backend that only speaks them is lost)",
    ),
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def _negotiable(ctx: Context, backend: BackendTls) -> bool:
    """Whether the library can negotiate TLS 1.0/1.1 for this pass (its own ciphers line
    decides the security level, as ssl_ciphers does for clients: NGX401)."""
    if not ctx.has("legacy_protocols"):
        return False
    ciphers = backend.ciphers().value or ""
    return not ctx.has("legacy_protocols_need_seclevel0") or "@SECLEVEL=0" in ciphers.upper()


def check(ctx: Context) -> Iterator[Finding]:
    seen: set[int] = set()
    for backend in ctx.backends():
        line = backend.protocols().line
        if line is None or id(line) in seen:
            continue
        seen.add(id(line))
        legacy = [p for p in line.args if p in web.legacy_protocols()]
        if not legacy:
            continue
        severity = Severity.ERROR if any(p.startswith("SSL") for p in legacy) else None
        message = f"{' '.join(legacy)} allowed towards the backend ({passes(backend)})"
        if not _negotiable(ctx, backend):
            message += f"; {ctx.library()} cannot negotiate them, so this is dead configuration"
            severity = severity or Severity.INFO
        kept = [p for p in line.args if p not in legacy] or ["TLSv1.2", "TLSv1.3"]
        yield ctx.finding(
            RULE,
            line,
            message,
            fix=f"{line.directive} {' '.join(kept)};",
            severity=severity,
            edits=_fixes.set_args(ctx, line, kept),
        )
