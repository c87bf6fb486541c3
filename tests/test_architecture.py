"""The house's layers (issue 24): the config model (nginxgen/conf) sits below every command;
probe, generate --into and report read it and never import the linter, not even for a type."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO

BELOW_LINT = ("conf", "probe", "into", "report", "knowledge", "edit")


def _imports(path: Path, typing_too: bool = True) -> list[tuple[int, str]]:
    """Modules a file imports (with `typing_too` False, only when it runs: not those under
    `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if (
            not typing_too
            and isinstance(node, ast.If)
            and "TYPE_CHECKING" in ast.unparse(node.test)
        ):
            typing_only.update(id(n) for inner in node.body for n in ast.walk(inner))
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def test_nothing_below_the_linter_imports_it() -> None:
    offences = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for package in BELOW_LINT
        for path in sorted((REPO / "nginxgen" / package).rglob("*.py"))
        for line, module in _imports(path)
        if module == "nginxgen.lint" or module.startswith("nginxgen.lint.")
    ]
    assert offences == []


def test_the_check_sees_an_import_in_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from nginxgen.lint.findings import Finding\n"
        "def f():\n    from nginxgen.lint.run import lint\n"
    )
    assert _imports(module, typing_too=False) == [(5, "nginxgen.lint.run")]
    assert _imports(module) == [(3, "nginxgen.lint.findings"), (5, "nginxgen.lint.run")]
