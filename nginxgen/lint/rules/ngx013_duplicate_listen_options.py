"""Two listens of one address:port that each set the socket's options: `nginx -t` stops with
`duplicate listen options for [::]:8080`.

nginx opens one socket per address:port, whatever the number of servers listening there, and
takes its options (`backlog=`, `rcvbuf=`, `sndbuf=`, `reuseport`, `deferred`, `ipv6only=`,
`so_keepalive=`, `fastopen=`, `bind`, `accept_filter=`, `setfib=`, `multipath`) from one listen.
Any of them on a second listen of the same address is refused, even when the values agree.
Configs copied server by server (one vhost file each, each with `listen [::]:443 ssl
ipv6only=on;`) meet this as soon as the second file is enabled.

Fail:
    http {
        server { listen 8080 reuseport; server_name a.example; }
        server { listen 8080 reuseport; server_name b.example; }
    }
Fix (the options on one listen of the address, usually its default server's):
    http {
        server { listen 8080 reuseport; server_name a.example; }
        server { listen 8080; server_name b.example; }
    }

The same in stream{} from nginx 1.25.5 (stream's virtual servers).

Sources: nginx src/http/ngx_http_core_module.c (ngx_http_core_listen sets `lsopt.set` for those
parameters) and src/http/ngx_http.c (ngx_http_add_addresses: "duplicate listen options"), the
list in nginxgen/knowledge/nginx_values.toml [listen]; seen with nginx -t on Debian 12's and 13's
nginx (tests/lint/test_default_server_live.py), found trying Drupal's perusio config as a new user.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import Config
from nginxgen.conf.per_name import by_name
from nginxgen.knowledge import nginx_values
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX013",
    name="duplicate-listen-options",
    severity=Severity.ERROR,
    fix="set the socket's options on one listen of the address (its default server's)",
    triggers=("listen",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for family in ctx.families():
        # before stream's virtual servers one address:port took one stream server: a second
        # listen of it is another error there
        if by_name(family):
            yield from _duplicates(ctx, family.config)


def _duplicates(ctx: Context, config: Config) -> Iterator[Finding]:
    grammar = nginx_values.custom_grammars().listen
    for listen, first in config.repeated_listens(lambda lst: grammar.sets_options(lst.stmt.args)):
        yield ctx.finding(
            RULE,
            listen.stmt,
            f"{grammar.options_again.format(socket=address_text(listen.socket))} (the first is at "
            f"{first.stmt.file}:{first.stmt.line}): nginx refuses this",
            # the listen's handler adds the address (ngx_http_add_listen): at the line's end
            handled=True,
        )
