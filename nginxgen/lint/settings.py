"""Lint settings from `[tool.nginxgen]` in pyproject.toml or from .nginxgen.toml."""

from __future__ import annotations

import os

from nginxgen.errors import NginxgenError

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any


KEYS = {
    "nginx-version",
    "tls-library",
    "nginx-bin",
    "select",
    "ignore",
    "min-severity",
    "fail-on",
    "path-map",
    "fixable",
    "unfixable",
    "root",
    "prefix",
}


def find_settings(start: str) -> tuple[str, dict[str, Any]] | None:
    """The settings that apply in folder `start`: the nearest .nginxgen.toml, or pyproject.toml
    with [tool.nginxgen], going up (os.path, not pathlib: pathlib is slow to import)."""
    folder = os.path.abspath(start)
    while True:
        dedicated = os.path.join(folder, ".nginxgen.toml")
        if os.path.isfile(dedicated):
            return dedicated, _read(dedicated, None)
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject) and _may_have_table(_text(pyproject)):
            # most pyproject.toml files have no [tool.nginxgen]: those are not parsed at all
            data = _read(pyproject, "tool.nginxgen")
            if data:
                return pyproject, data
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _may_have_table(text: str) -> bool:
    """Whether TOML could define tool.nginxgen here: a `[tool.nginxgen...]` header, a dotted
    `tool.nginxgen...` key, or a `[tool]` table (a project merely named nginxgen has none)."""
    if "nginxgen" not in text:
        return False
    import re

    return (
        re.search(r"(?m)^\s*\[\s*tool\s*(?:\]|\.\s*\"?nginxgen\b)|^\s*tool\s*\.", text) is not None
    )


def _text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise NginxgenError(f"cannot read settings: {exc}", where=path) from None


def _read(path: str, table: str | None) -> dict[str, Any]:
    import tomllib  # only when a settings file is there: tomllib is slow to import

    try:
        data = tomllib.loads(_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise NginxgenError(f"cannot read settings: {exc}", where=path) from None
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
