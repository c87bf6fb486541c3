"""The knowledge base's files as parsed data: the TOML files, read from one JSON snapshot of
them, and the generated JSON tables. Only the topic modules beside this one read it; what leaves
the package is their typed records.

Parsing the TOML files (and importing tomllib, which brings datetime along) was a tenth of a
pre-commit run's start-up; the snapshot is one json.loads. The TOML files stay the source:
`python scripts/build_knowledge_snapshot.py` rewrites the snapshot and
tests/test_knowledge_snapshot.py fails when it differs from them. The package is always unpacked
on disk (a wheel, or a checkout): plain file reads keep importlib.resources and zipfile off the
pre-commit path.
"""

from __future__ import annotations

import json
import os
from functools import cache

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar

    R = TypeVar("R")

KNOWLEDGE_DIR = os.path.dirname(os.path.abspath(__file__))
SNAPSHOT = os.path.join(KNOWLEDGE_DIR, "snapshot.json")
TOML_FILES = (
    "cipher_models", "ech", "groups", "libraries", "logging", "managers", "nginx",
    "nginx_values", "pki", "web"
)  # fmt: skip


@cache
def snapshot() -> dict[str, dict[str, Any]]:
    with open(SNAPSHOT, encoding="utf-8") as handle:
        data: dict[str, dict[str, Any]] = json.load(handle)
    return data


def toml_file(name: str) -> dict[str, Any]:
    """The parsed content of knowledge/NAME.toml."""
    return snapshot()[name]


def read_toml_files() -> dict[str, dict[str, Any]]:
    """Parse the TOML files themselves (the snapshot's source)."""
    import tomllib

    out = {}
    for name in TOML_FILES:
        with open(os.path.join(KNOWLEDGE_DIR, f"{name}.toml"), "rb") as handle:
            out[name] = tomllib.load(handle)
    return out


@cache
def json_file(name: str) -> dict[str, Any]:
    """The parsed content of knowledge/NAME.json (a table generated from nginx or the
    libraries: nginx_directives, nginx_values, releases, ...)."""
    with open(os.path.join(KNOWLEDGE_DIR, f"{name}.json"), encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def from_table(kind: type[R], table: Mapping[str, Any], **given: Any) -> R:
    """The record `kind` with each field read from the table's key of the same name, unless
    `given` holds it: a key the table lacks raises KeyError, unless the record gives the field a
    default (then the default). An array becomes the field's declared tuple or frozenset."""
    names: tuple[str, ...] = kind.__record_fields__  # type: ignore[attr-defined]
    declared: dict[str, object] = kind.__record_declared__  # type: ignore[attr-defined]
    collections = _collections(kind)  # type: ignore[arg-type]  # a class is hashable
    values = dict(given)
    for name in names:
        if name in values or (name in declared and name not in table):
            continue
        value = table[name]
        make = collections.get(name)
        values[name] = make(value) if make is not None and isinstance(value, list) else value
    return kind(**values)


@cache
def _collections(kind: type) -> dict[str, Callable[[list[Any]], object]]:
    """The fields declared as a tuple or frozenset (a union's first member counts), each with
    the constructor that makes one from a list."""
    declared: dict[str, object] = {}
    for klass in reversed(kind.__mro__):
        declared.update(klass.__dict__.get("__annotations__", {}))  # noqa: RUF063
    makers = {"tuple": tuple, "frozenset": frozenset}
    out: dict[str, Callable[[list[Any]], object]] = {}
    for name, annotation in declared.items():
        make = makers.get(str(annotation).split("[", 1)[0].strip())
        if make is not None:
            out[name] = make
    return out
