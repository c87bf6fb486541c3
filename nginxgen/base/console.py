"""What a command prints: its result on stdout (indented JSON, or its text), and the lines
beside it on stderr (`nginxgen: ...`), so that stdout stays the one document a tool reads."""

from __future__ import annotations

import sys
from collections.abc import Callable

from nginxgen.base.errors import NginxgenError

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json")  # --format of the commands that print text or JSON


def check_format(output: str) -> None:
    """--format of the commands that print text or JSON."""
    if output not in FORMATS:
        raise NginxgenError(f"unknown format {output!r}: use text or json", where="--format")


def show(output: str, data: object, render: Callable[[Any], str]) -> None:
    """A command's result on stdout: indented JSON, or its text rendering."""
    import json

    if output == "json":
        print(json.dumps(data, indent=2))
    else:
        print(render(data), end="")


def note(message: str) -> None:
    """One line beside the result, on stderr."""
    print(f"nginxgen: {message}", file=sys.stderr)
