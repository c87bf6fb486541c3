"""The variables nginx's own modules define, in http{} and stream{}, per release
(nginx_variables.json, read off nginx's sources by scripts/build_variable_tables.py): whether
the target's nginx has a name, and if not, why (its release, or a module it was built without).
Where a config defines variables of its own is nginx_values.toml's [variables]."""

from __future__ import annotations

from functools import cache, lru_cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import holds, json_file, release_index
from nginxgen.knowledge.directives import module_built

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.target import Target

FAMILIES = ("http", "stream")


@record(frozen=True)
class VariableStatus:
    """What the target's nginx makes of a variable name in http{} or stream{}.

    `has`: True when a module of its release defines the name (or a prefix family holds it)
    and the target has that module, None when whether it has the module is not known (no
    `nginx -V`), False otherwise. `module`: the module that would define it where the target
    lacks it (`ngx_http_geoip_module`). `releases`: the first and the last release that define
    it (last None: to the newest known), when some release does."""

    has: bool | None
    module: str | None = None
    releases: tuple[str, str | None] | None = None


def _table() -> dict[str, Any]:
    return json_file("nginx_variables")


@cache
def _prefixes(family: str) -> tuple[str, ...]:
    """The names of the prefix families, longest first (nginx takes the longest)."""
    table = _table()[family]
    found = {name for name, entries in table.items() if any(e.get("prefix") for e in entries)}
    return tuple(sorted(found, key=len, reverse=True))


def _entries(family: str, name: str) -> list[dict[str, Any]]:
    """The entries that define the name: its own, else those of the longest prefix family
    that holds it in some release."""
    table = _table()[family]
    own: list[dict[str, Any]] = table.get(name, [])
    if own:
        return own
    for prefix in _prefixes(family):
        if name.startswith(prefix) and len(name) > len(prefix):
            return [e for e in table[prefix] if e.get("prefix")]
    return []


@lru_cache(maxsize=4096)  # bounded: names come from the text being edited (the language server)
def _status(version: str, family: str, name: str, target: Target) -> VariableStatus:
    entries = _entries(family, name)
    if not entries:
        return VariableStatus(False)
    releases = _table()["releases"]
    at = release_index(tuple(releases), version)
    here = [e for e in entries if holds(e["ranges"], at)]
    if not here:
        first = min(f for e in entries for f, _ in e["ranges"])
        ends = [end for e in entries for _, end in e["ranges"]]
        last = None if None in ends else releases[max(i for i in ends if i is not None) - 1]
        return VariableStatus(False, releases=(releases[first], last))
    built = [module_built(target, e["module"]) for e in here]
    if True in built:
        return VariableStatus(True)
    if None in built:
        return VariableStatus(None)
    return VariableStatus(False, module=here[0]["module"])


def variable_status(target: Target, family: str, name: str) -> VariableStatus:
    """Whether the target's nginx defines `$name` in http{} or stream{} (`family`); names
    compare in lower case, as nginx's ngx_http_get_variable_index writes them."""
    return _status(str(target.nginx), family, name.lower(), target)


def defined_in_some_release(name: str) -> bool:
    """Whether some nginx release defines the name in http{} or stream{} (its own or by a
    prefix family): a name of nginx's, not a config's."""
    return any(_entries(family, name.lower()) for family in FAMILIES)
