"""How much a finding matters: the linter reports it, the settings file and the editor's
settings name it (`min-severity`, `fail-on`), so it sits below all of them."""

from __future__ import annotations

from enum import StrEnum  # imported anyway: re, which the loader needs, imports enum


class Severity(StrEnum):
    """How much a finding matters. The members are in rank order, lowest first: `--min-severity`
    and `--fail-on` take a severity and everything above it. Each is its word (`str()`, JSON,
    SARIF and text output print the value)."""

    INFO = "info"  # speed or hygiene
    WARNING = "warning"  # insecure, or silently ignored
    ERROR = "error"  # nginx refuses the config, or a security setting silently does not apply

    def at_least(self, floor: Severity) -> bool:
        return _RANK[self] >= _RANK[floor]


SEVERITIES: tuple[Severity, ...] = tuple(Severity)
_RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}
