"""Reading group lists as written in ssl_ecdh_curve / ssl_conf_command Groups, and whether the
target's library takes each name."""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.conf.groups import GroupEntry, parse_groups
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import tls_groups
from nginxgen.knowledge.target import Library
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Fix
from nginxgen.lint.rules import _fixes

__all__ = [
    "GroupEntry",
    "group_entries",
    "group_statements",
    "parse_groups",
    "renamed",
    "successor",
    "verdict",
]

KEYWORDS = {"auto", "default"}


def group_statements(ctx: Context) -> Iterator[tuple[Stmt, str]]:
    """Every statement that sets a group list, with the list text."""
    for stmt in ctx.named("ssl_ecdh_curve", "ssl_conf_command"):
        if stmt.directive == "ssl_ecdh_curve" and stmt.args:
            yield stmt, stmt.args[0]
        elif (
            stmt.directive == "ssl_conf_command"
            and len(stmt.args) >= 2
            and stmt.args[0].lower() in ("groups", "curves")
        ):
            yield stmt, stmt.args[1]


def group_entries(ctx: Context) -> Iterator[tuple[Stmt, GroupEntry]]:
    """Every entry of every group list, with its statement."""
    for stmt, text in group_statements(ctx):
        for entry in parse_groups(text):
            yield stmt, entry


def verdict(library: Library, entry: GroupEntry) -> str:
    """What the library does with one entry of a group list:
    "keyword" (auto, DEFAULT: not a group), "skipped" (`?name` the library ignores when it does
    not know it), "accepted", "refused" (a build of this library refused the name although
    groups.toml has it: the measured answer wins), "unknown" (no library has such a group),
    "unavailable" (this library or version lacks the group) or "spelling" (it has the group under
    another spelling). A build's answer (knowledge/tls_tables) decides first: it is what nginx -t
    did."""
    if entry.name.lower() in KEYWORDS or not entry.name:
        return "keyword"
    measured = tls_groups.group_name_accepted(library, entry.name)
    if measured:
        return "accepted"
    if "?" in entry.prefixes and tls_groups.group_syntax(library, "question"):
        return "skipped"
    group = tls_groups.find_group(entry.name)
    if group is None:
        return "unknown"
    if not group.available(library):
        return "unavailable"
    if not tls_groups.group_accepts_spelling(group, entry.name, library):
        return "spelling"
    return "refused" if measured is False else "accepted"


def successor(library: Library, group: tls_groups.Group) -> str | None:
    """The standard name a draft group becomes, spelled for the library, where the library has
    it (None: no successor, or one the library lacks)."""
    found = tls_groups.find_group(group.replacement) if group.replacement else None
    return found.spell(library) if found is not None and found.available(library) else None


def renamed(ctx: Context, stmt: Stmt, entry: GroupEntry, name: str | None) -> Fix | None:
    """The statement with this one entry of its group list renamed (prefixes, separators and
    every other entry as written), or dropped with its separator when `name` is None."""
    index = 0 if stmt.directive == "ssl_ecdh_curve" else 1
    parts = re.split(r"([:/])", stmt.args[index])
    for at, part in enumerate(parts):
        if part.strip() != entry.raw:
            continue
        if name is not None:
            parts[at] = part.replace(entry.raw, entry.prefixes + name)
        elif len(parts) == 1:
            return None  # the only group: nothing would be left
        else:
            del parts[at - 1 if at else at : at + (1 if at else 2)]
        break
    else:
        return None
    args = list(stmt.args)
    args[index] = "".join(parts)
    return _fixes.set_args(ctx, stmt, args)
