"""Shared by the NGX8xx rules: how a finding names the pass it is about. What applies to the
connection itself is conf/upstream's answer (ctx.backends()), never recomputed here."""

from __future__ import annotations

from nginxgen.conf.load import Stmt
from nginxgen.conf.upstream import BackendTls


def where(line: Stmt) -> str:
    return f"{line.file}:{line.line}"


def decided(line: Stmt | None, default: str) -> str:
    """`(off at FILE:LINE)`, or `(nginx's default, off)` where no line decides."""
    if line is None:
        return f"(nginx's default, {default})"
    return f"({' '.join(line.args)} at {where(line)})"


def passes(backend: BackendTls) -> str:
    """`proxy_pass https://backend` - the pass a finding is about."""
    return f"{backend.module.directive} {backend.pass_line.args[0]}"
