"""What every part of planning shares: the list of refusals, the suppression comment for findings
the user chose, and whether the target's nginx has a directive."""

from __future__ import annotations

import re

from nginxgen.base.errors import ValidationError
from nginxgen.base.records import record
from nginxgen.generate.presets import KeyLines, Loc
from nginxgen.knowledge import directives, nginx
from nginxgen.knowledge.target import Target


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

    # Each one names the model path it is about; with the site file's `lines`, it starts with
    # the file and the line of that key, where the file has it (a site's key set under `site:`
    # is found there).

    def __init__(
        self,
        target: Target,
        lines: KeyLines | None = None,
        presets: list[str] | None = None,
        policy_from: dict[str, str] | None = None,
    ) -> None:
        self.target = target
        self.lines = lines
        self.presets = presets or []
        self.policy_from = policy_from or {}
        self.items: list[str] = []

    def add(self, path: str, value: object, why: str, instead: str) -> None:
        """`value` at `path` cannot work on the target: `why`, and what to use `instead`."""
        on = self.target.describe()
        key = re.match(r"policy\.(\w+)", path)
        setter = self.policy_from.get(key[1]) if key else None
        if key is None or setter is None or not self.presets:
            self.refuse(path, f"{value!r} cannot work on {on}: {why}; {instead}")
            return
        keep = self._keep(f"policy.{key[1]}", instead)
        self.refuse(path, f"the {setter} preset's {value!r} cannot work on {on}: {why}; {keep}")

    def lacks(self, path: str, value: object, needs: str, instead: str) -> None:
        """A value that needs another field set, on any target."""
        self.refuse(path, f"{value!r} needs {needs}; {instead}")

    def refuse(self, path: str, message: str) -> None:
        """A problem with the key at `path`, said in full by `message`."""
        where = self.locate(path)
        self.items.append(f"{where}: {path}: {message}" if where else f"{path}: {message}")

    def locate(self, path: str) -> str | None:
        """`file:line` of the key at `path` in the site file, or None where it has none."""
        return locate(self.lines, path)

    def _keep(self, field: str, instead: str) -> str:
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
    status = nginx.directive_status(target, name, table)
    return status is not None and status.available


def directive_in(target: Target, name: str, context: str) -> bool:
    """Whether the target's nginx release has `name` in `context` (server, location,
    stream_server ...), by the per-release directive tables; modules the target is known to
    lack left out."""
    entries = directives.nginx_directive(target, name) or ()
    return any(context in entry.contexts for entry in entries)


def switch(
    value: str, possible: bool, problems: Problems, where: str, why: str, instead: str
) -> bool:
    """An on/auto/off policy setting on this target: `on` where it cannot work is a problem
    (`why`, `instead`), `auto` is on where it can."""
    if value == "on" and not possible:
        problems.add(where, "on", why, instead)
    return value != "off" and possible


def locate(lines: KeyLines | None, path: str) -> str | None:
    """`file:line` of the key at model path `path` in the site file whose keys are `lines`, or
    None where it has none (a site's key set under `site:` is found there)."""
    if lines is None:
        return None
    loc = key_loc(path)
    found = lines.where(loc)
    if found is None and loc[:1] == ("sites",) and len(loc) > 2:
        found = lines.where(("site", *loc[2:]))  # the defaults every site takes
    return found


def key_loc(path: str) -> Loc:
    """A model path as messages write it (`sites[0].upstream.url`, `policy.groups[2]`; pydantic's
    `sites.0.domains` too) as the site file's key path: ("sites", 0, "upstream", "url")."""
    loc: list[int | str] = []
    for part in path.split("."):
        name, *indexes = part.replace("]", "").split("[")
        if name:
            loc.append(int(name) if name.isdigit() else name)
        loc.extend(int(index) for index in indexes if index.isdigit())
    return tuple(loc)
