"""Shared by the default-server rules: compare a vhost's own setting with its default server's."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import NameModel, lines_of
from nginxgen.knowledge.equal_values import same_value
from nginxgen.lint.context import Context, Rule, block_fix
from nginxgen.lint.findings import Applicability, Finding, Fix
from nginxgen.lint.rules import _fixes

# How the default-server rules fix: never by deleting the ignored line. It says something other
# than what is in effect (else there is no finding), so it is the one trace of what the user
# wanted there; deleting it keeps behaviour and loses that intent (a vhost's post-quantum
# groups, silently gone). Making it take effect changes what clients get: unsafe.
MOVE_TO_DEFAULT = (
    Applicability.UNSAFE,
    "no safe fix: the ignored line is the only record of what was wanted there; with "
    "--unsafe-fixes, moves its value into the default server that decides (for every name on "
    "that address; the line stays where its server also listens on another TLS address, and "
    "nothing moves into a default server that listens on another one)",
)


@record
class Misplaced:
    socket: str
    key: str
    stmt: Stmt
    default: Server
    why: str
    default_value: str
    server: Server  # the server whose line it is
    config: Config  # the model of its block: http{}'s, or stream{}'s
    also: tuple[str, ...] = ()  # other addresses where the same default server ignores it

    @property
    def on(self) -> str:
        """The addresses, as a finding names them: `*:443`, or `*:443 and [::]:443`."""
        return " and ".join((self.socket, *self.also))


def _text(stmt: Stmt | None, key: str) -> str:
    if stmt is None:
        return "not set"  # shown in parentheses
    args = stmt.args[1:] if key.startswith("ssl_conf_command ") else stmt.args
    return " ".join(args)


def vhost_models(ctx: Context) -> Iterator[tuple[str, Server, NameModel, Config]]:
    """(socket, server, the config model of its names there, the model of its block) for each
    server that is not the default of a TLS address it listens on, in http{} servers and in
    stream{} ones (with stream's knowledge of what the default server decides). Made once per
    lint: the default-server rules (NGX101-NGX110) each ask for every vhost."""

    def make() -> list[tuple[str, Server, NameModel, Config]]:
        return [
            (socket, server, NameModel(block, socket, None, server, default), block.config)
            for block in ctx.families()
            for socket, default, others in block.tls_sockets()
            for server in others
        ]

    return iter(ctx.memo("vhost models", make))


def misplaced(ctx: Context, keys: tuple[str, ...]) -> Iterator[Misplaced]:
    """Settings a non-default server makes that the target ignores there: the ignored lines of
    the config model's answer for that server's names (nginxgen/conf/per_name.py). A line
    ignored on several addresses in favour of the same default server's value is one
    Misplaced naming them all (`also`): a vhost on *:443 and [::]:443, over TCP and QUIC, is
    one line to change, not four findings."""
    return merged(_each_socket(ctx, keys))


def merged(each: Iterable[Misplaced]) -> Iterator[Misplaced]:
    """Misplaced lines of each address, one per line and default server (misplaced)."""
    seen: dict[tuple[int, str, int, str], Misplaced] = {}
    for m in each:
        key = (id(m.stmt), m.key, id(m.default), m.default_value)
        first = seen.get(key)
        if first is None:
            seen[key] = m
        elif m.socket != first.socket and m.socket not in first.also:
            first.also = (*first.also, m.socket)
    yield from seen.values()


def _each_socket(ctx: Context, keys: tuple[str, ...]) -> Iterator[Misplaced]:
    for socket, server, model, config in vhost_models(ctx):
        for key in keys:
            if key not in model.decided:
                continue
            entry = model.decided[key]
            answer = model.setting(key)
            in_effect = answer.line
            for ignored in answer.ignored:
                stmt = ignored.line
                value = _text(stmt, key)
                if in_effect is not None and same_value(stmt.directive, stmt.args, in_effect.args):
                    continue  # the same setting, however it is spelled (1440m and 1d)
                if entry.only_value and value != entry.only_value:
                    continue
                yield Misplaced(
                    socket, key, stmt, model.default, entry.why, _text(in_effect, key), server,
                    config,
                )  # fmt: skip


def finding(ctx: Context, rule: Rule, m: Misplaced, message: str) -> Finding:
    """A default-server rule's finding on an ignored line: the rule's fix text for the block of
    the line, and the unsafe move into the default server as its edit (MOVE_TO_DEFAULT)."""
    return ctx.finding(
        rule, m.stmt, message, edits=_move_to_default(ctx, m), fix=block_fix(rule.fix, m.config)
    )


def _on_another_tls_socket(config: Config, server: Server, sockets: tuple[str, ...]) -> bool:
    return any(
        lst.socket not in sockets and config.tls_socket(lst.socket) for lst in server.listens
    )


def _move_to_default(ctx: Context, m: Misplaced) -> Fix | None:
    """The unsafe fix: the default server, which decides for every name on the address:port,
    takes the vhost's value, and the vhost's line goes. A line that also speaks for another TLS
    address is never dropped or overwritten: the vhost's stays when the vhost listens there too,
    and nothing moves into a default server that does. No fix where the address's vhosts want
    different values (one default server cannot give both) or for ssl_conf_command. The
    addresses are all those the finding names (`also`): the same default server decides the
    line on each, so moving it there answers for them all (IPv4 and IPv6, TCP and QUIC)."""
    if m.key.startswith("ssl_conf_command "):
        return None  # several lines of one directive: not automatic yet
    on = (m.socket, *m.also)
    if _on_another_tls_socket(m.config, m.default, on):
        return None
    # The other vhosts' lines of the same value go with this one: once the default server
    # decides with it, they say what is in effect. Left behind, each would be moved again in a
    # pass of its own, and a rule that mends the moved value (NGX401 on `TLSv1`) would make them
    # differ again: the fix loop never settled on a fleet of such vhosts.
    same: list[Stmt] = []
    for socket in on:
        for other in m.config.sockets.get(socket, []):
            own = lines_of(other, m.key, own=True) if other not in (m.server, m.default) else []
            if own and not same_value(m.stmt.directive, own[-1].args, m.stmt.args):
                # Another vhost of this address wants another value: one default server
                # cannot give both, and moving either would drop the other's line with its
                # intent.
                return None
            if own and own[-1] not in same and not _on_another_tls_socket(m.config, other, on):
                same.append(own[-1])
    if not _on_another_tls_socket(m.config, m.server, on):
        same.insert(0, m.stmt)
    dropped = [_fixes.delete(ctx, stmt) for stmt in same]
    own = lines_of(m.default, m.key, own=True)
    if own:
        return sum(dropped, _fixes.set_args(ctx, own[-1], m.stmt.args))

    def copy() -> _fixes.FileEdits | None:  # the vhost's line as written, comment and all
        found = ctx.locate(m.stmt)
        if found is None:
            return None
        line = found[0].data[found[1].start : found[1].end].decode("utf-8", "surrogateescape")
        return _fixes.insert_into(ctx, m.default.stmt, line, first=True).build()

    return sum(dropped, Fix((m.default.stmt.file,), copy))


def protocols_in_effect(ctx: Context) -> set[int] | None:
    """The ssl_protocols lines (by id) that decide for some TLS name: each TLS address's default
    server's line (its own, or the block's it inherits), and for each other server there the
    line the config model says is in effect for its names: its own where the target honours a
    vhost's protocols (nginx 1.29.2 on), else the default server's. None: the tree has no TLS
    server (a snippet linted alone), so no line can be told unused. An http{} line every TLS
    server overrides changes nothing (trial 10, mynode), and a vhost's own line the default
    server overrides enables and switches off nothing (trial 11, F10: NGX103 said it was
    ignored, and s_client got TLS 1.3 where NGX409 said it was off); NGX103 speaks for it."""

    return lines_in_effect(ctx, "ssl_protocols")  # NGX401 and NGX409 both ask


def lines_in_effect(ctx: Context, key: str) -> set[int] | None:
    """The lines (by id) of a setting the default server decides that are in effect for some
    TLS name: each TLS address's default server's, and each other server's there as the config
    model answers for its names. None: the tree has no TLS server."""

    def compute() -> set[int] | None:
        lines: set[int] = set()
        found = False
        for family in ctx.families():
            for _, default, _ in family.tls_sockets():
                found = True
                stmts = default.effective(key)
                if stmts:
                    lines.add(id(stmts[-1]))
        for _, _, model, _ in vhost_models(ctx):
            line = model.setting(key).line
            if line is not None:
                lines.add(id(line))
        return lines if found else None

    return ctx.memo(f"in effect: {key}", compute)


def ignored_lines(ctx: Context, key: str) -> set[int]:
    """The lines (by id) of the setting that NGX101-NGX105 say are ignored, and that are in
    effect for no name on any address: what they mean for clients is nobody's."""

    def compute() -> set[int]:
        said = {id(m.stmt) for m in misplaced(ctx, (key,))}
        return said - (lines_in_effect(ctx, key) or set()) if said else set()

    return ctx.memo(f"ignored: {key}", compute)
