"""Shared by the rules that carry an automatic fix: edits on the lossless model of the file a
loaded statement came from. Each returns None when the statement cannot be found there (a dump,
a file that changed meanwhile): the finding then has no automatic fix."""

from __future__ import annotations

from nginxgen.edit import edits
from nginxgen.lint.context import Context
from nginxgen.lint.load import Stmt

FileEdits = list[tuple[str, edits.Edit]]


def delete(ctx: Context, stmt: Stmt) -> FileEdits | None:
    found = ctx.locate(stmt)
    if found is None:
        return None
    return [(stmt.file, edits.delete(*found))]


def set_args(ctx: Context, stmt: Stmt, args: list[str]) -> FileEdits | None:
    found = ctx.locate(stmt)
    if found is None:
        return None
    return [(stmt.file, edits.replace_args(*found, args))]


def insert_into(ctx: Context, block: Stmt, line: str, first: bool = False) -> FileEdits | None:
    """A new line inside the block `block` opens (a server, http{} ...)."""
    found = ctx.locate(block)
    if found is None or found[1].block is None:
        return None
    return [(block.file, edits.insert(found[0], found[1], line, first=first))]
