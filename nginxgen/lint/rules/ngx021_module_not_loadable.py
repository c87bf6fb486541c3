"""A `load_module` nginx cannot do: the same module loaded a second time (`module
"ngx_stream_module" is already loaded`), or a module file that is not there (`dlopen()
"/usr/share/nginx/modules/ngx_foo.so" failed (...: cannot open shared object file: No such file
or directory)`). `nginx -t` stops at that line.

nginx names a module by the module the file holds, not by the path: two lines naming one file (a
distribution's `modules-enabled/*.conf` beside a line of the main file's own) load it twice. A
relative path is read from nginx's prefix. A missing file is reported only where the tree is the
one the `--nginx-bin` binary reads (its `--conf-path` folder), as for certificate files
(NGX727): elsewhere the file may be on the server while lint runs on a machine without it.

Fail:
    load_module modules/ngx_stream_module.so;
    load_module modules/ngx_stream_module.so;
    events {}
Fix (each module once):
    load_module modules/ngx_stream_module.so;
    events {}

Sources: nginx src/core/nginx.c (ngx_load_module) and src/core/ngx_module.c (ngx_add_module);
seen with nginx -t on Debian 13's nginx (tests/lint/test_main_level_live.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from nginxgen.conf import files
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX021",
    name="module-not-loadable",
    severity=Severity.ERROR,
    fix="load each module once, from a file that is there",
    triggers=("load_module",),  # it reads nothing but these lines
)


def check(ctx: Context) -> Iterator[Finding]:
    """Both are ngx_load_module's words, said as nginx reads the line: at its end (handled)."""
    loaded = ctx.config.loaded
    seen: dict[str, Stmt] = {}
    for stmt in loaded.statements:
        if stmt.directive != "load_module" or len(stmt.args) != 1 or "$" in stmt.args[0]:
            continue
        module = os.path.basename(stmt.args[0]).removesuffix(".so")
        if module in seen:
            first = seen[module]
            where = (
                f"line {first.line}" if first.file == stmt.file else f"{first.file}:{first.line}"
            )
            yield ctx.finding(
                RULE,
                stmt,
                f'module "{module}" is already loaded ({where}): nginx -t fails',
                handled=True,
            )
            continue
        seen[module] = stmt
        # nginx's prefix: the binary's, unless relative (`--prefix=.`: the folder it runs in,
        # the tree's here) or unknown
        prefix = ctx.target.prefix
        if not prefix or not os.path.isabs(prefix):
            prefix = loaded.prefix
        full = os.path.normpath(os.path.join(prefix, stmt.args[0]))
        if ctx.target.static:
            yield ctx.finding(
                RULE,
                stmt,
                f'dlopen() "{full}" failed (Dynamic loading not supported): this nginx is '
                "linked statically (nginx -V: --with-ld-opt=-static): nginx -t fails",
                fix="remove the load_module line (use a build with the module, or one that "
                "loads modules)",
                handled=True,
            )
            continue
        absent = files.absent(loaded, stmt.args[0], ctx.target.conf_path, prefix)
        built = _built_in(ctx, module)
        if built is not None:
            # nginx opens the file before it sees the module is there: a file that is not
            # there fails first (trial 24: "already loaded" said where nginx said dlopen())
            if absent:
                why = f'dlopen() "{full}" failed (no such file)'
            elif os.path.exists(full):
                why = f'module "{module}" is already loaded'
            else:
                why = (
                    f'module "{module}" is already loaded (or, where {full} is not there, '
                    "dlopen() fails first)"
                )
            yield ctx.finding(
                RULE,
                stmt,
                f"{why}: this nginx has it built in (nginx -V: {built}): nginx -t fails",
                fix="remove the load_module line: the module is there without it",
                handled=True,
            )
            continue
        if absent:
            said = f"{full} does not exist: nginx -t fails: dlopen() failed"
            yield ctx.finding(RULE, stmt, said, handled=True)


def _built_in(ctx: Context, module: str) -> str | None:
    """nginx -V's option that built the module a file names into the binary (`ngx_stream_module`:
    --with-stream, not =dynamic): nginx then refuses to load it again, as for a second line
    (trial 21: Debian's modules-enabled/50-mod-stream.conf beside a binary with stream built
    in). None where nginx -V was not read, or the module is not one of its --with options."""
    modules, dynamic = ctx.target.modules, ctx.target.dynamic or frozenset()
    name = module.removeprefix("ngx_").removesuffix("_module")
    if modules is None or name not in modules or name in dynamic:
        return None
    return f"--with-{name}" if name in ("stream", "mail") else f"--with-{name}_module"
