"""Settings from `[tool.nginxgen]` in pyproject.toml or from .nginxgen.toml: the target every
command uses (nginxgen.knowledge.target.resolve_set) and lint's own keys; and the user's cache
folder, where what is worth keeping between runs goes."""

from __future__ import annotations

import os

from nginxgen.base.errors import NginxgenError
from nginxgen.base.severity import SEVERITIES
from nginxgen.files.options import SETTINGS

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any


# Each key and the shape of its value (nginxgen.files.options declares them with their flags): a
# string, rule codes (a "NGX1,NGX402" string or a list of strings, checked against the rules by
# the command), a severity, or a table of strings.
KEYS = SETTINGS


def cache_folder() -> str:
    """nginxgen's folder in the user's cache: $XDG_CACHE_HOME/nginxgen, else ~/.cache/nginxgen
    (the machine's `nginx -V`, the browser page's downloads)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(home, "nginxgen")


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
    for key, value in data.items():
        problem = _problem(key, value)
        if problem:
            raise NginxgenError(problem, where=where(path, key))
    return data


def _problem(key: str, value: object) -> str | None:
    """What is wrong with one setting, or None."""
    kind = KEYS.get(key)
    if kind is None:
        from nginxgen.base.spelling import nearest  # only on the way to an error

        return f"unknown setting {key!r}; did you mean {nearest(key, KEYS)!r}?"
    if kind == "codes":
        good = isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
        shape = 'rule codes, as "NGX1,NGX402" or ["NGX1", "NGX402"]'
    elif kind == "table":
        good = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        shape = 'a table of FOLDER = "HERE" strings'
    elif kind == "severity":
        good = value in SEVERITIES
        shape = f"one of {', '.join(SEVERITIES)}"
    else:
        good, shape = isinstance(value, str), "a string"
    return None if good else f"{key} must be {shape}, not {value!r}"


def where(path: str, key: str) -> str:
    """`path:line` of the line that sets `key`, or `path`. In a pyproject.toml only nginxgen's
    own lines count ([tool.ruff] may have a `select` too)."""
    import re

    name = rf"[\"']?{re.escape(key)}[\"']?\s*(?:=|\])"
    lines = _text(path).splitlines()
    pattern = re.compile(rf"^\s*\[?\s*{name}")
    numbers: range | list[int] = range(len(lines))
    if os.path.basename(path) == "pyproject.toml":
        header = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?nginxgen[\"']?\s*\]")
        start = next((i for i, line in enumerate(lines) if header.match(line)), len(lines))
        table = [i for i in range(start + 1, len(lines)) if not lines[i].lstrip().startswith("[")]
        numbers = table[: next((n for n, i in enumerate(table) if i != start + 1 + n), None)]
        if not numbers:  # dotted keys, a [tool.nginxgen.KEY] table or an inline table
            pattern = re.compile(rf"tool\s*\.\s*nginxgen\s*\.\s*{name}|nginxgen.*[{{,]\s*{name}")
            numbers = range(len(lines))
    for number in numbers:
        if pattern.search(lines[number]):
            return f"{path}:{number + 1}"
    return path
