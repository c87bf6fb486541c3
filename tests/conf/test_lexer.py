"""nginxgen's lexer against crossplane's, token for token and error for error: on every example
and corpus file, on hand-picked quirks, and on generated text (tokens, mutations, odd bytes)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from crossplane.errors import NgxParserBaseException
from crossplane.lexer import lex_string
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nginxgen.conf import lexer
from nginxgen.conf.lexer import NgxParserSyntaxError, lex
from nginxgen.conf.load import parse_tokens
from tests.fuzzing.configs import mutated, token_stream
from tests.helpers import FUZZ_CASES
from tests.paths import example_and_corpus_files

Outcome = tuple[list[tuple[str, int, bool]], tuple[str, int | None] | None]


def run(lexer: object, text: str) -> Outcome:
    tokens: list[tuple[str, int, bool]] = []
    try:
        for token in lexer(text, "f.conf"):  # type: ignore[operator]
            tokens.append(token)
    except (NgxParserBaseException, NgxParserSyntaxError) as exc:
        # crossplane's Lua extension raises its own class for a Lua block's syntax error; the
        # loader reports every syntax error as one, so the class of that one is not compared
        kind = type(exc).__name__.replace("LuaBlockParserSyntaxError", "NgxParserSyntaxError")
        return tokens, (f"{kind}: {exc.strerror}", exc.lineno)
    return tokens, None


def crossplane_reading(text: str, filename: str) -> Iterator[tuple[str, int, bool]]:
    """nginxgen's lexer with crossplane's differences from nginx put back (NGINX_READS_OTHERWISE
    below; tests/conf/test_structure_oracle.py checks nginx's reading against nginx -t)."""
    return lex(text, filename, as_crossplane=True)


def same(text: str) -> None:
    """Both readings of nginxgen's lexer, plain stretches in one step (once lexer.PLAIN_MIN
    characters were lexed) and every token by itself (before), equal crossplane's."""
    theirs = run(lex_string, text)
    plain_min = lexer.PLAIN_MIN
    try:
        for lexer.PLAIN_MIN in (0, 10**18):
            assert run(crossplane_reading, text) == theirs
    finally:
        lexer.PLAIN_MIN = plain_min


QUIRKS = [
    "", "a", "a;", "a b;\n", "# c", "# c\n", "a # not a comment;\n", "a;# c\\\nb;",
    "x \"q\\\"q\" 'a\\'b' \"e\\n\";", '"abc"def;', 'ab"cd"ef;', '""', "'unterminated",
    '"unterminated\n\n', "a\\", "a \\\\ b;", "a\\;b;", "\\\na;", "a\\\n;", "a \\ b;",
    "set $x ${y}z;", "${a", "${a}", "${a} ", "${a b} c;", "a${b}${c};", "$ {b};", "x$\\{y};",
    "a { b; }", "a { b;", "}", "a { } }", "{{}}", "a\r\nb;\r\n", "a\t\x0bb\x1c;",
    "l { # c\n}", "#\\", "# a\\\\\nb;", "\"a\\\\\" b;", "'\\'' x;", "日本 語;\n", "a\x00b;",
    "content_by_lua_block { ngx.say('}') }",
    "set_by_lua_block $res -- no brace\n local a = 32\n}",
]  # fmt: skip


@pytest.mark.parametrize("text", QUIRKS)
def test_quirks(text: str) -> None:
    same(text)


# Where nginx's tokenizer (ngx_conf_read_token) and crossplane's read a text otherwise: the
# loader and the lossless model read it as nginx does (these tokens), crossplane otherwise.
NGINX_READS_OTHERWISE = {
    # a `}` ends no word
    "types { appl}ication/x hqx; }": [
        ("types", 1, False), ("{", 1, False), ("appl}ication/x", 1, False), ("hqx", 1, False),
        (";", 1, False), ("}", 1, False),
    ],
    # whitespace is a space, a tab, CR or LF: not a form feed, a vertical tab, a Unicode space
    "\x0cevents {}": [("\x0cevents", 1, False), ("{", 1, False), ("}", 1, False)],
    "a\x0bb\x1c c\xa0;": [("a\x0bb\x1c", 1, False), ("c\xa0", 1, False), (";", 1, False)],
    # `${` is part of a word, which ends where any word ends (crossplane reads on to `}`)
    "map $a ${x;y} {}": [
        ("map", 1, False), ("$a", 1, False), ("${x", 1, False), (";", 1, False),
        ("y}", 1, False), ("{", 1, False), ("}", 1, False),
    ],
    "a ${x{y} 1; }": [("a", 1, False), ("${x", 1, False), ("{", 1, False), ("y}", 1, False),
                      ("1", 1, False), (";", 1, False), ("}", 1, False)],
    "a $${{b;": [("a", 1, False), ("$${{b", 1, False), (";", 1, False)],
    "a \\${b; }": [("a", 1, False), ("\\$", 1, False), ("{", 1, False), ("b", 1, False),
                    (";", 1, False), ("}", 1, False)],
    # a comment runs to the end of its line, a backslash there included
    "a; # b \\\nc;": [("a", 1, False), (";", 1, False), ("# b \\", 1, False), ("c", 2, False),
                     (";", 2, False)],
    # a backslash at the very end of the file is read (crossplane drops it)
    "a \\": [("a", 1, False), ("\\", 1, False)],
}  # fmt: skip


@pytest.mark.parametrize("text", sorted(NGINX_READS_OTHERWISE))
def test_where_nginx_reads_otherwise(text: str) -> None:
    nginx = run(lex, text)
    assert nginx == (NGINX_READS_OTHERWISE[text], None)
    assert run(lex_string, text) != nginx
    same(text)  # ... and with as_crossplane, the lexer reads as crossplane does


def test_the_lua_directives_are_crossplanes() -> None:
    from crossplane.ext.lua import LuaBlockPlugin

    assert set(LuaBlockPlugin.directives) == lexer.LUA_DIRECTIVES


def _files() -> list[str]:
    paths = example_and_corpus_files()
    return [os.fspath(p) for p in paths]


def test_every_example_and_corpus_file() -> None:
    files = _files()
    assert len(files) > 20
    lua = 0
    for path in files:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        same(text)
        lua += "_by_lua_block {" in text
    assert lua >= 5  # crossplane's Lua plugin is met, not only its absence


FUZZ = settings(max_examples=FUZZ_CASES, deadline=None,
                suppress_health_check=list(HealthCheck))  # fmt: skip
_alphabet = st.sampled_from([*list("ab $#{};\"'\\\n\r\t}{"), "${", "\\\n", '\\"', "日"])


@FUZZ
@given(st.lists(_alphabet, max_size=60).map("".join))
def test_generated_character_soup(text: str) -> None:
    same(text)


# Lua blocks, the way crossplane's plugin reads them: a directive of its list at the start of a
# statement, its code to the `}` that balances its `{` outside strings and `--` comments.
_lua_alphabet = st.sampled_from([
    "content_by_lua_block", "set_by_lua_block", '"access_by_lua_block"', "ngx_by_lua_block",
    "{", "}", "-", "--", "'", '"', "\\", "\n", " ", "\t", "\\\n", "x", ";", "#", "$", "${",
    "\\'", "\\}", "$res", "\x0b",
])  # fmt: skip


@FUZZ
@given(st.lists(_lua_alphabet, max_size=60).map("".join))
def test_generated_lua_blocks(text: str) -> None:
    same(text)


_lua_texts = st.builds(
    "{}{} {}{{{}}}{}".format,
    st.sampled_from(["", "a;", "http {\n", "# c\n", "x { y; }\n", "'q' "]),
    st.sampled_from(sorted(lexer.LUA_DIRECTIVES)),
    st.sampled_from(["", "$res ", "\n\t", "$res\n", "'$res' "]),
    st.lists(_lua_alphabet, max_size=40).map("".join),
    st.lists(_lua_alphabet, max_size=20).map("".join),
)


def test_generated_lua_blocks_are_read() -> None:
    """Lua blocks at the start of a statement, their bodies generated: crossplane's plugin reads
    a body in most (counted: a text where it reads none is replaced)."""
    read = 0

    @FUZZ
    @given(_lua_texts)
    def one(text: str) -> None:
        nonlocal read
        tokens, _ = run(lex_string, text)
        assume(any(quoted and not t.endswith("by_lua_block") for t, _, quoted in tokens))
        same(text)
        read += 1

    one()
    assert read >= FUZZ.max_examples, read


@FUZZ
@given(token_stream())
def test_generated_token_streams(data: bytes) -> None:
    same(data.decode("utf-8", "surrogateescape"))


@FUZZ
@given(st.sampled_from([p for p in _files() if os.path.getsize(p) < 20_000]).flatmap(
    lambda path: mutated(open(path, "rb").read())  # noqa: SIM115
))  # fmt: skip
def test_mutated_files(data: bytes) -> None:
    same(data.decode("utf-8", "surrogateescape"))


def parsed_both_ways(text: str, folder: Path) -> tuple[object, object]:
    """crossplane's parser (public parse(), single file, comments) and nginxgen's
    (load.parse_tokens) on the same tokens, crossplane's lexer's: statements, and the error."""
    import crossplane

    path = folder / "f.conf"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    payload = crossplane.parse(
        str(path), single=True, comments=True, check_ctx=False, check_args=False
    )
    theirs = (
        payload["config"][0]["parsed"],
        [(e["error"].rsplit(" in ", 1)[0], e["line"]) for e in payload["errors"]],
    )
    tokens: list[tuple[str, int, bool]] = []
    error = None
    try:
        tokens.extend(crossplane.lex(str(path)))  # the file as crossplane decodes it
    except NgxParserBaseException as exc:
        error = NgxParserSyntaxError(exc.strerror, str(path), exc.lineno)
    parsed, failed = parse_tokens(tokens, error)
    return theirs, (parsed, [failed] if failed else [])


def test_the_parser_reads_as_crossplane_reads(tmp_path: Path) -> None:
    texts = [*QUIRKS, "if (1) { a; }", "if ( $a ) {}", "if () {}", "a { b }\nc;", "}\nb;"]
    for path in _files():
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            texts.append(handle.read())
    for text in texts:
        theirs, ours = parsed_both_ways(text, tmp_path)
        assert ours == theirs, text[:200]


@FUZZ
@given(
    st.one_of(token_stream(), st.lists(_alphabet, max_size=60).map(lambda t: "".join(t).encode()))
)
def test_the_parser_on_generated_text(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        theirs, ours = parsed_both_ways(data.decode("utf-8", "surrogateescape"), Path(folder))
    assert ours == theirs
