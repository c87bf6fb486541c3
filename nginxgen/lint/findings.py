"""What a rule reports."""

from __future__ import annotations

from nginxgen.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.edit.edits import Edit


SEVERITIES = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@record(frozen=True)
class Finding:
    code: str
    name: str
    severity: str
    file: str
    line: int
    message: str
    fix: str
    autofix: str | None = None  # "safe" | "unsafe" | None: how sure the automatic fix is
    edits: tuple[tuple[str, Edit], ...] = ()  # (file, byte-span edit) that make the fix
    # a second, unsafe fix used instead under --unsafe-fixes (a safe one drops an ignored line,
    # the unsafe one makes the setting take effect where it belongs)
    unsafe_edits: tuple[tuple[str, Edit], ...] = ()

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
