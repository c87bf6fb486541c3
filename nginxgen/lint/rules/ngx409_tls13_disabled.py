"""`ssl_protocols` without TLSv1.3 on an nginx and library that have TLS 1.3.

TLS 1.3 saves a round trip on every new connection, has only forward-secret AEAD suites, and is
the only way to post-quantum key exchange (X25519MLKEM768). An explicit list that leaves it out
switches it off; some shipped snippets still do (`ssl_protocols TLSv1 TLSv1.1 TLSv1.2`). Judged
on the lines a TLS server takes (an http{}-level line every TLS server overrides switches
nothing off); in a tree without TLS servers, on every line.

Fail: ssl_protocols TLSv1.2;
Fix:  ssl_protocols TLSv1.2 TLSv1.3;

Sources: RFC 8446 §1.2 (1-RTT handshake); nginx CHANGES 1.13.0 (TLSv1.3 in ssl_protocols);
draft-ietf-tls-ecdhe-mlkem (hybrid groups are TLS 1.3 only).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._default_server import protocols_in_effect

RULE = Rule(
    code=rule_codes.TLS13_DISABLED,  # the generator names it too
    name="tls13-disabled",
    severity=Severity.WARNING,
    fix="add TLSv1.3 to ssl_protocols",
    autofix=(Applicability.UNSAFE, "adds TLSv1.3 to ssl_protocols"),
    triggers=("ssl_protocols",),
)


def check(ctx: Context) -> Iterator[Finding]:
    status = nginx.directive_status(ctx.target, "TLSv1.3", "protocol_param")
    if not ctx.has("tls13") or status is None or not status.available:
        return
    used = protocols_in_effect(ctx)  # an unused line switches nothing off
    for stmt in ctx.named("ssl_protocols"):
        if used is not None and id(stmt) not in used:
            continue
        if stmt.directive == "ssl_protocols" and stmt.args and "TLSv1.3" not in stmt.args:
            yield ctx.finding(
                RULE,
                stmt,
                f"ssl_protocols {' '.join(stmt.args)} switches TLS 1.3 off on a target that has "
                "it: a round trip more per connection and no post-quantum key exchange",
                edits=_fixes.set_args(ctx, stmt, [*stmt.args, "TLSv1.3"]),
            )
