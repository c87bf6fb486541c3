"""A `;` lost at a line's end makes the next line's directive an argument (trial 8:
`ssl_ciphers HIGH:!aNULL:!MD5` above `ssl_ciphers ...;`): nginx says only `invalid number of
arguments`, at the line where the statement ends, and so does lint; its fix names the lost `;`
and the line the statement starts on."""

from __future__ import annotations

from pathlib import Path

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.every_rule import lint_checked


def _fixes(tmp_path: Path, text: str) -> list[tuple[int, str | None]]:
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"events {{}}\nhttp {{\n    server {{\n{text}\n    }}\n}}\n")
    found = lint_checked(load_path(str(conf)), resolve("1.26.3", "openssl-3.5.7"))
    return [(f.line, f.fix) for f in found if f.code == "NGX009"]


def test_the_lost_semicolon_is_named(tmp_path: Path) -> None:
    found = _fixes(tmp_path, "ssl_session_timeout 1d\n# why\nssl_session_cache shared:SSL:10m;")
    assert found == [
        (6, 'a ";" missing before "ssl_session_cache"? nginx reads the lines up to the next ";" '
         "as one ssl_session_timeout, from line 4")
    ]  # fmt: skip


def test_a_count_wrong_otherwise_keeps_its_fix(tmp_path: Path) -> None:
    found = _fixes(tmp_path, "ssl_session_timeout 1d 2d;")
    assert len(found) == 1 and found[0][1] is not None and "missing" not in found[0][1]
