"""A statement written over several lines: nginx names the line it stands on once it has read
the statement (its `;`, or a block's `{`) in what ngx_conf_handler and the directive's setter
say; lint's NGX007-NGX010 name the same line, its advice the statement's first, and a
suppression above the statement covers both. tests/lint/test_multiline_live.py holds the
lines against real nginx -t."""

from __future__ import annotations

from pathlib import Path

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint

TARGET = resolve("1.26.3", "openssl-3.5.7")
SERVER = """events {{}}
http {{
    server {{
        listen 8080;
{body}
    }}
}}
"""


def _findings(tmp_path: Path, body: str, codes: set[str]) -> list[tuple[int, str]]:
    conf = tmp_path / "nginx.conf"
    conf.write_text(SERVER.format(body=body))
    found = lint(load_path(str(conf)), TARGET, Selection(select=codes))
    return sorted((f.line, f.code) for f in found)


def test_nginxs_errors_are_named_where_the_statement_ends(tmp_path: Path) -> None:
    body = (
        "add_header A\n  b\n  always\n  x;\n"  # 5-8: invalid number of arguments
        "foo_bar a\n  b;\n"  # 9-10: unknown directive
        "worker_connections\n  512;\n"  # 11-12: not allowed here
        "gzip\n  yes;\n"  # 13-14: invalid value
        "location /a\n  b/\n{ return 204; }\n"  # 15-17: invalid location modifier, at the `{`
        "server_tokens\n  off;\n"  # 18-19: nothing wrong
    )
    found = _findings(tmp_path, body, {"NGX007", "NGX008", "NGX009", "NGX010"})
    assert found == [(8, "NGX009"), (10, "NGX007"), (12, "NGX008"), (14, "NGX010"),
                     (17, "NGX010")]  # fmt: skip


def test_advice_is_named_where_the_statement_starts(tmp_path: Path) -> None:
    """NGX401 (an old protocol) is nginxgen's advice, not an error of nginx's: the first line."""
    found = _findings(tmp_path, "ssl_protocols TLSv1\n  TLSv1.2;", {"NGX401"})
    assert found == [(5, "NGX401")]


def test_a_suppression_above_the_statement_covers_a_finding_at_its_end(tmp_path: Path) -> None:
    codes = {"NGX009", "NGX004"}
    above = "# nginxgen: ignore[NGX009] generated this way\nadd_header A\n  b\n  always\n  x;"
    assert _findings(tmp_path, above, codes) == []
    inside = "add_header A # nginxgen: ignore[NGX009] generated this way\n  b\n  always\n  x;"
    assert _findings(tmp_path, inside, codes) == []
    after = "add_header A\n  b\n  always\n  x; # nginxgen: ignore[NGX009] generated this way"
    assert _findings(tmp_path, after, codes) == []
    # two lines above the statement: not this one's (NGX004 does not say unused ones)
    far = "# nginxgen: ignore[NGX009] generated this way\n\nadd_header A\n  b\n  always\n  x;"
    assert _findings(tmp_path, far, codes) == [(10, "NGX009")]
