"""Presets: YAML files in `presets/`, validated by the same models; one may extend another."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nginxgen.errors import NginxgenError
from nginxgen.resources import data_dir

PRESET_KEYS = {"summary", "description", "source", "extends", "policy", "site"}
CONFIG_KEYS = PRESET_KEYS | {"sites", "default_server", "comments", "access_log"}


@dataclass(frozen=True)
class PresetInfo:
    name: str
    summary: str
    path: Path


def preset_dir() -> Path:
    return data_dir("presets")


def list_presets() -> list[PresetInfo]:
    infos = []
    for path in sorted(preset_dir().glob("*.yaml")):
        data = read_yaml(path)
        infos.append(PresetInfo(path.stem, str(data.get("summary", "")), path))
    return infos


def read_yaml(path: Path) -> dict[str, Any]:
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
    data: dict[str, Any], where: str, allowed: set[str], chain: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Merge `data` over the preset it extends (recursively); `chain` is the presets so far."""
    unknown = set(data) - allowed
    if unknown:
        raise NginxgenError(
            f"unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(allowed))})",
            where=where,
        )
    parent = data.get("extends")
    if parent is None:
        return data
    base = load_preset(str(parent), chain)
    own = {
        k: v for k, v in data.items() if k not in ("extends", "summary", "description", "source")
    }
    return merge(base, own)


def load_preset(name: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in chain:
        raise NginxgenError(
            f"presets extend each other in a loop: {' -> '.join((*chain, name))}", where="--preset"
        )
    path = preset_dir() / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(p.name for p in list_presets())
        raise NginxgenError(f"unknown preset {name!r} (known: {known})", where="--preset")
    return resolve_extends(read_yaml(path), str(path), PRESET_KEYS, (*chain, name))


def load_config(path: Path) -> dict[str, Any]:
    """A user's --config file: the same fields as a preset, plus sites and default_server."""
    return resolve_extends(read_yaml(path), str(path), CONFIG_KEYS)
