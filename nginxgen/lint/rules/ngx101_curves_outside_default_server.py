"""Key-exchange groups set in a server that is not the default server of its address:port.

Only the default server's `ssl_ecdh_curve` (or `ssl_conf_command Groups`/`Curves`) is used for
every connection to an address:port: OpenSSL, BoringSSL and AWS-LC copy the group list into the
connection before SNI selects the virtual server. The same line in another server is silently
ignored - no error from `nginx -t`, and a client that only offers the vhost's group fails.

The same in stream{} servers (virtual servers since nginx 1.25.5): a stream vhost's groups
are ignored too (seen on nginx 1.31.3, tests/conf/test_stream_live.py).

Fail:
    server { listen 443 ssl default_server; ssl_ecdh_curve X25519; ... }
    server { listen 443 ssl; server_name b.example; ssl_ecdh_curve secp384r1; ... }

Fix (the groups once at http{} level, or identically in the default server):
    ssl_ecdh_curve X25519:secp384r1;
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name b.example; ... }

Sources: trac.nginx.org ticket #1089; openssl/openssl#1652; reproduced on the real builds in tests/lint/test_live_rules.py; certbot/certbot#10453.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, finding, misplaced

RULE = Rule(
    code="NGX101",
    name="curves-outside-default-server",
    severity=Severity.WARNING,
    fix="move ssl_ecdh_curve (or ssl_conf_command Groups) to http{} level, "
    "or make it the same in the default server",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_ecdh_curve", "ssl_conf_command"),
)


def check(ctx: Context) -> Iterator[Finding]:
    keys = ("ssl_ecdh_curve", "ssl_conf_command Groups", "ssl_conf_command Curves")
    for m in misplaced(ctx, keys):
        yield finding(
            ctx,
            RULE,
            m,
            f"{m.key} here is ignored: {server_label(m.default)} is the default server of "
            f"{m.on} and its groups ({m.default_value}) apply to every name on it",
        )
