"""What a rule reports."""

from __future__ import annotations

from nginxgen.records import record

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

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "fix": self.fix,
        }
