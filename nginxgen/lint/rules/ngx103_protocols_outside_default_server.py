"""`ssl_protocols` or TLS 1.3 `Ciphersuites` in a non-default server, where the target ignores it.

Before nginx 1.29.2 (and always with LibreSSL, which has no ClientHello callback) the protocol
version and the TLS 1.3 suite are chosen before SNI selects the virtual server, so only the
default server's values count. From 1.29.2 with OpenSSL >= 1.1.1 (and BoringSSL) a vhost's
ssl_protocols works. A vhost's own TLS 1.3 suites are worse than ignored: a client that gets a
HelloRetryRequest (ML-KEM offered, but only an X25519 key share sent, where ML-KEM is enforced:
OpenSSL 3.5's default groups) has its second hello answered from the vhost's suites, and aborts
if the suite changes (seen on nginx 1.26.3 / OpenSSL 3.5).

The same in stream{} servers (virtual servers since nginx 1.25.5, the ClientHello callback of
1.29.2 for http and stream alike): a stream vhost's protocols work from 1.29.2 (seen on 1.31.3,
tests/conf/test_stream_live.py).

Fail (nginx 1.26.3):
    server { listen 443 ssl default_server; ssl_protocols TLSv1.2 TLSv1.3; ... }
    server { listen 443 ssl; server_name strict.example; ssl_protocols TLSv1.3; ... }

Fix (the protocols once at http{} level, or nginx >= 1.29.2):
    ssl_protocols TLSv1.3;
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name strict.example; ... }

Sources: nginx CHANGES 1.29.2; nginx docs server_names.html ("protocols should be specified only
for a default server"); trac #844; reproduced on the real builds in tests/lint/test_live_rules.py
(ignored on 1.22.1 and 1.26.3, honoured from 1.29.2); RFC 8446 4.1.4.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, finding, misplaced

RULE = Rule(
    code="NGX103",
    name="protocols-outside-default-server",
    severity=Severity.WARNING,
    fix="set ssl_protocols (and ssl_conf_command Ciphersuites) at http{} level, or use nginx >= 1.29.2",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_protocols", "ssl_conf_command"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for m in misplaced(ctx, ("ssl_protocols", "ssl_conf_command Ciphersuites")):
        yield finding(
            ctx,
            RULE,
            m,
            f"{m.key} here is ignored on {ctx.target.describe()}: {server_label(m.default)} is "
            f"the default server of {m.on} and decides there ({m.default_value})",
        )
