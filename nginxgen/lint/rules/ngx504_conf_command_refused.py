"""An `ssl_conf_command` the target's OpenSSL refuses: an unknown command, or a value it does
not take.

nginx hands each `ssl_conf_command NAME VALUE` to SSL_CONF_cmd() and stops when it fails
(`SSL_CONF_cmd("Options", "Bogus") failed (SSL: ... bad value)`): a command OpenSSL does not
have (`Option`, `SessionTicket`), an `Options` value it does not know in that version
(IgnoreUnexpectedEOF is not a value in 3.0; LegacyECPointFormats in none of 3.0-3.5), values
separated by spaces instead of commas, `Ciphersuites` naming no TLS 1.3 suite of the library,
`MinProtocol TLSv13`. Command names and Options values are case-insensitive, suite names are
not. What each version takes is measured with nginx -t on the real builds
(nginxgen/knowledge/tls_tables/); a version no build answers for is not judged. Groups and
Curves are NGX201/NGX202's; libraries without SSL_CONF_cmd are NGX501's.

Fail (OpenSSL 3.0): ssl_conf_command Options KTLS,IgnoreUnexpectedEOF;
Fix:  ssl_conf_command Options KTLS;

Sources: OpenSSL ssl/ssl_conf.c (ssl_conf_cmds, ssl_option_list) and SSL_CONF_cmd.pod; nginx
ngx_ssl_conf_commands(); nginx -t on the builds (scripts/build_library_tables.py;
tests/test_library_tables.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen import knowledge
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX504",
    name="conf-command-refused",
    severity="error",
    fix="use a command and value the library has (SSL_CONF_cmd(3) of its version)",
)
UNKNOWN = "unknown cmd name"


def refusal(commands: dict[str, str | None], name: str, value: str) -> str | None:
    """Why SSL_CONF_cmd refuses `name value`, judged from the measured pairs; None if taken or
    not measured. Command names compare in any case (SSL_CONF_cmd does, in file mode); values
    as measured: exactly, Options values also in any case where `Options ktls` was taken."""
    pairs = {(k.split(" ", 1)[0].lower(), k.split(" ", 1)[1]): r for k, r in commands.items()}
    if name.lower() not in {c for (c, _), r in pairs.items() if r != UNKNOWN}:
        return f"there is no command {name!r} ({UNKNOWN})"
    command = name.lower()
    if (command, value) in pairs:
        reason = pairs[(command, value)]
        return f"{name} {value!r} ({reason})" if reason else None
    if command == "options":
        any_case = pairs.get(("options", "ktls"), "") is None
        options = {
            (v.lower() if any_case else v): r for (c, v), r in pairs.items() if c == "options"
        }
        for item in (i.strip().lstrip("-") for i in value.split(",")):
            answer = options.get(item.lower() if any_case else item, "not an option")
            if answer:
                return f"Options value {item!r} ({answer})"
    if command == "ciphersuites" and value:
        suites = {v for (c, v), r in pairs.items() if c == command and r is None and ":" not in v}
        if not set(value.split(":")) & suites:
            return f"Ciphersuites {value!r} names no TLS 1.3 suite it has (no cipher match)"
    return None


def check(ctx: Context) -> Iterator[Finding]:
    table = knowledge.library_table(ctx.target.library)
    if table is None or table.conf_refused:
        return
    for stmt in ctx.all_statements():
        if not stmt.directive.endswith("ssl_conf_command") or len(stmt.args) != 2:
            continue
        name, value = stmt.args
        if name.lower() in ("groups", "curves"):
            continue
        why = refusal(table.conf_commands, name, value)
        if why:
            yield ctx.finding(RULE, stmt, f"{ctx.library()}: {why}: nginx -t fails")
