"""What every part of planning shares: the list of refusals, the suppression comment for findings
the user chose, and whether the target's nginx has a directive."""

from __future__ import annotations

from nginxgen import knowledge
from nginxgen.errors import ValidationError
from nginxgen.records import record
from nginxgen.target import Target


@record
class ListenLine:
    """A `listen` line the generator writes, as its arguments (the config model's Listen is
    what a tree's line means; this is what to write)."""

    args: list[str]


@record
class IgnoreComment:
    """Findings the user asked for, told to the linter as the comment above a line (what the
    linter reads as a suppression with its reason)."""

    codes: list[str]
    reasons: list[str]

    def add(self, code: str, reason: str) -> None:
        self.codes.append(code)
        self.reasons.append(reason)

    def __str__(self) -> str:
        return f"nginxgen: ignore[{','.join(self.codes)}] {'; '.join(self.reasons)}"


class Problems:
    """Every reason a model cannot work on its target, raised together."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.items: list[str] = []

    def add(self, path: str, value: object, why: str, instead: str) -> None:
        self.items.append(
            f"{path}: {value!r} cannot work on {self.target.describe()}: {why}; {instead}"
        )

    def raise_if_any(self) -> None:
        if self.items:
            raise ValidationError("\n".join(self.items))


def directive_ok(target: Target, name: str, table: str = "directive") -> bool:
    """Whether the target's nginx takes a directive nginx.toml has a release range for."""
    status = knowledge.directive_status(target, name, table)
    return status is not None and status.available


def directive_in(target: Target, name: str, context: str) -> bool:
    """Whether the target's nginx release has `name` in `context` (server, location,
    stream_server ...), by the per-release directive tables; modules the target is known to
    lack left out."""
    entries = knowledge.nginx_directive(target, name) or ()
    return any(context in entry.contexts for entry in entries)


def switch(
    value: str, possible: bool, problems: Problems, where: str, why: str, instead: str
) -> bool:
    """An on/auto/off policy setting on this target: `on` where it cannot work is a problem
    (`why`, `instead`), `auto` is on where it can."""
    if value == "on" and not possible:
        problems.add(where, "on", why, instead)
    return value != "off" and possible
