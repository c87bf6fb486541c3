"""Shared by the rules that carry an automatic fix: fixes on the lossless model of the file a
loaded statement came from, declared now and built only when wanted (findings.Fix). A built fix
is None when the statement cannot be found there (a dump, a file that changed meanwhile): the
finding then has no automatic fix."""

from __future__ import annotations

from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Fix

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


def insert_into(ctx: Context, block: Stmt, line: str, first: bool = False) -> Fix:
    """A new line inside the block `block` opens (a server, http{} ...)."""

    def build() -> FileEdits | None:
        from nginxgen.edit import edits

        found = ctx.locate(block)
        if found is None or found[1].block is None:
            return None
        return [(block.file, edits.insert(found[0], found[1], line, first=first))]

    return Fix((block.file,), build)
