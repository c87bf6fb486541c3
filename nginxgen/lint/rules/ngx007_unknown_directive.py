"""A directive no module of the target's nginx release has: `nginx -t` stops with
`unknown directive "..."`.

The names come from nginx's own sources, release by release (knowledge/nginx_directives.json,
made by scripts/build_directive_tables.py from every ngx_command_t array). With `--nginx-bin`
the modules the binary was built without (`nginx -V`) count as absent too, and so does a module
it has as a loadable file (`--with-stream=dynamic`, `--with-mail=dynamic`, as Debian builds
them) where no `load_module` line of the tree loads that file. A directive of a
common third-party module (headers-more, lua, njs, brotli, geoip2, vts, ModSecurity, pagespeed)
is an info naming the module: whether this nginx has it is not known from the text. A directive
a distribution's package carries before its nginx release (`max_headers`, in Debian 12's
1.22.1 and 13's 1.26.3) is a warning where the target could be that package (its nginx release
and library branch), and an error elsewhere (nginx 1.28.3 with OpenSSL 3.6, 1.26.3 with
BoringSSL).

Fail: add_heder Strict-Transport-Security "max-age=63072000" always;
Fix:  add_header Strict-Transport-Security "max-age=63072000" always;

Sources: nginx src/core/ngx_conf_file.c ngx_conf_handler() ("unknown directive"); the
ngx_command_t arrays of github.com/nginx/nginx at each release tag.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._grammar import findings

RULE = Rule(
    code="NGX007",
    name="unknown-directive",
    severity=Severity.ERROR,
    fix="check the spelling, or load the module that has it",
    otherwise=(
        (
            Severity.WARNING,
            "a later nginx release has it and the target could be a package that backported it",
        ),
        (
            Severity.INFO,
            "a third-party module has it (nginx -t fails unless this nginx has that module)",
        ),
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    return findings(ctx, RULE)
