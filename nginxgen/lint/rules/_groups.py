"""Reading group lists as written in ssl_ecdh_curve / ssl_conf_command Groups."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.groups import GroupEntry, parse_groups
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context

__all__ = ["GroupEntry", "group_statements", "parse_groups"]


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
