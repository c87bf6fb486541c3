"""The format an access_log line names against real `nginx -t` (issue 44: a vhost's
`access_log FILE default;` where no `log_format default` exists; nginx stops with `unknown log
format "default"` and lint said nothing). Each case is a tree whose access_log and log_format
lines nginx reads or refuses; where nginx refuses it, NGX016 gives nginx's words at nginx's line;
where nginx reads it, NGX016 says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.every_rule import lint_checked
from tests.live import nginx_and_lint

SERVER = "server {{ listen 127.0.0.1:8999; {body} return 204; }}"
CASES = {  # name: (http{} top, server body, stream{} content or None)
    "unknown": ("log_format main '$status';", "access_log logs/a.log default;", None),
    "defined after its use": (
        "access_log logs/a.log main; log_format main '$status';",
        "",
        None,
    ),
    "any letter case": ("log_format main '$status';", "access_log logs/a.log MAIN;", None),
    "combined implied": ("", "access_log logs/a.log;", None),
    "combined named": ("", "access_log logs/a.log Combined;", None),
    "combined redefined": ("log_format combined '$status';", "", None),
    "redefined": ("log_format main '$status'; log_format main '$uri';", "", None),
    "two letter cases": ("log_format main '$status'; log_format Main '$uri';", "", None),
    "syslog": ("", "access_log syslog:server=127.0.0.1 nope;", None),
    "off": ("", "access_log off;", None),
    "a parameter for a name": ("", "access_log logs/a.log buffer=32k;", None),
    "stream implied": ("", "", "access_log logs/s.log;"),
    "stream combined": ("", "", "access_log logs/s.log combined;"),
    "stream defined": ("", "", "log_format basic '$status'; access_log logs/s.log basic;"),
}


def _tree(build: Build, top: str, body: str, stream: str | None) -> str:
    temp = "\n".join(build.in_prefix)
    text = f"events {{}}\nhttp {{\n{temp}\n{top}\n{SERVER.format(body=body)}\n}}\n"
    if stream is None:
        return text
    modules = build.load_module("stream")
    server = "server { listen 127.0.0.1:8998; return ok; }"
    return f"{modules}{text}stream {{\n{stream}\n{server}\n}}\n"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_log_formats_as_nginx_reads_them(
    name: str, case: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    (tree / "logs").mkdir()
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, *CASES[case]))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX016")
    if emerg is None:
        assert lines == [], lines
        return
    said, line = emerg
    assert "log format" in said or "log_format" in said, said  # what this test is about
    assert len(lines) == 1 and f":{line}: NGX016 error {said}" in lines[0], (lines, said)


def test_a_format_in_a_file_not_read_is_not_judged(tmp_path: Path) -> None:
    """An include that could not be read may define the format: nothing is said after it."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\ninclude formats.conf;\n"
        "server { listen 8080; access_log logs/a.log main; }\n}\n"
    )
    target = resolve("1.26.3", "openssl-3.5.7")
    assert [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX016"] == []
    (tmp_path / "formats.conf").write_text("log_format other '$status';\n")
    found = [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX016"]
    assert [(f.line, f.message) for f in found] == [(4, 'unknown log format "main"')]
