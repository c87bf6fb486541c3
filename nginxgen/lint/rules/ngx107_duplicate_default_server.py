"""Two servers both marked `default_server` for the same address:port.

nginx refuses the configuration: `a duplicate default server for 0.0.0.0:443`.

Fail:
    server { listen 443 ssl default_server; server_name a.example; ... }
    server { listen 443 ssl default_server; server_name b.example; ... }
Fix (default_server on one server only):
    server { listen 443 ssl default_server; server_name a.example; ... }
    server { listen 443 ssl; server_name b.example; ... }

The same in stream{} servers (default_server since nginx 1.25.5).

Sources: nginx ngx_http_core_module and ngx_stream_core_module (listen); nginx -t: "a duplicate
default server".
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import Config
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX107",
    name="duplicate-default-server",
    severity=Severity.ERROR,
    fix="keep default_server on one listen per address:port",
)


def check(ctx: Context) -> Iterator[Finding]:
    for config in (f.config for f in ctx.families()):
        yield from _duplicates(ctx, config)


def _duplicates(ctx: Context, config: Config) -> Iterator[Finding]:
    """http{} servers and stream{} ones (stream's default_server since nginx 1.25.5) alike."""
    for listen, first in config.repeated_listens(lambda listen: listen.default):
        yield ctx.finding(
            RULE,
            listen.stmt,
            f"a duplicate default server for {address_text(listen.socket)} (the first is at "
            f"{first.stmt.file}:{first.stmt.line}): nginx refuses this",
        )
