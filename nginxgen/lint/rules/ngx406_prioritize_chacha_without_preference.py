"""`ssl_conf_command Options PrioritizeChaCha` without `ssl_prefer_server_ciphers on`.

OpenSSL only applies PrioritizeChaCha when the server's cipher order is used; with client order
(nginx's default) it silently does nothing.

Fail: ssl_conf_command Options PrioritizeChaCha;
Fix:  ssl_conf_command Options PrioritizeChaCha; ssl_prefer_server_ciphers on;

Sources: OpenSSL SSL_CTX_set_options.pod (PrioritizeChaCha acts only with
ServerPreference).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX406",
    name="prioritize-chacha-without-preference",
    severity=Severity.WARNING,
    fix="ssl_prefer_server_ciphers on;",
    autofix=(
        Applicability.UNSAFE,
        "turns ssl_prefer_server_ciphers on where the option applies (the server order then decides)",
    ),
    triggers=("ssl_conf_command",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, options in ctx.options_on("PrioritizeChaCha"):
        if not flag_on(server.value("ssl_prefer_server_ciphers")):
            preference = server.effective("ssl_prefer_server_ciphers")
            yield ctx.finding(
                RULE,
                options,
                "PrioritizeChaCha has no effect without server cipher preference",
                edits=_fixes.set_args(ctx, preference[-1], ["on"])
                if preference
                else _fixes.insert_into(ctx, server.stmt, "ssl_prefer_server_ciphers on;"),
            )
