"""Shared by the rules that carry an automatic fix: fixes on the lossless model of the file a
loaded statement came from, declared now and built only when wanted (findings.Fix). A built fix
is None when the statement cannot be found there (a dump, a file that changed meanwhile): the
finding then has no automatic fix."""

from __future__ import annotations

from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Applicability, Fix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.edit.edits import Edit

FileEdits = list[tuple[str, "Edit"]]


def delete(ctx: Context, stmt: Stmt) -> Fix:
    def build() -> FileEdits | None:
        from nginxgen.edit import edits

        found = ctx.locate(stmt)
        return None if found is None else [(stmt.file, edits.delete(*found))]

    return Fix((stmt.file,), build)


def set_args(ctx: Context, stmt: Stmt, args: list[str]) -> Fix:
    def build() -> FileEdits | None:
        from nginxgen.edit import edits

        found = ctx.locate(stmt)
        return None if found is None else [(stmt.file, edits.replace_args(*found, args))]

    return Fix((stmt.file,), build)


def insert_into(
    ctx: Context, block: Stmt, line: str, first: bool = False, after: Stmt | None = None
) -> Fix:
    """A new line inside the block `block` opens (a server, http{} ...): first, after the line
    `after` where that is one of the block's own lines in its file, else last."""

    def build() -> FileEdits | None:
        from nginxgen.edit import edits

        found = ctx.locate(block)
        if found is None or found[1].block is None:
            return None
        sibling = ctx.locate(after) if after is not None else None
        behind = sibling[1] if sibling is not None and sibling[1] in found[1].block else None
        return [(block.file, edits.insert(found[0], found[1], line, behind, first=first))]

    return Fix((block.file,), build)


def ssl_to_listens(ctx: Context, switch: Stmt) -> tuple[Applicability, Fix | None]:
    """`ssl on;` (deprecated in 1.15.0, refused from 1.25.1) -> the `ssl` parameter on its
    server's listens of the addresses it is the default server of, the line gone; `ssl off;`
    only goes. Before 1.25.1 `ssl on;` made TLS only the addresses whose default server has it
    (ngx_http_init_connection), every server there: a listen of another address stays plain,
    unless that address is TLS anyway. Safe: the parameter makes TLS exactly the addresses that
    were."""
    out = delete(ctx, switch)
    if not flag_on(switch.args):
        return Applicability.SAFE, out
    server = next((s for s in ctx.config.servers if switch in s.own("ssl")), None)
    if server is None:
        return Applicability.SAFE, None
    # and the addresses that are TLS anyway (another listen's `ssl`, or their default server's
    # `ssl on;`): there the parameter changes nothing but the warning a listen without it draws
    # (trial 16, kobo-docker: `protocol options redefined` after the fix)
    sockets = {
        listen.socket
        for listen in server.listens
        if ctx.config.default_server(listen.socket) is server
        or ctx.config.tls_socket(listen.socket)
    }
    written = server.own("listen")
    for listen in server.listens:
        if listen.socket not in sockets:
            continue
        if listen.stmt not in written:
            return Applicability.SAFE, None  # no listen line (*:80 implied) to carry `ssl`
        if "ssl" not in listen.stmt.args[1:]:
            out += set_args(ctx, listen.stmt, [listen.stmt.args[0], "ssl", *listen.stmt.args[1:]])
    return Applicability.SAFE, out
