"""A server that sets its own `ssl_certificate` but listens on no TLS address: nginx -t passes and
the server answers in plain text where its certificate says TLS was meant (an MQTT port 8883 or
an HTTPS port 443 that speaks plain TCP or HTTP, which every TLS client fails on).

An address:port is TLS when any of its servers' listens there has `ssl` (or `quic`): nginx sets
the flag for the address, not the server (ngx_http_add_addresses, ngx_stream_add_addresses), so
a server with a plain `listen 443;` beside one with `listen 443 ssl;` speaks TLS and is not
reported. Nor is a server where the old `ssl on;` is in effect (until nginx 1.25.1), one with no
`listen` of its own (its certificate may be meant for a listen an include elsewhere gives) or
one whose include could not be read. Only the server's own certificate lines count: one set at
http{} or stream{} level is shared by every server, TLS or not.

Fail:
    stream { server { listen 8883; proxy_pass 127.0.0.1:1883;
                      ssl_certificate c.pem; ssl_certificate_key k.pem; } }
Fix:
    stream { server { listen 8883 ssl; proxy_pass 127.0.0.1:1883;
                      ssl_certificate c.pem; ssl_certificate_key k.pem; } }

No automatic fix: which address should speak TLS is the admin's choice (or the certificate
lines are left over and go).

Sources: nginx docs ngx_http_core_module listen (`ssl`), ngx_stream_core_module listen;
src/http/ngx_http.c ngx_http_add_addresses and src/stream/ngx_stream.c ngx_stream_add_addresses
(the ssl flag of an address); found trying public configs as a new user (trial 24: an MQTT
stream server with a certificate on a plain `listen 8883;`).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import Config, Server
from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX716",
    name="certificate-without-tls-listen",
    severity=Severity.WARNING,
    fix="add `ssl` to the listen that should speak TLS (listen 443 ssl;), or remove the "
    "certificate lines",
    triggers=("ssl_certificate",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for family in ctx.families():
        config = family.config
        for server in config.servers:
            if _plain_with_certificate(config, server):
                own = server.own("ssl_certificate")[0]
                on = ", ".join(sorted({address_text(lst.socket) for lst in server.listens}))
                yield ctx.finding(
                    RULE,
                    own,
                    f"{server_label(server)} has its own ssl_certificate but listens on no TLS "
                    f"address ({on}): it answers in plain text there, and a TLS client fails; "
                    "nginx -t passes",
                )


def _plain_with_certificate(config: Config, server: Server) -> bool:
    if not server.own("ssl_certificate") or not server.own("listen"):
        return False
    if any(s.directive == "include" and s.unread for s in server.stmt.block or []):
        return False  # an include not read may hold the listen that has `ssl`
    switched = server.effective("ssl")
    if switched and flag_on(switched[-1].args):
        return False  # `ssl on;` (until 1.25.1): every listen of the server is TLS
    # an address is TLS when any listen there has `ssl` (quic included), this server's too
    return not any(config.tls_socket(lst.socket) for lst in server.listens if not lst.udp)
