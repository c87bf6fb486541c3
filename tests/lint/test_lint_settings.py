"""Lint settings from pyproject.toml's [tool.nginxgen] or .nginxgen.toml, found going up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nginxgen.files import settings
from nginxgen.files.settings import find_settings


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
        '[project]\nname = "nginxgen"\n\n[project.scripts]\nnginxgen = "nginxgen.shell.cli:main"\n'
    )

    def refuse(path: str, table: str | None) -> dict[str, object]:
        raise AssertionError(f"{path} was parsed")

    monkeypatch.setattr(settings, "_read", refuse)
    assert find_settings(str(tmp_path)) is None


def lint(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`nginxgen lint ARGS` run in `cwd` (where settings are looked for)."""
    from nginxgen.shell.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


WEAK = "ssl_protocols TLSv1 TLSv1.2;\n"  # NGX401 (legacy protocol) and NGX409 (no TLS 1.3)


@pytest.mark.parametrize(
    ("flag", "value", "nearest"),
    [
        ("--select", "NGX999", "NGX409"),
        ("--ignore", "NGX4O1", "NGX401"),  # a letter O for a zero
        ("--select", "weak-ciphr", "weak-cipher"),
        ("--fixable", "NGX9", "NGX"),  # no rule starts with NGX9
        ("--unfixable", "NGX401,NGX4011", "NGX401"),
    ],
)
def test_an_unknown_rule_code_is_one_line_naming_the_nearest(
    flag: str, value: str, nearest: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ssl.conf").write_text(WEAK)
    code, out, err = lint(["ssl.conf", "--nginx-version", "1.26.3", flag, value], tmp_path, capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"nginxgen: error: {flag}: no rule is ") and nearest in err


@pytest.mark.parametrize(
    ("select", "codes"),
    [("NGX4", {"NGX401", "NGX409"}), ("NGX40", {"NGX401", "NGX409"}), ("NGX409", {"NGX409"}),
     ("legacy-protocol", {"NGX401"}), ("ngx401", {"NGX401"})],
)  # fmt: skip
def test_known_codes_prefixes_and_names_still_select(
    select: str, codes: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ssl.conf").write_text(WEAK)
    args = ["ssl.conf", "--nginx-version", "1.26.3", "--format", "json", "--select", select]
    code, out, err = lint(args, tmp_path, capsys)
    assert code == (1 if "NGX409" in codes else 0), err  # NGX401 is an info here
    assert {f["code"] for f in json.loads(out)["findings"]} == codes


@pytest.mark.parametrize(
    ("toml", "line", "message"),
    [
        # [tool.ruff]'s own `select` comes first: the line named is nginxgen's
        ('[tool.ruff]\nselect = ["E"]\n\n[tool.nginxgen]\nfail-on = "error"\nselect = "NGX998"\n',
         6, "select: no rule is 'NGX998'"),
        ('[tool.nginxgen]\nignore = ["NGX401", "NGX77"]\n', 2, "ignore: no rule is 'NGX77'"),
        ('[tool.nginxgen]\nfail-on = "error"\nselct = "NGX4"\n', 3,
         "unknown setting 'selct'; did you mean 'select'?"),
        ('[tool.nginxgen]\nfail-on = "bad"\n', 2, "fail-on must be one of info, warning, error"),
        ('[tool.nginxgen]\nmin-severity = "warn"\n', 2, "min-severity must be one of"),
        ("[tool.nginxgen]\nselect = 5\n", 2, "select must be rule codes"),
        ('[tool.nginxgen]\npath-map = "/etc/nginx"\n', 2, "path-map must be a table"),
        ('tool.nginxgen.nginx-versoin = "1.26.3"\n', 1, "did you mean 'nginx-version'?"),
        ('[tool.nginxgen]\nnginx-version = "1.2"\n', 2, "nginx-version: "),
        ('[tool.nginxgen]\ntls-library = "opensl-3.0"\n', 2, "tls-library: "),
    ],
)  # fmt: skip
def test_a_bad_setting_is_one_line_with_file_and_line(
    toml: str, line: int, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "ssl.conf").write_text(WEAK)
    code, out, err = lint(["ssl.conf"], tmp_path, capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"nginxgen: error: {tmp_path / 'pyproject.toml'}:{line}: "), err
    assert message in err


def test_a_dedicated_settings_file_is_checked_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".nginxgen.toml").write_text('fail-on = "error"\nunfixable = "NGX0"\n')
    (tmp_path / "ssl.conf").write_text(WEAK)
    code, _, err = lint(["ssl.conf"], tmp_path, capsys)
    assert code == 0, err  # NGX0 is a prefix of NGX001..NGX010: a real selection
    (tmp_path / ".nginxgen.toml").write_text('fail-on = "error"\nunfixable = "NGX0x"\n')
    code, _, err = lint(["ssl.conf"], tmp_path, capsys)
    assert code == 2
    assert err.startswith(f"nginxgen: error: {tmp_path / '.nginxgen.toml'}:2: unfixable: ")


def test_the_checked_options_keep_lint_off_typer_pydantic_and_jinja2(tmp_path: Path) -> None:
    """The codes and versions are checked on lint's fast path (pre-commit start-up)."""
    import subprocess
    import sys

    (tmp_path / "ssl.conf").write_text(WEAK)
    (tmp_path / "pyproject.toml").write_text('[tool.nginxgen]\nignore = ["NGX0"]\n')
    code = (
        "import sys; from nginxgen.shell.cli import main; "
        "rc = main(['lint', 'ssl.conf', '--select', 'NGX4,legacy-protocol', "
        "'--nginx-version', '1.31.9', '--tls-library', 'openssl-3.5.9']); "
        "print(rc, sorted(m for m in ('typer', 'pydantic', 'jinja2') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.stdout.splitlines()[-1] == "1 []", result.stdout + result.stderr
    assert "nginxgen: warning: nginx 1.31.9 is newer" in result.stderr
