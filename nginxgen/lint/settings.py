"""Lint settings from `[tool.nginxgen]` in pyproject.toml or from .nginxgen.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from nginxgen.errors import NginxgenError

KEYS = {
    "nginx-version",
    "tls-library",
    "nginx-bin",
    "select",
    "ignore",
    "min-severity",
    "fail-on",
    "path-map",
    "root",
    "prefix",
}


def find_settings(start: Path) -> tuple[Path, dict[str, Any]] | None:
    for folder in (start, *start.parents):
        dedicated = folder / ".nginxgen.toml"
        if dedicated.is_file():
            return dedicated, _read(dedicated, None)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            data = _read(pyproject, "tool.nginxgen")
            if data:
                return pyproject, data
    return None


def _read(path: Path, table: str | None) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise NginxgenError(f"cannot read settings: {exc}", where=str(path)) from None
    if table:
        for part in table.split("."):
            data = data.get(part, {})
    unknown = set(data) - KEYS
    if unknown:
        raise NginxgenError(
            f"unknown setting {sorted(unknown)[0]!r} (known: {', '.join(sorted(KEYS))})",
            where=str(path),
        )
    return data
