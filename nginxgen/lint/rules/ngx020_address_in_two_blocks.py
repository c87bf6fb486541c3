"""An address:port that both http{} and stream{} listen on: `nginx -t` passes, but nginx
cannot start, its listening sockets taken twice (`bind() to 127.0.0.1:443 failed (98: Address
already in use)`, then `still could not bind()`), nginx's own words.

http{} and stream{} each open their own sockets; two servers of one block share an
address:port, the blocks cannot. A stream{} that passes TLS through by name (`ssl_preread`) and
an http{} server on the same port is the usual case: the http servers belong on another
address, which the stream server passes to. Judged for the same address and port written alike
(`443` and `0.0.0.0:443` are one); a wildcard beside a specific address of the same port is left
to the kernel.

Fail:
    http {
        server { listen 127.0.0.1:8443 ssl; ... }
    }
    stream {
        server { listen 127.0.0.1:8443; ssl_preread on; proxy_pass 127.0.0.1:9443; }
    }
Fix:
    http {
        server { listen 127.0.0.1:9443 ssl; ... }
    }
    stream {
        server { listen 127.0.0.1:8443; ssl_preread on; proxy_pass 127.0.0.1:9443; }
    }

Sources: nginx src/core/ngx_connection.c (ngx_open_listening_sockets: the bind, retried five
times); found trying YunoHost's TLS passthrough as a new user (generate --into put an http
server on the stream's port); seen starting Debian 12's and 13's nginx
(tests/lint/test_two_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX020",
    name="address-in-two-blocks",
    severity=Severity.ERROR,
    fix="listen on another address or port in one of the blocks",
    triggers=("stream",),
)


def check(ctx: Context) -> Iterator[Finding]:
    families = ctx.families()
    if len(families) < 2:
        return
    http, stream = families[0].config, families[1].config
    for socket, servers in stream.sockets.items():
        others = http.sockets.get(socket)
        if not others:
            continue
        theirs = next(lst for lst in others[0].listens if lst.socket == socket).stmt
        for server in servers:
            for listen in (lst for lst in server.listens if lst.socket == socket):
                yield ctx.finding(
                    RULE,
                    listen.stmt,
                    f"{address_text(socket)} is http{{}}'s too ({theirs.file}:{theirs.line}): "
                    f"nginx -t passes, but nginx cannot start (bind() to "
                    f"{address_text(socket)} failed (98: Address already in use))",
                )
