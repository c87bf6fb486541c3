"""A value nginx's own setter cannot read: `nginx -t` stops with `invalid value "yes" in
"ssl_session_tickets" directive, it must be "on" or "off"`, or `"ssl_buffer_size" directive
invalid value`.

Flags take on or off (any letter case); sizes a number with k or m; times a number with units in
falling order (1h30m; y and M only in settings kept in seconds, ms only in those kept in
milliseconds; a last bare number is seconds); numbers digits. Only directives whose value nginx
reads with its generic setters are judged.

Fail: ssl_session_tickets yes;
Fix:  ssl_session_tickets on;

Sources: nginx src/core/ngx_conf_file.c (ngx_conf_set_flag_slot, ngx_conf_set_size_slot,
ngx_conf_set_msec_slot, ngx_conf_set_sec_slot, ngx_conf_set_num_slot); src/core/ngx_parse.c
(ngx_parse_size, ngx_parse_time).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules._grammar import findings

RULE = Rule(
    code="NGX010",
    name="invalid-value",
    severity="error",
    fix="write a value nginx reads: on or off, a size like 16k or 1m, a time like 10m or 1d",
)


def check(ctx: Context) -> Iterator[Finding]:
    return findings(ctx, RULE)
