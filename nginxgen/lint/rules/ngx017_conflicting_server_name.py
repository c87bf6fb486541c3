"""Two servers of one address:port give the same server name: `nginx -t` warns `conflicting
server name "app.example" on 0.0.0.0:443, ignored`, nginx's own words, and requests for that
name go to the first server only.

Where more than one server listens on an address:port, nginx puts their names in one hash, in
the order it met the servers, lower-cased: a name already there is ignored with this warning,
once per name and address (a server on 0.0.0.0:443 and [::]:443 draws two). An exact name
conflicts with the same name or a `.name` before it; `.name` with `name`, `.name` or `*.name`
before it; `*.name` with `.name` or `*.name`; `name.*` with the same `name.*`. Regular
expressions (`~...`) never conflict; a server without server_name has the name "" (two such
servers on an address conflict). In stream{} from nginx 1.25.5, where servers share an address
by name. nginx names no line: this rule names the later server's server_name line (its listen
line for the name ""). `$hostname` stands for the machine's name, which lint does not know: two
servers giving it conflict (nginx prints that name), and the message says `$hostname`. A server
without listen is on 0.0.0.0:80 when nginx runs as root (0.0.0.0:8000 as any other user: the
message says so). Not judged: `$hostname` beside the machine's name written out, a server whose
server_name or listen an unread include may set, and an address given as a host name (nginx
prints the addresses it resolves to).

Fail:
    http {
        server { listen 8080; server_name app.example; return 204; }
        server { listen 8080; server_name app.example; return 404; }
    }
Fix:
    http {
        server { listen 8080; server_name app.example; return 204; }
        server { listen 8080; server_name old.example; return 404; }
    }

Sources: nginx src/http/ngx_http.c (ngx_http_server_names), src/core/ngx_hash.c
(ngx_hash_add_key), src/http/ngx_http_core_module.c (ngx_http_core_server_name) and their
stream{} twins, cited in nginxgen/knowledge/nginx_values.toml [server_names]; seen with nginx -t
on Debian 12's and 13's nginx and nginx 1.31.3 (tests/lint/test_server_names_live.py), found
trying public configs as a new user.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import Config
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import by_name
from nginxgen.knowledge import nginx_values
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._server_names import hashed, printable

RULE = Rule(
    code="NGX017",
    name="conflicting-server-name",
    severity=Severity.WARNING,
    fix="give the name to one server of the address (remove it from the other's server_name)",
    triggers=("server",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for family in ctx.families():
        if by_name(family):  # before 1.25.5 two stream servers of an address are a duplicate
            yield from _conflicts(ctx, family.config)


def _conflicts(ctx: Context, config: Config) -> Iterator[Finding]:
    message = nginx_values.custom_grammars().server_name_conflict
    for socket, servers in config.sockets.items():
        if len(servers) < 2 or not printable(socket, servers):
            continue  # one server: nginx builds no hash of names for the address
        implied = any(not server.own("listen") for server in servers)
        user = " (run as root; 0.0.0.0:8000 as another user)" if implied else ""
        first: dict[str, Stmt] = {}
        for stmt, name, taken in hashed(servers, socket):
            earlier = first.setdefault(name, stmt)
            if taken:
                text = message.format(name=name, address=address_text(socket))
                fix = None
                if earlier is not stmt and (earlier.file, earlier.line) == (stmt.file, stmt.line):
                    # one line read twice: its file is included twice (trial 24: the advice
                    # named "the other server", and there was none)
                    fix = (
                        f"{stmt.file} is read twice (included twice, as nginx reads it for "
                        "each include): remove one of the includes"
                    )
                yield ctx.finding(RULE, stmt, f"{text}{user}: nginx -t warns", fix)
