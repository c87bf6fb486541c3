"""Where each statement ends (Stmt.end_line: its `;`, or a block's `{`), the line nginx names
in what its handler says of it (conf.load.handler_line), in every way the loader reads."""

from __future__ import annotations

from pathlib import Path

from nginxgen.conf.lexer import PART_MIN
from nginxgen.conf.load import READ_AHEAD_MIN, Stmt, handler_line, load_path, walk


def test_the_loader_keeps_where_each_statement_ends(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n  server\n  {\n    add_header A\n      'b;\nc'\n      always;\n"
        "    location /x { return 204; }\n    location /y # why\n    {\n    }\n  }\n}\n"
    )
    ends = {(s.directive, s.line): s.end_line for s in walk(load_path(str(conf)).statements)}
    assert ends == {
        ("events", 1): 1,
        ("http", 2): 2,
        ("server", 3): 4,  # nginx calls the handler at the `{`
        ("add_header", 5): 8,  # a quoted word with a `;` in it does not end it
        ("location", 9): 9,
        ("return", 9): 9,
        ("location", 10): 11,  # a comment between does not end it
    }


def test_the_loader_keeps_where_each_block_closes(tmp_path: Path) -> None:
    """Stmt.close_line: a block's `}` (a quoted one, or one in a comment, is a word), 0 for a
    statement that is no block; a dump's files keep theirs as the files do."""
    text = (
        "events {}\nhttp {\n  server\n  {\n    return 200 '}';\n    # }\n"
        "    location /x { return 204; }\n\n  }\n}\n"
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    dump = tmp_path / "dump.txt"
    dump.write_text(f"# configuration file {conf}:\n{text}")
    for path in (conf, dump):
        closes = {
            (s.directive, s.line): s.close_line for s in walk(load_path(str(path)).statements)
        }
        assert closes == {
            ("events", 1): 1,
            ("http", 2): 10,
            ("server", 3): 9,
            ("return", 5): 0,
            ("location", 7): 7,
            ("return", 7): 0,
        }


def test_a_record_made_elsewhere_is_named_at_its_line() -> None:
    assert handler_line(Stmt("listen", ["80"], 7, "f")) == 7


def test_the_end_survives_lexing_in_pieces(tmp_path: Path) -> None:
    """A large file is lexed in forked pieces (lexer.PART_MIN), and a tree of many includes
    parsed in forked processes (load.READ_AHEAD_MIN): the lines each statement ends on are
    those of one reading in one process."""
    server = "server {{\n  listen 80{n};\n  add_header A\n    b\n    c\n    d;\n}}\n"
    body = "".join(server.format(n=n % 10) for n in range(4_000))
    assert len(body) > PART_MIN
    sites = tmp_path / "sites"
    sites.mkdir()
    for n in range(READ_AHEAD_MIN + 10):
        (sites / f"{n}.conf").write_text(server.format(n=n % 10))
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"events {{}}\nhttp {{\ninclude {sites}/*.conf;\n{body}}}\n")

    def ends(jobs: int) -> list[tuple[str, int, int]]:
        loaded = load_path(str(conf), jobs=jobs)
        return [(s.file, s.line, s.end_line) for s in walk(loaded.statements)]

    one, many = ends(1), ends(2)
    assert one == many
    last = len(body.splitlines()) + 2  # the line of the last `;` (a `}` after it)
    assert one[-1] == (str(conf), last - 3, last)
    assert (str(sites / "0.conf"), 3, 6) in one
