"""What `nginx -t` checks of each directive before it reads a file or resolves a name
(ngx_conf_handler and nginx's own value setters): the name is known to the target's release,
it is allowed in the block it stands in, its definition takes that many arguments, and a value
nginx's setters read parses (_values: flags, sizes, times, numbers and bounds, enum and bitmask
names, and the custom setters TLS configs meet). Shared by NGX007-NGX010, with
nginx's own wording; the tables are knowledge/nginx_directives.json, read off nginx's sources.

Where a directive stands is followed from the main file's top (`main`) through events, http,
server, location, if, limit_except, upstream, stream and mail blocks. A file that is a snippet
(no events, http, stream or mail at its top) is checked for names and argument counts only:
which block includes it is not known. Blocks whose content is values (map, types, geo, ...) or
that belong to modules nginx does not describe are not looked into.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt
from nginxgen.knowledge import directives, nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._values import Refusal, merge_refusals, refusal, unmet_requirements
from nginxgen.records import field, record

# (enclosing context, block directive) -> the context inside it
CHILD = {
    ("main", "events"): "events", ("main", "http"): "http", ("main", "stream"): "stream",
    ("main", "mail"): "mail", ("http", "server"): "server", ("stream", "server"): "stream_server",
    ("mail", "server"): "mail_server", ("http", "upstream"): "upstream",
    ("stream", "upstream"): "stream_upstream", ("server", "location"): "location",
    ("location", "location"): "location", ("server", "if"): "if_server",
    ("location", "if"): "if_location", ("location", "limit_except"): "limit_except",
}  # fmt: skip
MAIN_BLOCKS = {"events", "http", "stream", "mail"}


@record(frozen=True)
class Verdict:
    stmt: Stmt
    code: str  # NGX007 unknown, NGX008 not allowed here, NGX009 argument count, NGX010 value
    message: str
    severity: Severity
    fix: str | None = None


def verdicts(ctx: Context) -> list[Verdict]:
    return ctx.memo("grammar", lambda: list(_judge(ctx)))


def findings(ctx: Context, rule: Rule) -> Iterator[Finding]:
    """The findings of one of the four rules: each reads its own code's verdicts."""
    for verdict in verdicts(ctx):
        if verdict.code == rule.code:
            yield ctx.finding(rule, verdict.stmt, verdict.message, verdict.fix, verdict.severity)


def _judge(ctx: Context) -> list[Verdict]:
    loaded = ctx.config.loaded
    top = {s.directive for s in loaded.statements}
    # a snippet's own lines may be meant for http{}, a server or a location: not judged there
    first = "main" if top & MAIN_BLOCKS else None
    free = directives.directive_shapes().free_content
    out: list[Verdict] = []
    stack: list[tuple[list[Stmt], str | None]] = [(loaded.statements, first)]
    memo = _Memo()
    while stack:
        statements, context = stack.pop()
        for stmt in statements:
            verdict = _one(ctx, stmt, context, memo)
            if verdict is not None:
                out.append(verdict)
            if stmt.block is None or stmt.directive in free:
                continue
            inner = CHILD.get((context, stmt.directive)) if context else None
            if inner is None and context is None:  # a snippet: its servers are http servers
                inner = {"server": "server", "location": "location"}.get(stmt.directive)
            if inner is not None:
                stack.append((stmt.block, inner))
    if first == "main" and not ctx.target.plus:  # merged settings: the whole tree is needed
        met = {(v.stmt.file, v.stmt.line) for v in out}
        for stmt, message in unmet_requirements(loaded.statements):
            if (stmt.file, stmt.line) not in met:
                met.add((stmt.file, stmt.line))
                fix = "set the trusted certificates, or turn the verification off"
                out.append(Verdict(stmt, "NGX010", message, Severity.ERROR, fix))
        for stmt, message, fix in merge_refusals(loaded.statements, ctx.target):
            if (stmt.file, stmt.line) not in met:
                met.add((stmt.file, stmt.line))
                out.append(Verdict(stmt, "NGX010", message, Severity.ERROR, fix))
    return out


@record
class _Memo:
    """What one pass has judged already: a fleet's tree repeats the same few dozen directives,
    and most of their lines, thousands of times."""

    definitions: dict[str, tuple[directives.DirectiveEntry, ...] | None] = field(
        default_factory=dict
    )
    refusals: dict[
        tuple[str, tuple[str, ...], frozenset[str], frozenset[str | None]], Refusal | None
    ] = field(default_factory=dict)


def _one(ctx: Context, stmt: Stmt, context: str | None, memo: _Memo) -> Verdict | None:
    name = stmt.directive
    if ctx.target.plus or name == "#":
        return None  # NGINX Plus has directives of its own that no source describes
    if name not in memo.definitions:
        memo.definitions[name] = directives.nginx_directive(ctx.target, name)
    entries = memo.definitions[name]
    if not entries:
        if nginx.known_names("directive") and name in nginx.known_names("directive"):
            return None  # NGX301 says why this release lacks it
        third = directives.third_party_directive(name)  # read only when nginx's own tables fail
        if third:
            return _third_party(stmt, third)
        backport = nginx.backports().get(name)
        if backport is not None:
            message = (
                f'unknown directive "{name}" before nginx {backport.since}, unless the '
                f"package backports it ({backport.packages})"
            )
            return Verdict(stmt, "NGX007", message, Severity.WARNING)
        return Verdict(stmt, "NGX007", f'unknown directive "{name}"', Severity.ERROR)
    if context is not None:
        here = [e for e in entries if e.allows(context)]
        if not here:
            third = directives.third_party_directive(name)
            if any(e.allows(context) for e in third):
                return _third_party(stmt, third)
            return Verdict(
                stmt, "NGX008", f'"{name}" directive is not allowed here', Severity.ERROR
            )
    else:
        here = list(entries)
    shaped = [e for e in here if e.block == (stmt.block is not None)]
    if not shaped:
        return None  # a block where a `;` belongs or the reverse: NGX001 says so
    count = len(stmt.args)
    taking = [e for e in shaped if e.takes(count)]
    if not taking:
        message = f'invalid number of arguments in "{name}" directive'
        return Verdict(stmt, "NGX009", message, Severity.ERROR)
    return _value(ctx, stmt, taking, memo)


def _value(
    ctx: Context, stmt: Stmt, taking: list[directives.DirectiveEntry], memo: _Memo
) -> Verdict | None:
    modules = frozenset(e.module for e in taking)
    kinds = frozenset(e.value for e in taking)
    key = (stmt.directive, tuple(stmt.args), modules, kinds)
    if key not in memo.refusals:
        memo.refusals[key] = refusal(ctx.target, stmt, modules, set(kinds))
    refused = memo.refusals[key]
    if refused is None:
        return None
    fix = f'nginx does not read "{refused.value}": write a value "{stmt.directive}" takes'
    return Verdict(stmt, "NGX010", refused.message, Severity.ERROR, fix)


def _third_party(stmt: Stmt, third: tuple[directives.DirectiveEntry, ...]) -> Verdict:
    repo = third[0].third_party
    return Verdict(
        stmt,
        "NGX007",
        f'"{stmt.directive}" is a directive of the third-party module {third[0].module} '
        f"({repo}): nginx -t fails unless this nginx has that module",
        Severity.INFO,
        f"build or load {third[0].module} ({repo}), or remove the line",
    )
