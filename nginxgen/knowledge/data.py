"""The knowledge base's files as parsed data: the TOML files, read from one JSON snapshot of
them, and the generated JSON tables. Only the topic modules beside this one read it; what leaves
the package is their typed records.

Parsing the TOML files (and importing tomllib, which brings datetime along) was a tenth of a
pre-commit run's start-up; the snapshot is one json.loads. The TOML files stay the source:
`python scripts/build_knowledge_snapshot.py` rewrites the snapshot and
tests/knowledge/test_knowledge_snapshot.py fails when it differs from them. The package is always
unpacked on disk (a wheel, or a checkout): plain file reads keep importlib.resources and zipfile
off the pre-commit path.
"""

from __future__ import annotations

import json
import os
from functools import cache

from nginxgen.base.version import Version

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


def dumps_by_line(document: dict[str, Any], key: str) -> str:
    """`document` as compact JSON whose last member `key`, an object, holds one entry per line:
    still one JSON document, and `json_file_by_line` decodes only the entries asked for."""
    head = {k: v for k, v in document.items() if k != key}
    rows = []
    for name, value in document[key].items():
        if json.dumps(name) != f'"{name}"' or "\n" in name:
            raise ValueError(f"not a plain name: {name!r}")
        rows.append(f'"{name}":{json.dumps(value, separators=(",", ":"))}')
    opening = json.dumps(head, separators=(",", ":"))[:-1] + f',"{key}":{{\n'
    return opening + ",\n".join(rows) + "\n}}\n"


@cache
def json_file_by_line(name: str, key: str) -> tuple[dict[str, Any], dict[str, str]]:
    """knowledge/NAME.json as `dumps_by_line` wrote it: its other members, decoded, and the
    JSON text of each entry of `key` by name. Decoding the whole directive table was the largest
    part of reading knowledge in a one-file lint, which meets a few dozen of its 700 names."""
    with open(os.path.join(KNOWLEDGE_DIR, f"{name}.json"), encoding="utf-8") as handle:
        text = handle.read()
    opening = f',"{key}":{{\n'
    cut = text.index(opening)
    head: dict[str, Any] = json.loads(text[:cut] + "}")
    rows = {}
    for line in text[cut + len(opening) :].split("\n"):
        if line.startswith('"'):
            end = line.index('":')
            rows[line[1:end]] = line[end + 2 :].removesuffix(",")
    return head, rows


@cache
def release_index(releases: tuple[str, ...], version: str) -> int:
    """The index of the newest of a table's releases (oldest first) at or before this version
    (the oldest when none is)."""
    wanted = Version(version)
    return max((i for i, r in enumerate(releases) if Version(r) <= wanted), default=0)


def holds(ranges: list[list[int | None]], at: int) -> bool:
    """Whether an entry's ranges of release indexes [first, end) (end None: to the newest) hold
    the release at this index."""
    return any(first is not None and first <= at and (end is None or at < end)
               for first, end in ranges)  # fmt: skip


def from_table(kind: type[R], table: Mapping[str, Any], **given: Any) -> R:
    """The record `kind` with each field read from the table's key of the same name, unless
    `given` holds it: a key the table lacks raises KeyError, unless the record gives the field a
    default (then the default). An array becomes the field's declared tuple or frozenset."""
    declared: dict[str, object] = kind.__record_declared__  # type: ignore[attr-defined]
    for name in kind.__record_fields__:  # type: ignore[attr-defined]
        if name in given or (name in declared and name not in table):
            continue
        value = table[name]
        if value.__class__ is list:
            make = _collection(kind, name)  # type: ignore[arg-type]  # a class is hashable
            if make is not None:
                value = make(value)
        given[name] = value
    return kind(**given)


@cache
def _collection(kind: type, name: str) -> Callable[[list[Any]], object] | None:
    """The constructor of the field's declared type where that is a tuple or a frozenset (of a
    union, its first member); None: the list stays a list."""
    for klass in kind.__mro__:
        annotation = klass.__dict__.get("__annotations__", {}).get(name)  # noqa: RUF063
        if annotation is not None:
            head = str(annotation).split("[", 1)[0].strip()
            return {"tuple": tuple, "frozenset": frozenset}.get(head)
    return None
