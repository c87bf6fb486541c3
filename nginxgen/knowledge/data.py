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
    from typing import Any

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
