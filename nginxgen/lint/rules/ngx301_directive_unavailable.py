"""A directive or parameter the target's nginx does not have: nginx refuses the config.

Driven by the knowledge base's version table: `ssl` (removed in 1.25.1), `http2 on` (from
1.25.1), `ssl_reject_handshake` and `ssl_conf_command` (1.19.4), `ssl_early_data` (1.15.4),
`listen ... quic` (1.25.0, and only with --with-http_v3_module), `add_header_inherit` (1.29.3),
`ssl_key_log` (NGINX Plus only), TLSv1.3 in ssl_protocols (1.13.0), ...

Fail (nginx 1.22.1): http2 on;
Fix: listen 443 ssl http2;

`ssl on;` on a release that no longer has it (1.25.1 and later) is fixed as NGX302 fixes it
before: the `ssl` parameter goes onto the server's listens.

Sources: nginx CHANGES (each directive's first release, in
nginxgen/knowledge/nginx.toml); nginx -t on the real builds (tests/lint/test_live_rules.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._directives import versioned
from nginxgen.lint.rules._grammar import instead

RULE = Rule(
    code="NGX301",
    name="directive-unavailable",
    severity=Severity.ERROR,
    fix="use what this nginx version has instead",
    autofix=(
        Applicability.SAFE,
        "`ssl on;` (refused from 1.25.1) becomes the ssl parameter on its server's listens "
        "(safe where every server of those addresses is TLS; otherwise unsafe: the parameter "
        "makes the whole address:port TLS); `ssl off;` goes",
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, what, status in versioned(ctx):
        if status.available:
            continue
        if what.startswith('"listen ... ') and not status.released:
            continue  # a word the release's listen does not have: NGX010 says it, in nginx's words
        if status.plus_only and not ctx.target.plus:
            why = "is NGINX Plus only"
        elif status.removed:
            why = f"was removed in nginx {status.removed}"
        elif status.since:
            why = f"needs nginx {status.since}"
        else:
            why = f"needs the {status.module} module"
        if (
            status.released  # a release without it at all is the answer, not how this one was built
            and status.module
            and ctx.target.modules is not None
            and status.module not in ctx.target.modules
        ):
            why = f"needs nginx built --with-{status.module}_module"
        autofix, edits = (
            _fixes.ssl_to_listens(ctx, stmt) if stmt.directive == "ssl" else (None, None)
        )
        yield ctx.finding(
            RULE,
            stmt,
            f"{what} {why} ({ctx.target.describe()}): nginx refuses the config",
            instead(ctx, stmt, status.replacement),
            autofix=autofix,
            edits=edits,
        )
