"""An access log whose format nginx does not know when it reads the line: `nginx -t` stops with
`unknown log format "default"`, `log format is not specified` or `duplicate "log_format" name
"main"`, nginx's own words.

`access_log PATH NAME;` looks NAME up, in any letter case, among the formats of its block's
log module as read so far: http{} knows `combined` from the start, stream{} knows none, and each
`log_format` line (at the block's main level) adds one. A format defined after the line that
uses it is unknown there, and `access_log PATH;` means `combined` in http{} but is refused in
stream{}. A second `log_format` of a name (in exact case; `combined` included) is refused too.
`access_log off;` names none; a syslog: target's format counts as a file's does. Judged
only where the whole tree is read, up to the first include that could not be read: a file alone
may use a format its nginx.conf defines.

Fail:
    http {
        log_format main '$remote_addr "$request" $status';
        server { listen 8080; access_log logs/access.log default; return 204; }
    }
Fix:
    http {
        log_format main '$remote_addr "$request" $status';
        server { listen 8080; access_log logs/access.log main; return 204; }
    }

Sources: nginx src/http/modules/ngx_http_log_module.c (ngx_http_log_create_main_conf,
ngx_http_log_set_log, ngx_http_log_set_format) and src/stream/ngx_stream_log_module.c, cited in
nginxgen/knowledge/nginx_values.toml [[log_formats]]; seen with nginx -t on Debian 12's and 13's
nginx and nginx 1.31.3 (tests/lint/test_log_format_live.py), found trying public configs as a new
user (a vhost's `access_log ... default;` where no format of that name exists).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx_values
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX016",
    name="unknown-log-format",
    severity=Severity.ERROR,
    fix="define the format with log_format at the block's top, before the lines that use it, "
    "or name one that is defined (combined in http{})",
    triggers=("access_log", "log_format"),
)
BLOCKS = frozenset({"http", "stream", "mail"})  # the main level's blocks
WATCHED = frozenset({"access_log", "log_format", "include"})


def check(ctx: Context) -> Iterator[Finding]:
    loaded = ctx.config.loaded
    formats = nginx_values.custom_grammars().log_formats
    # the main level's statements: which block a statement of the flat, reading-order list is
    # in, without walking the tree again (a line at the main level is NGX008's)
    top = {id(s) for s in loaded.statements}
    if not any(s.directive in ("http", "stream", "events") for s in loaded.statements):
        return  # a file alone: its nginx.conf may define the formats it uses
    grammar: nginx_values.LogFormats | None = None
    names: set[str] = set()  # as defined (a second definition is refused in exact case)
    lower: set[str] = set()  # as looked up
    for stmt in ctx.all_statements():
        directive = stmt.directive
        if directive in BLOCKS:
            if id(stmt) in top:
                grammar = formats.get(directive)
                names = set(grammar.builtin) if grammar else set()
                lower = {name.lower() for name in names}
        elif grammar is None or directive not in WATCHED or id(stmt) in top:
            continue
        elif stmt.unread:
            grammar = None  # a format may be defined in what could not be read
        elif directive == "log_format" and stmt.args:
            name = stmt.args[0]
            if name in names:
                yield ctx.finding(RULE, stmt, grammar.duplicate.format(name=name),
                                  "give this log_format a name of its own",
                                  handled=True)  # fmt: skip
            names.add(name)
            lower.add(name.lower())
        elif directive == "access_log" and stmt.args and stmt.args[0] != "off":
            yield from _used(ctx, stmt, grammar, lower)


def _used(
    ctx: Context, stmt: Stmt, grammar: nginx_values.LogFormats, lower: set[str]
) -> Iterator[Finding]:
    """What nginx says of the format an access_log line names (or implies)."""
    if len(stmt.args) < 2:
        if not grammar.implied:
            yield ctx.finding(RULE, stmt, grammar.unspecified,
                              "name a log_format after the path", handled=True)  # fmt: skip
    elif stmt.args[1].lower() not in lower:
        # the setters' words (ngx_http_log_set_log, ..._set_format): at the statement's end
        yield ctx.finding(RULE, stmt, grammar.unknown.format(name=stmt.args[1]), handled=True)
