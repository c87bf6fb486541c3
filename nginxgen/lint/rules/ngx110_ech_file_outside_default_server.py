"""`ssl_ech_file` in a server that is not the default server of its address:port: it decrypts
nothing. OpenSSL decrypts the Encrypted Client Hello with the keys of the connection's context,
the default server's, before nginx chooses the server by the (inner) name, and the retry configs
a client with a stale key gets are the default server's too.

Fail:
    server { listen 443 ssl default_server; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ssl_ech_file ech.pem; ... }
Fix (ssl_ech_file at http{} level, or in the default server):
    ssl_ech_file ech.pem;
    server { listen 443 ssl default_server; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ... }

Sources: nginx src/event/ngx_event_openssl.c ngx_ssl_ech_files() (SSL_CTX_set1_echstore on each
server's context); nginx 1.30.4 and 1.31.4 with OpenSSL 4.0.3, scripts/ech_nginx_proof.py
(vhost-only, both-differ, public-vhost-only; docs/live-verification.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, finding, misplaced

RULE = Rule(
    code="NGX110",
    name="ech-file-outside-default-server",
    severity=Severity.WARNING,
    fix="set ssl_ech_file at http{} level or in the default server",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_ech_file",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for m in misplaced(ctx, ("ssl_ech_file",)):
        yield finding(
            ctx,
            RULE,
            m,
            f"ssl_ech_file here decrypts nothing: {server_label(m.default)} is the default server "
            f"of {m.on} and its keys decide Encrypted Client Hello there ({m.default_value})",
        )
