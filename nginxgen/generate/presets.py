"""Presets: YAML files in `presets/`, validated by the same models; one may extend another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import yaml

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.base.resources import data_dir
from nginxgen.generate.models import PRESET_KEYS, Site, SiteFile, pydantic_problems


@record(frozen=True)
class PresetInfo:
    name: str
    summary: str
    path: Path


@record(frozen=True)
class SiteText:
    """A site file given as its text (the in-process API, the browser page), read wherever a
    site file's Path is read; messages name it `name`, as they name a file by its path."""

    name: str
    text: str

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.text

    def __str__(self) -> str:
        return self.name


SiteSource = Path | SiteText  # a site file on disk, or given as text


def preset_dir() -> Path:
    return data_dir("presets")


def list_presets() -> list[PresetInfo]:
    infos = []
    for path in sorted(preset_dir().glob("*.yaml")):
        data = read_yaml(path)
        infos.append(PresetInfo(path.stem, str(data.get("summary", "")), path))
    return infos


def read_yaml(path: SiteSource) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NginxgenError(f"cannot read: {exc.strerror}", where=str(path)) from None
    except UnicodeDecodeError:
        raise NginxgenError("not UTF-8 text", where=str(path)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise NginxgenError(str(problem), where=where) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise NginxgenError("expected a mapping at the top level", where=str(path))
    return data


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; anything else (lists included) is replaced."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def resolve_extends(
    data: dict[str, Any], path: SiteSource, preset: bool, chain: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Merge `data` over the preset it extends (recursively); `chain` is the presets so far."""
    check_site_file(data, path, preset)
    parent = data.get("extends")
    if parent is None:
        return data
    base = load_preset(str(parent), chain)
    own = {
        k: v for k, v in data.items() if k not in ("extends", "summary", "description", "source")
    }
    return merge(base, own)


def check_site_file(data: dict[str, Any], path: SiteSource, preset: bool = False) -> None:
    """Check a site file against SiteFile, the model `nginxgen schema` prints; the first
    problem is one line: file:line: where: what (an unknown key names the nearest known one)."""
    try:
        SiteFile.model_validate(data)
    except pydantic.ValidationError as err:
        first = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")[0]
        loc = tuple(first["loc"])
        where = f"{path}:{_line(path, loc)}" if _line(path, loc) else str(path)
        if first["type"] != "extra_forbidden":
            raise NginxgenError(pydantic_problems(err).splitlines()[0], where=where) from None
        raise NginxgenError(_unknown_key(loc), where=where) from None
    extra = sorted(set(data) - PRESET_KEYS) if preset else []
    if extra:
        raise NginxgenError(f"a preset has no {extra[0]!r} (only a --config file)", where=str(path))


def _unknown_key(loc: tuple[int | str, ...]) -> str:
    from nginxgen.base.spelling import nearest

    key = str(loc[-1])
    if loc == ("preset",):
        return "unknown key 'preset': a site file names its preset with extends: (extends: modern)"
    known = _model_at(loc[:-1]).model_fields
    place = ".".join(str(part) for part in loc)
    if loc[:-1] == ("site",) and key in Site.model_fields:
        # a key of one site given as a default for all: say where it goes
        return (
            f"{place}: {key!r} is set per site, not for every site under site:; put it in "
            f"each entry of sites: (sites: [{{domains: [...], {key}: ...}}])"
        )
    return f"{place}: unknown key {key!r}; did you mean {nearest(key, known)!r}?"


def _model_at(loc: tuple[int | str, ...]) -> type[pydantic.BaseModel]:
    """The model that holds the keys at `loc` (list indexes skipped)."""
    import typing

    model: type[pydantic.BaseModel] = SiteFile
    for part in loc:
        if isinstance(part, int) or part not in model.model_fields:
            continue
        todo: list[Any] = [model.model_fields[part].annotation]
        while todo:
            kind = todo.pop()
            if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
                model = kind
                break
            todo.extend(typing.get_args(kind))
    return model


Loc = tuple[int | str, ...]  # a key's path in a site file: ("policy", "groups", 0)


@record(frozen=True)
class KeyLines:
    """The line of every key and list item of a site file, by its path, for messages that
    name a key of the file (a mapping key: the key's line; a list item: the item's line)."""

    path: SiteSource
    lines: dict[Loc, int]

    def nearest(self, loc: Loc) -> int | None:
        """The line of `loc`, or of the nearest key above it that the file has."""
        for end in range(len(loc), 0, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return None

    def where(self, loc: Loc) -> str | None:
        """`file:line` of exactly `loc`, or None where the file does not have it (a value from
        the preset, the command line or a default)."""
        line = self.lines.get(loc)
        return None if line is None else f"{self.path}:{line}"


def key_lines(path: SiteSource) -> KeyLines:
    """Every key's line in the YAML file at `path` (none where it does not parse)."""
    lines: dict[Loc, int] = {}
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return KeyLines(path, lines)
    todo: list[tuple[Loc, yaml.Node | None]] = [((), root)]
    while todo:
        loc, node = todo.pop()
        if isinstance(node, yaml.MappingNode):
            last = {  # the last of a repeated key, as YAML reads it
                key.value: (key, value)
                for key, value in node.value
                if isinstance(key, yaml.ScalarNode)
            }
            for name, (key, value) in last.items():
                lines[(*loc, name)] = key.start_mark.line + 1
                todo.append(((*loc, name), value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                lines[(*loc, index)] = item.start_mark.line + 1
                todo.append(((*loc, index), item))
    return KeyLines(path, lines)


def _line(path: SiteSource, loc: Loc) -> int | None:
    """The line of the key (or list item) at `loc` in the YAML file, as near as it gets."""
    return key_lines(path).nearest(loc)


def load_preset(name: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in chain:
        raise NginxgenError(
            f"presets extend each other in a loop: {' -> '.join((*chain, name))}", where="--preset"
        )
    path = preset_dir() / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(p.name for p in list_presets())
        raise NginxgenError(f"unknown preset {name!r} (known: {known})", where="--preset")
    return resolve_extends(read_yaml(path), path, True, (*chain, name))


def preset_chain(name: str) -> list[tuple[str, dict[str, Any]]]:
    """A preset and those it extends, each with its own file's data, the named one first."""
    chain: list[tuple[str, dict[str, Any]]] = []
    at: str | None = name
    while at is not None and at not in (n for n, _ in chain):
        data = read_yaml(preset_dir() / f"{at}.yaml")
        chain.append((at, data))
        parent = data.get("extends")
        at = str(parent) if parent is not None else None
    return chain


def policy_origins(name: str, own: dict[str, Any]) -> dict[str, str]:
    """Each policy key a preset chain sets and the config's own `policy` (`own`) does not ->
    the preset that sets it (the nearest to the named one: its value wins)."""
    found: dict[str, str] = {}
    for preset, data in preset_chain(name):
        for key in data.get("policy") or {}:
            found.setdefault(str(key), preset)
    return {k: v for k, v in found.items() if k not in own}


def load_config(path: SiteSource) -> dict[str, Any]:
    """A user's --config file: the same fields as a preset, plus sites and default_server."""
    return resolve_extends(read_yaml(path), path, False)
