"""Where the shipped `templates/` and `presets/` folders are.

In a wheel they are inside the package (`nginxgen/templates`); in a source checkout they sit at
the top level beside `nginxgen/`.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # nginxgen/, this file being in nginxgen/base/


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"nginxgen's {name}/ folder is missing from this installation")
