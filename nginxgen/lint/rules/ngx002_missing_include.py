"""An `include` of a file that does not exist (or cannot be read). nginx refuses the config
(`open() ... failed`). An include glob that matches nothing is fine, for nginx and here.

nginx reads a relative include from its conf prefix, the folder of the main file (nginx.conf),
wherever the including file lies. A file linted alone that is not a main file (a vhost of
sites-enabled/ or conf.d/) has its relative includes read from the folder of the target's
nginx.conf (`nginx -V`'s --conf-path) when it lies inside it, else from the nearest folder at
most three up that holds an nginx.conf, else from its own folder; an include not found there
is a warning, since the main file that includes it may lie elsewhere.

Sources: nginx ngx_conf_include().
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import replace
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX002",
    name="missing-include",
    severity=Severity.ERROR,
    fix="create the file or fix the path",
    otherwise=(
        (
            Severity.WARNING,
            "the file is linted alone, not from its main file: where nginx would find a "
            "relative include depends on the main file's folder",
        ),
    ),
    triggers=("include",),  # the load's problems of this kind come from these lines only
)


def check(ctx: Context) -> Iterator[Finding]:
    loaded = ctx.config.loaded
    if not loaded.fragment:
        yield from ctx.load_problems(RULE, "missing-include")
        return
    for finding in ctx.load_problems(RULE, "missing-include"):
        yield replace(
            finding,
            severity=Severity.WARNING,
            message=f"{finding.message} (read from {loaded.prefix}: this file is linted alone, "
            "and nginx reads a relative include from its main file's folder)",
            fix="lint the main file (or --root it), or give --prefix with the folder of the "
            "main file",
        )
