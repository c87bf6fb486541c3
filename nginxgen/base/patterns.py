"""Regular expressions compiled the first time they are used.

A module-level `re.compile` runs on every import, and a one-file lint imports most of the lint
path: of the thirty patterns it compiled, thirteen were never used on a small file (a variable,
a comment, a suppression, an `nginx -T` dump, a template it did not hold), about a tenth of a
millisecond each. `lazy(source)` stands for the pattern until a method or attribute is first
read; then it is the compiled pattern's, kept on the instance, at the cost of a plain one.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any


class _Lazy:
    def __init__(self, source: str, flags: int) -> None:
        self._source = source
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # only for a name not yet on the instance: kept there, this runs once per name
        value = getattr(re.compile(self._source, self._flags), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy({self._source!r})"


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, compiled when first used."""
    return _Lazy(source, flags)  # type: ignore[return-value]  # it answers as the pattern
