"""Reading group lists as written in ssl_ecdh_curve / ssl_conf_command Groups."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context
from nginxgen.lint.load import Stmt
from nginxgen.records import record


@record(frozen=True)
class GroupEntry:
    raw: str
    name: str
    prefixes: str  # any of "?", "*", "-"
    tuple_index: int


def group_statements(ctx: Context) -> Iterator[tuple[Stmt, str]]:
    """Every statement that sets a group list, with the list text."""
    for stmt in ctx.all_statements():
        if stmt.directive == "ssl_ecdh_curve" and stmt.args:
            yield stmt, stmt.args[0]
        elif (
            stmt.directive == "ssl_conf_command"
            and len(stmt.args) >= 2
            and stmt.args[0].lower() in ("groups", "curves")
        ):
            yield stmt, stmt.args[1]


def parse_groups(text: str) -> list[GroupEntry]:
    entries = []
    for index, part in enumerate(text.split("/")):
        for raw in part.split(":"):
            raw = raw.strip()
            if not raw:
                continue
            name = raw.lstrip("?*-")
            entries.append(GroupEntry(raw, name, raw[: len(raw) - len(name)], index))
    return entries
