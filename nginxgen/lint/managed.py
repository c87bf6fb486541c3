"""Fixes that would write a file another tool manages are not offered (issue 26)."""

from __future__ import annotations

from nginxgen.base.records import replace
from nginxgen.knowledge import managers
from nginxgen.lint.findings import Finding


def leave_managed(findings: list[Finding], texts: dict[str, str]) -> list[Finding]:
    """The findings, with every fix taken away that would write a file another tool manages
    (knowledge/managers.toml: certbot's options file, a panel's generated vhosts): that tool
    would overwrite the edit or, for certbot, stop updating its file once its bytes differ from
    a release. Such a finding stays, and says who owns the file; its fix says where the change
    belongs instead (trial 21: NGX006's "change the first ssl_protocols line" named a line of
    certbot's file, which its message had just said not to edit)."""
    owners: dict[str, managers.Manager | None] = {}

    def owner(file: str) -> managers.Manager | None:
        if file not in owners:
            found = managers.manager_of(file, texts.get(file))
            owners[file] = found if found is not None and found.never_write else None
        return owners[file]

    out = []
    for f in findings:
        touched = {file for file, _ in f.edits} | set(f.touches)
        managed = sorted((file, m) for file in touched if (m := owner(file)) is not None)
        if managed:
            file, manager = managed[0]
            note = (
                f" (not fixed automatically: {file} is managed by {manager.display}, which "
                "nginxgen never writes)"
            )
            fix = f"leave {file} as {manager.display} wrote it; instead: {manager.override}"
            f = replace(f, message=f.message + note, fix=fix, autofix=None, edits=(), touches=())
        out.append(f)
    return out
