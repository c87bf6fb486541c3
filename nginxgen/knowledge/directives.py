"""nginx's directives as its sources define them, per release (nginx_directives.json, from the
`ngx_command_t` arrays; third_party_directives.json for common third-party modules), and which
directives take a block (directives.json, as real builds answered)."""

from __future__ import annotations

import json
from functools import cache, lru_cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import holds, json_file, json_file_by_line, release_index

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.builds import Target


@record(frozen=True)
class DirectiveEntry:
    """One definition of a directive (nginx_directives.json): where nginx allows it, how many
    arguments it takes, whether it opens a block, how its value is read."""

    module: str
    contexts: frozenset[str]  # main, events, http, server, location, ... or any
    args: str | tuple[int, ...]  # counts, or flag / any / 1more / 2more
    block: bool
    value: str | None  # flag, size, msec, sec, num: nginx's own setter reads it
    third_party: str | None = None  # the module's repository, for a third-party module
    # its setter refuses a second line in one block (`"NAME" directive is duplicate`)
    duplicate: bool = False
    # nginx takes the line and warns: obsolete (ignored; "" or the directive to use instead),
    # deprecated (still works; the directive to use instead)
    obsolete: str | None = None
    deprecated: str | None = None

    def allows(self, context: str) -> bool:
        return context in self.contexts or "any" in self.contexts

    def takes(self, count: int) -> bool:
        if self.args == "any":
            return True
        if self.args == "flag":
            return count == 1
        if self.args == "1more":
            return count >= 1
        if self.args == "2more":
            return count >= 2
        return count in self.args


def _entry(data: dict[str, Any], third_party: str | None = None) -> DirectiveEntry:
    args = data["args"]
    return DirectiveEntry(
        data["module"],
        frozenset(data["contexts"]),
        args if isinstance(args, str) else tuple(args),
        data["block"],
        data.get("value"),
        third_party,
        data.get("duplicate", False),
        data.get("obsolete"),
        data.get("deprecated"),
    )


def _table() -> dict[str, Any]:
    """nginx_directives.json without its directives: releases, commits, modules."""
    return json_file_by_line("nginx_directives", "directives")[0]


def _lines() -> dict[str, str]:
    """Each directive's entries in nginx_directives.json, as JSON text not yet decoded."""
    return json_file_by_line("nginx_directives", "directives")[1]


@lru_cache(maxsize=4096)  # bounded: names come from the text being edited (the language server)
def _definitions(name: str) -> list[dict[str, Any]] | None:
    """The entries of a directive in nginx_directives.json, each decoded when first asked."""
    text = _lines().get(name)
    if text is None:
        return None
    entries: list[dict[str, Any]] = json.loads(text)
    return entries


@lru_cache(maxsize=4096)  # bounded: names come from the text being edited (the language server)
def _release_entries(version: str, name: str) -> tuple[DirectiveEntry, ...] | None:
    entries = _definitions(name)
    if entries is None:
        return None
    at = release_index(tuple(_table()["releases"]), version)
    return tuple(_entry(e) for e in entries if holds(e["ranges"], at))


def nginx_directive(target: Target, name: str) -> tuple[DirectiveEntry, ...] | None:
    """The definitions of a directive in the target's nginx release, those of modules the
    target is known to lack left out; None when no module of that release has the name."""
    known = _seen_for(target)
    try:
        return known[name]
    except KeyError:
        pass
    entries = _release_entries(str(target.nginx), name)
    found = (
        tuple(e for e in entries if module_built(target, e.module) is not False)
        if entries
        else None
    )
    if len(known) < 4096:  # bounded: names come from the text being edited (the language server)
        known[name] = found
    return found


# nginx_directive's answers for the last target asked about: a lint asks about each statement
# of the tree several times (the grammar, NGX302, ...), always for one target (2,000 vhosts:
# 32,000 calls, a third of a second where each was worked out again)
_last: list[tuple[Target, dict[str, tuple[DirectiveEntry, ...] | None]]] = []


def _seen_for(target: Target) -> dict[str, tuple[DirectiveEntry, ...] | None]:
    if _last and _last[0][0] is target:
        return _last[0][1]
    for index, (other, known) in enumerate(_last):
        if other == target:
            _last.insert(0, _last.pop(index))
            return known
    known = {}
    _last.insert(0, (target, known))
    del _last[8:]
    return known


def warned_of(target: Target, name: str) -> str | None:
    """nginx's warning of a directive it takes but calls obsolete or deprecated in the target's
    release, in its words (None: none): `the "http2_push" directive is obsolete, ignored`."""
    for entry in nginx_directive(target, name) or ():
        if entry.obsolete is not None:
            if entry.obsolete:
                return (
                    f'the "{name}" directive is obsolete, use the "{entry.obsolete}" directive '
                    "instead"
                )
            return f'the "{name}" directive is obsolete, ignored'
        if entry.deprecated is not None:
            return (
                f'the "{name}" directive is deprecated, use the "{entry.deprecated}" directive '
                "instead"
            )
    return None


def refused_twice(target: Target, name: str, context: str) -> bool:
    """Whether the target's nginx refuses this directive given twice in one block of this
    context (`"try_files" directive is duplicate`): its setter, read from nginx's source
    (scripts/build_directive_tables.py), returns "is duplicate" once the value is set."""
    entries = nginx_directive(target, name) or ()
    return any(e.duplicate for e in entries if e.allows(context))


def directive_first_release(name: str) -> str | None:
    """The first nginx release that has a directive (nginx_directives.json)."""
    entries = _definitions(name)
    if not entries:
        return None
    first = min(start for e in entries for start, _ in e["ranges"])
    return str(_table()["releases"][first])


def module_built(target: Target, module: str) -> bool | None:
    """Whether the target's nginx has one of its own modules: from `nginx -V` when the target
    came from a binary (None: not known; modules without a configure option are always in)."""
    info = _table()["modules"].get(module)
    if info is not None and info.get("platform"):  # another system's event module
        return None if target.modules is None else False
    family = module.split("_")[1]  # ngx_stream_ssl_module needs stream itself
    if family in ("stream", "mail") and target.modules is not None and family not in target.modules:
        return False
    if info is None or not info["option"] or target.modules is None:
        return True if info is None or not info["option"] else None
    key = info["option"].removeprefix("--with-").removeprefix("--without-").removesuffix("_module")
    if info["default"]:
        return key not in (target.without or frozenset())
    return key in target.modules


@cache
def own_module_files() -> frozenset[str]:
    """The file names nginx's own modules have when built as loadable ones
    (`ngx_http_geoip_module.so`): any other `load_module` file is a third-party module."""
    return frozenset(f"{name}.so" for name in _table()["modules"])


def known_in_some_release(name: str) -> bool:
    return name in _lines()


@cache
def _third_party() -> dict[str, tuple[DirectiveEntry, ...]]:
    out: dict[str, list[DirectiveEntry]] = {}
    for repo, data in json_file("third_party_directives")["modules"].items():
        for name, entries in data["directives"].items():
            out.setdefault(name, []).extend(_entry(e, repo) for e in entries)
    return {name: tuple(entries) for name, entries in out.items()}


def third_party_directive(name: str) -> tuple[DirectiveEntry, ...]:
    """Definitions of the name in the common third-party modules (headers-more, lua, njs, ...)."""
    return _third_party().get(name, ())


def added_folders(added: frozenset[str]) -> frozenset[str]:
    """The folder names in nginx -V's --add-module paths, lower-cased (`njs-0.9.9/nginx`:
    njs-0.9.9 and nginx): where a module's project is recognised."""
    return frozenset(part.lower() for path in added for part in path.strip("/").split("/"))


def project_built(repo: str, folders: frozenset[str]) -> bool:
    """Whether one of these folders is the repository's project, as a build names it: its name,
    or its name and a version (`echo-nginx-module-0.65` for openresty/echo-nginx-module)."""
    project = repo.rsplit("/", 1)[-1].lower()
    return any(folder == project or folder.startswith(f"{project}-") for folder in folders)


def built_variables(added: frozenset[str]) -> dict[str, tuple[str, bool]] | None:
    """The variables the third-party modules nginx -V lists register by name (not those they
    make for a directive's argument), `family name` -> (name, prefix): None unless each
    --add-module path is a module of third_party_directives.json whose variables were read."""
    modules = json_file("third_party_directives")["modules"]
    found: dict[str, tuple[str, bool]] = {}
    for path in added:
        folders = added_folders(frozenset([path]))
        known = [m for repo, m in modules.items() if project_built(repo, folders)]
        if not known or any(m.get("variables") is None for m in known):
            return None
        for module in known:
            for v in module["variables"]:
                found[f"{v['family']} {v['name']}"] = (v["name"], bool(v.get("prefix")))
    return found


@record(frozen=True)
class DirectiveShapes:
    """Which directives take a block, as real nginx builds answered (directives.json); for a
    name none of them answered for (ssl_conf_command and ssl_alpn were missed by the probes,
    other modules are not built there), the NGX_CONF_BLOCK flag of its `ngx_command_t` entries
    in nginx's source, where every release agrees: nginx refuses a `{` after a directive
    without it (issue 36: a `;` lost before a block)."""

    block: frozenset[str]
    simple: frozenset[str]
    mixed: dict[str, dict[str, str]]  # name -> enclosing block ("(top)" at a file's top) -> kind
    free_content: frozenset[str]  # blocks that hold values, not directives (map, types, ...)

    def kind(self, name: str, parent: str | None) -> str | None:
        """`block`, `simple`, or None when unknown (another module's directive, or a name whose
        kind depends on an enclosing block we cannot see)."""
        if name in self.simple:
            return "simple"
        if name in self.block:
            return "block"
        by_parent = self.mixed.get(name)
        if by_parent is None:
            return _source_kind(name)
        kind = by_parent.get(parent or "(top)")
        return kind if kind in ("block", "simple") else None


@cache
def directive_shapes() -> DirectiveShapes:
    """The builds' answers (directives.json)."""
    data = json_file("directives")
    return DirectiveShapes(
        block=frozenset(data["block"]),
        simple=frozenset(data["simple"]),
        mixed=dict(data["mixed"]),
        free_content=frozenset(data["free_content"]),
    )


@lru_cache(maxsize=4096)  # bounded: names come from the text being edited (the language server)
def _source_kind(name: str) -> str | None:
    """`block` or `simple` when every source entry of the name agrees, else None."""
    kinds = {bool(e["block"]) for e in _definitions(name) or ()}
    if len(kinds) != 1:
        return None
    return "block" if kinds.pop() else "simple"
