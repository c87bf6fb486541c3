"""What every part of planning shares: the list of refusals, the suppression comment for findings
the user chose, and whether the target's nginx has a directive."""

from __future__ import annotations

import re

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
    """Every reason a model cannot work on its target, raised together. A policy value a preset
    set (`policy_from`: key -> preset; `presets`: the one chosen, then those it extends) is
    the preset's, not the user's: its refusal says which preset and how to keep it."""

    def __init__(
        self,
        target: Target,
        presets: list[str] | None = None,
        policy_from: dict[str, str] | None = None,
    ) -> None:
        self.target = target
        self.presets = presets or []
        self.policy_from = policy_from or {}
        self.items: list[str] = []

    def add(self, path: str, value: object, why: str, instead: str) -> None:
        key = re.match(r"policy\.(\w+)", path)
        setter = self.policy_from.get(key[1]) if key else None
        if key is None or setter is None or not self.presets:
            self.items.append(
                f"{path}: {value!r} cannot work on {self.target.describe()}: {why}; {instead}"
            )
            return
        self.items.append(
            f"{path}: the {setter} preset's {value!r} cannot work on {self.target.describe()}: "
            f"{why}; {self._keep(setter, f'policy.{key[1]}', instead)}"
        )

    def lacks(self, path: str, value: object, needs: str, instead: str) -> None:
        """A value that needs another field set, on any target."""
        self.items.append(f"{path}: {value!r} needs {needs}; {instead}")

    def _keep(self, setter: str, field: str, instead: str) -> str:
        """How to keep the chosen preset on this target: a --config file that extends it and
        sets the field (another preset may have the same value: `nginxgen presets` shows them)."""
        chosen = self.presets[0]
        return (
            f"keep {chosen} with a --config file (extends: {chosen}) that sets {field}: "
            f"{instead}; or choose another preset (nginxgen presets)"
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
