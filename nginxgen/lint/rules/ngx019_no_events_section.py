"""A main file without an events{} block: `nginx -t` stops with `no "events" section in
configuration`, nginx's own words, naming no line.

nginx's event module needs its block at the main level, even an empty `events {}`. Judged on a
file that is nginx's main file: named nginx.conf, or with a main-level setting beside its blocks
(`user`, `worker_processes`, `pid`, `load_module`, ...), including what its top-level includes
bring. Not on a file that holds http{} alone (a part another nginx.conf includes, as
Mozilla's configurator writes it): its main file may have the block. The finding is on the main
file's first line.

Fail:
    worker_processes 1;
    http {
        server { listen 8080; return 204; }
    }
Fix:
    worker_processes 1;
    events {}
    http {
        server { listen 8080; return 204; }
    }

Sources: nginx src/event/ngx_event.c (ngx_event_init_conf); seen with nginx -t on Debian 12's
and 13's nginx and nginx 1.31.3 (tests/lint/test_main_level_live.py), found trying certbot's
test configs as a new user.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX019",
    name="no-events-section",
    severity=Severity.ERROR,
    fix="add `events {}` at the main file's top level",
)

# what a file may hold at its top and still be a part another main file includes
BLOCKS = frozenset({"http", "stream", "mail", "#"})


def check(ctx: Context) -> Iterator[Finding]:
    loaded = ctx.config.loaded
    if loaded.http_level_top or loaded.fragment or not loaded.statements:
        return
    if any(stmt.unread for stmt in loaded.statements):
        return  # an include not read may hold the block
    if any(stmt.directive == "events" for stmt in loaded.statements):
        return
    named = os.path.basename(loaded.files[0]) == "nginx.conf" if loaded.files else False
    if not named and all(stmt.directive in BLOCKS for stmt in loaded.statements):
        return  # http{} alone: a part of a tree whose main file is elsewhere
    first = loaded.statements[0]
    where = Stmt("events", [], 1, loaded.files[0] if loaded.files else first.file)
    yield ctx.finding(RULE, where, 'no "events" section in configuration: nginx -t fails')
