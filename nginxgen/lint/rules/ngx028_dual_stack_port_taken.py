"""A listen on IPv4's wildcard of a port (`listen 443;`, `listen 0.0.0.0:443;`) where another
listen of the tree is `[::]:443` with `ipv6only=off`: that socket answers IPv4 too, so nginx
cannot open the second one. `nginx -t` passes, but nginx does not start: `bind() to
0.0.0.0:443 failed (98: Address already in use)`, then `still could not bind()`, nginx's own
words. Judged across http{} and stream{} (their sockets are the kernel's alike) for TCP
listens; a server without a listen line listens on `*:80`.

A dual-stack default server (`listen [::]:80 ipv6only=off default_server;`) beside a site's
plain `listen 80;` is the usual case: either every server listens on `[::]:PORT` (which the
dual-stack socket gives IPv4 clients too), or the option goes and each family has its own
listen.

Fail:
    http {
        server { listen [::]:80 ipv6only=off default_server; return 444; }
        server { listen 80; server_name a.example; return 204; }
    }
Fix:
    http {
        server { listen [::]:80 ipv6only=off default_server; return 444; }
        server { listen [::]:80; server_name a.example; return 204; }
    }

Sources: nginx docs ngx_http_core_module.html#listen (ipv6only); src/core/ngx_connection.c
(ngx_open_listening_sockets: the bind, retried five times); found trying za3k's devops tree as
a new user (trial 18); seen starting Debian 12's and 13's nginx
(tests/lint/test_two_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import dual_stack_ports
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX028",
    name="dual-stack-port-taken",
    severity=Severity.ERROR,
    fix="listen on [::]:PORT in every server of that port (the dual-stack socket takes IPv4 "
    "too), or drop ipv6only=off and give each family its own listen",
    triggers=("listen",),
)


def check(ctx: Context) -> Iterator[Finding]:
    servers = [server for family in ctx.families() for server in family.config.servers]
    dual = dual_stack_ports(servers)
    if not dual:
        return
    for server in servers:
        for listen in server.listens:
            theirs = dual.get(listen.socket)
            if theirs is None or listen.udp or listen.quic:
                continue
            v4 = address_text(listen.socket)
            yield ctx.finding(
                RULE,
                listen.stmt,
                f"{theirs.socket} ipv6only=off ({theirs.stmt.file}:{theirs.stmt.line}) answers "
                f"IPv4 too: nginx -t passes, but nginx cannot start (bind() to {v4} failed "
                "(98: Address already in use))",
            )
