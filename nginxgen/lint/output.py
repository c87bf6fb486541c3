"""Output formats: text (default), json, sarif (2.1.0) and github (workflow annotations)."""

from __future__ import annotations

import json
import os
import sys

from nginxgen import __version__
from nginxgen.knowledge.target import Target
from nginxgen.lint.findings import SEVERITIES, Finding, Severity
from nginxgen.lint.rules import catalog

FORMATS = ("text", "json", "sarif", "github")
_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}


def text(findings: list[Finding], target: Target, files: list[str], colour: bool) -> str:
    lines = [f"# target: {target.describe()}"]
    for f in findings:
        severity = f"{_COLOURS[f.severity]}{f.severity}\033[0m" if colour else f.severity
        lines.append(f"{f.file}:{f.line}: {f.code} {severity} {f.message}")
        lines.append(f"    fix: {f.fix}")
        if f.held and f.autofix is not None:
            lines.append(f"    {f.held}")
    counts = {s: sum(1 for f in findings if f.severity is s) for s in reversed(SEVERITIES)}
    summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    lines.append(f"# {len(files)} file(s), {summary}")
    return "\n".join(lines) + "\n"


def as_json(findings: list[Finding], target: Target, files: list[str]) -> str:
    return (
        json.dumps(
            {
                "target": target.as_dict(),
                "findings": [f.as_dict() for f in findings],
                "files": files,
            },
            indent=2,
        )
        + "\n"
    )


def sarif(findings: list[Finding], target: Target, files: list[str]) -> str:
    rules = catalog()
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "nginxgen",
                        "version": __version__,
                        "informationUri": "https://github.com/nginxgen/nginxgen",
                        "rules": [
                            {
                                "id": code,
                                "name": e.rule.name,
                                "shortDescription": {"text": e.summary},
                                "fullDescription": {"text": e.doc.strip()},
                                "defaultConfiguration": {"level": level[e.rule.severity]},
                                "help": {"text": e.rule.fix},
                            }
                            for code, e in rules.items()
                        ],
                    }
                },
                "properties": {"target": target.as_dict()},
                "results": [
                    {
                        "ruleId": f.code,
                        "level": level[f.severity],
                        "message": {"text": f"{f.message} (fix: {f.fix})"},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": _in_repository(f.file)},
                                    "region": {"startLine": max(f.line, 1)},
                                }
                            }
                        ],
                        **({"fixes": [_sarif_fix(f)]} if f.edits else {}),
                        "properties": {"autofix": f.autofix},
                    }
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def _in_repository(path: str) -> str:
    """A file under the working folder by its path from there, any other as it is: GitHub
    places an annotation, and code scanning a SARIF result, by the file's path in the
    repository, where CI runs the lint; an include nginxgen resolved to an absolute path
    attached nowhere (trial 22)."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _sarif_fix(finding: Finding) -> dict[str, object]:
    """The finding's automatic fix as SARIF 2.1.0 `fixes`: byte-offset replacements per file
    (its class, safe or unsafe, is in the description)."""
    by_file: dict[str, list[dict[str, object]]] = {}
    for file, edit in finding.edits:
        by_file.setdefault(file, []).append(
            {
                "deletedRegion": {"byteOffset": edit.start, "byteLength": edit.end - edit.start},
                "insertedContent": {"text": edit.replacement.decode("utf-8", "surrogateescape")},
            }
        )
    return {
        "description": {"text": f"{finding.autofix} fix: {finding.fix}"},
        "artifactChanges": [
            {"artifactLocation": {"uri": _in_repository(file)}, "replacements": replacements}
            for file, replacements in by_file.items()
        ],
    }


def github(findings: list[Finding]) -> str:
    kind = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}

    def esc(value: str) -> str:
        return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    return "".join(
        f"::{kind[f.severity]} file={esc(_in_repository(f.file))},line={f.line},"
        f"title={f.code} {f.name}::"
        f"{esc(f.message)} (fix: {esc(f.fix)})\n"
        for f in findings
    )


def render(fmt: str, findings: list[Finding], target: Target, files: list[str]) -> str:
    if fmt == "json":
        return as_json(findings, target, files)
    if fmt == "sarif":
        return sarif(findings, target, files)
    if fmt == "github":
        return github(findings)
    # Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    return text(findings, target, files, colour=colour)
