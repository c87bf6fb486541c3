"""`ssl_early_data on` without replay protection.

Requests in TLS 1.3 early data can be replayed by an attacker. nginx turns OpenSSL's own
anti-replay off; protect with `ssl_conf_command Options AntiReplay;` or pass `$ssl_early_data`
to the application (`proxy_set_header Early-Data $ssl_early_data;`, RFC 8470) so it can answer
425 to non-idempotent requests.

Sources: ngx_http_ssl_module docs (ssl_early_data); RFC 8470; nginx ngx_ssl_create() (SSL_OP_NO_ANTI_REPLAY).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX713",
    name="early-data-replay",
    severity=Severity.WARNING,
    fix="proxy_set_header Early-Data $ssl_early_data; (or ssl_conf_command Options AntiReplay;)",
    autofix=(Applicability.UNSAFE, "turns ssl_early_data off"),
    triggers=("ssl_early_data",),
)


def check(ctx: Context) -> Iterator[Finding]:
    early = list(ctx.switched_on("ssl_early_data"))
    if not early:
        return
    for stmt in ctx.all_statements():
        if "$ssl_early_data" in " ".join(stmt.args):
            return
        if (
            stmt.directive == "ssl_conf_command"
            and len(stmt.args) > 1
            and "antireplay" in stmt.args[1].lower()
        ):
            return
    for stmt in early:
        yield ctx.finding(
            RULE,
            stmt,
            "0-RTT on without replay protection: early-data requests can be replayed",
            edits=_fixes.set_args(ctx, stmt, ["off"]),
        )
