"""What every part of planning shares: the list of refusals, and whether the target's nginx has
a directive."""

from __future__ import annotations

from nginxgen.errors import ValidationError
from nginxgen.generate.presets import KeyLines, Loc
from nginxgen.knowledge import directives, nginx
from nginxgen.records import record
from nginxgen.target import Target


@record
class ListenLine:
    """A `listen` line the generator writes, as its arguments (the config model's Listen is
    what a tree's line means; this is what to write)."""

    args: list[str]


class Problems:
    """Every reason a model cannot work on its target, raised together."""

    # Each one names the model path it is about; with the site file's `lines`, it starts with
    # the file and the line of that key, where the file has it (a site's key set under `site:`
    # is found there).

    def __init__(self, target: Target, lines: KeyLines | None = None) -> None:
        self.target = target
        self.lines = lines
        self.items: list[str] = []

    def add(self, path: str, value: object, why: str, instead: str) -> None:
        """`value` at `path` cannot work on the target: `why`, and what to use `instead`."""
        self.refuse(path, f"{value!r} cannot work on {self.target.describe()}: {why}; {instead}")

    def refuse(self, path: str, message: str) -> None:
        """A problem with the key at `path`, said in full by `message`."""
        where = self.locate(path)
        self.items.append(f"{where}: {path}: {message}" if where else f"{path}: {message}")

    def locate(self, path: str) -> str | None:
        """`file:line` of the key at `path` in the site file, or None where it has none."""
        if self.lines is None:
            return None
        loc = key_loc(path)
        found = self.lines.where(loc)
        if found is None and loc[:1] == ("sites",) and len(loc) > 2:
            found = self.lines.where(("site", *loc[2:]))  # the defaults every site takes
        return found

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
