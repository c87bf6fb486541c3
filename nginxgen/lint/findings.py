"""What a rule reports."""

from __future__ import annotations

from enum import StrEnum  # imported anyway: re, which the loader needs, imports enum

from nginxgen.base.records import field, record
from nginxgen.base.severity import SEVERITIES, Severity

__all__ = ["SEVERITIES", "Applicability", "Finding", "Fix", "Severity", "fix_classes"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from nginxgen.edit.edits import Edit

    FileEdits = list[tuple[str, Edit]]


class Applicability(StrEnum):
    """How sure an automatic fix is: SAFE changes nothing but the defect (`--fix`); UNSAFE may be
    noticed by clients (`--unsafe-fixes`)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


def fix_classes(unsafe: bool) -> frozenset[Applicability]:
    """The fixes `--fix` applies (SAFE), or `--unsafe-fixes` (both)."""
    return frozenset(Applicability) if unsafe else frozenset({Applicability.SAFE})


class Fix:
    """An automatic fix as a rule declares it: the files its edits would touch (known from the
    loaded statements alone) and how to build the edits on the lossless model of those files.
    The edits are built only when they are wanted (`--fix`, `--diff`, SARIF, the language
    server); a plain lint reports the finding as fixable from the declaration alone."""

    __slots__ = ("build", "files")

    def __init__(self, files: tuple[str, ...], build: Callable[[], FileEdits | None]) -> None:
        self.files = files
        self.build = build  # None: a statement could not be found in the file as written

    def __add__(self, other: Fix) -> Fix:
        """Both fixes as one (none when either cannot be built)."""

        def both() -> FileEdits | None:
            first, second = self.build(), other.build()
            return first + second if first is not None and second is not None else None

        return Fix(tuple(dict.fromkeys((*self.files, *other.files))), both)


@record(frozen=True)
class Finding:
    code: str
    name: str
    severity: Severity
    file: str
    line: int
    message: str
    fix: str
    autofix: Applicability | None = None  # how sure the automatic fix is; None: no fix
    edits: tuple[tuple[str, Edit], ...] = ()  # (file, byte-span edit) that make the fix
    # files a fix that was declared but not built would touch (a plain lint builds no edits)
    touches: tuple[str, ...] = ()
    # why a fix its rule would apply as safe is held back as unsafe (the target was assumed):
    # the text output says it under the fix, as ruff says why a fix is unsafe
    held: str = ""
    # the first line of the statement where the finding names a later one (nginx's line for a
    # statement written over several lines: conf.load.handler_line); 0: `line` is its first. A
    # suppression above the statement covers the finding as it covers one on its first line.
    first_line: int = field(default=0, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "fix": self.fix,
            "autofix": self.autofix,
        }
