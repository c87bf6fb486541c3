"""Lint settings from pyproject.toml's [tool.nginxgen] or .nginxgen.toml, found going up."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.lint import settings
from nginxgen.lint.settings import find_settings


@pytest.mark.parametrize(
    "toml",
    [
        '[tool.nginxgen]\nfail-on = "error"\n',
        '[project]\nname = "x"\n\n[tool.nginxgen]\nfail-on = "error"\n',
        '[tool]\nnginxgen = { fail-on = "error" }\n',
        'tool.nginxgen.fail-on = "error"\n',
    ],
)
def test_the_table_is_found_going_up(toml: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "etc" / "nginx").mkdir(parents=True)
    found = find_settings(str(tmp_path / "etc" / "nginx"))
    assert found is not None
    assert found[0] == str(tmp_path / "pyproject.toml") and found[1]["fail-on"] == "error"


def test_a_pyproject_without_the_table_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project named nginxgen (this one) has no settings in its pyproject.toml: reading it
    with tomllib on every pre-commit run cost about 5 ms of a 40 ms lint."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "nginxgen"\n\n[project.scripts]\nnginxgen = "nginxgen.cli:main"\n'
    )

    def refuse(path: str, table: str | None) -> dict[str, object]:
        raise AssertionError(f"{path} was parsed")

    monkeypatch.setattr(settings, "_read", refuse)
    assert find_settings(str(tmp_path)) is None
