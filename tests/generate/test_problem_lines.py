"""Plan-stage refusals name the --config file and the line of the key they are about, where the
file has that key (a value from the preset, a flag or a default has no line in it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.generate.plan_common import Problems, key_loc
from nginxgen.generate.presets import key_lines
from nginxgen.knowledge.target import resolve
from nginxgen.shell.cli import main
from tests.helpers import make_cert

OLD = ["--nginx-version", "1.22.1", "--tls-library", "openssl-3.0.19"]

SITE = """\
extends: intermediate
policy:
  groups:
    - X25519
    - X25519MLKEM768
site:
  http3: true
sites:
  - domains: [a.example]
    certificates:
      - cert: {cert}
        key: {key}
access_log: "off"
"""


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_model_path_reads_as_the_site_files_key_path() -> None:
    assert key_loc("policy.ech.keys[0]") == ("policy", "ech", "keys", 0)
    assert key_loc("sites[1].upstream.url") == ("sites", 1, "upstream", "url")
    assert key_loc("sites.0.domains") == ("sites", 0, "domains")
    assert key_loc("access_log") == ("access_log",)


def test_problems_start_with_the_file_and_line_of_their_key(tmp_path: Path) -> None:
    pair = make_cert(tmp_path, "a.example")
    path = tmp_path / "site.yaml"
    text = SITE.format(cert=pair.cert, key=pair.key)
    path.write_text(text)
    problems = Problems(resolve("1.22.1", "openssl-3.0.19"), key_lines(path))
    problems.refuse("policy.groups[1]", "x")
    problems.refuse("sites[0].http3", "y")  # set under site:, for every site
    problems.refuse("sites[1].http3", "z")  # a --domain site takes site: too
    problems.refuse("policy.session.timeout", "w")  # from the preset: not in the file
    assert problems.items == [
        f"{path}:{_line_of(text, 'X25519MLKEM768')}: policy.groups[1]: x",
        f"{path}:{_line_of(text, 'http3')}: sites[0].http3: y",
        f"{path}:{_line_of(text, 'http3')}: sites[1].http3: z",
        "policy.session.timeout: w",
    ]


def test_generate_names_the_file_and_line_of_each_refused_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = make_cert(tmp_path, "a.example")
    path = tmp_path / "site.yaml"
    text = SITE.format(cert=pair.cert, key=pair.key)
    path.write_text(text)
    assert main(["generate", "--config", str(path), *OLD]) == 2
    errors = [x for x in capsys.readouterr().err.splitlines() if "error:" in x]
    group, http3 = _line_of(text, "X25519MLKEM768"), _line_of(text, "http3")
    assert any(x.startswith(f"nginxgen: error: {path}:{group}: policy.groups[1]: ") for x in errors)
    assert any(x.startswith(f"nginxgen: error: {path}:{http3}: sites[0].http3: ") for x in errors)
    assert all(f"{path}:" in x for x in errors), errors
