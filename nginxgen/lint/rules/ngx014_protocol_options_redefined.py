"""A listen whose protocol parameters say otherwise than the earlier listens of its address:
`nginx -t` warns `protocol options redefined for 0.0.0.0:443`.

nginx opens one socket per address:port and ORs the protocol parameters of every listen of it
(`ssl`, `http2`, `proxy_protocol`; in stream{} `ssl` and `proxy_protocol`) into that socket: a
server that leaves one out still gets it. From nginx 1.23.4 it warns where a listen's parameters
differ from those the address had, in reading order (ngx_http_add_addresses: one added after
another listen of the address set the socket's options or changed its protocols, one left out
after the address's protocols were settled). The common case: trees that mix the old `listen 443
ssl http2;` with `listen 443 ssl;` plus `http2 on;` (nginx 1.25.1's way), e.g. a site added
beside h5bp's templates.

Fail:
    http {
        server { listen 8443 ssl http2 default_server; server_name a.example; ssl_certificate a.pem; ssl_certificate_key a.key; }
        server { listen 8443 ssl http2; server_name b.example; ssl_certificate b.pem; ssl_certificate_key b.key; }
        server { listen 8443 ssl; http2 on; server_name c.example; ssl_certificate c.pem; ssl_certificate_key c.key; }
    }
Fix (every listen of the address with the same parameters; HTTP/2 with `http2 on;`):
    http {
        server { listen 8443 ssl default_server; http2 on; server_name a.example; ssl_certificate a.pem; ssl_certificate_key a.key; }
        server { listen 8443 ssl; http2 on; server_name b.example; ssl_certificate b.pem; ssl_certificate_key b.key; }
        server { listen 8443 ssl; http2 on; server_name c.example; ssl_certificate c.pem; ssl_certificate_key c.key; }
    }

Sources: nginx src/http/ngx_http.c and src/stream/ngx_stream.c (ngx_http_add_addresses,
ngx_stream_add_addresses: "check for conflicting protocol options"), nginx CHANGES 1.23.4; the
release in nginxgen/knowledge/nginx_values.toml [listen]; seen with nginx -t on Debian 12's and
13's nginx and nginx 1.31.3 (tests/lint/test_default_server_live.py), found trying h5bp's
server configs as a new user.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.base.version import Version
from nginxgen.conf.config import Config, redefined_protocols
from nginxgen.conf.per_name import by_name
from nginxgen.knowledge import nginx_values
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._grammar import refused_listens

RULE = Rule(
    code="NGX014",
    name="protocol-options-redefined",
    severity=Severity.WARNING,
    fix=(
        "give every listen of the address the same ssl, http2 and proxy_protocol parameters "
        "(HTTP/2 from nginx 1.25.1: `http2 on;` in each server, none on the listens)"
    ),
    triggers=("listen",),
)


def check(ctx: Context) -> Iterator[Finding]:
    grammar = nginx_values.custom_grammars().listen
    if ctx.target.nginx < Version(grammar.protocols_again_since):
        return
    for family in ctx.families():
        if by_name(family):
            yield from _redefined(ctx, family.config)


def _redefined(ctx: Context, config: Config) -> Iterator[Finding]:
    grammar = nginx_values.custom_grammars().listen
    # a listen nginx refuses (`invalid parameter "http3"`, NGX009/NGX010) stops nginx -t there,
    # before it adds the addresses: the warning never comes, and its advice would mislead
    # (trial 13: `listen ... http3` beside `listen ... ssl`)
    refused = refused_listens(ctx)
    for socket, servers in config.sockets.items():
        listens = [lst for s in servers for lst in s.listens if lst.socket == socket]
        if any(id(lst.stmt) in refused for lst in listens):
            continue
        for index in redefined_protocols([lst.stmt.args for lst in listens], config.block):
            message = grammar.protocols_again.format(socket=address_text(socket))
            # the listen's handler warns as it adds the address (ngx_http_add_listen): at the
            # line's end; a server with no listen gets *:80 from ngx_http_core_server once its
            # block is read, so that warning names the server's `}` (the implicit listen's
            # end_line, conf.config.build)
            yield ctx.finding(RULE, listens[index].stmt, f"{message}: nginx -t warns", handled=True)
