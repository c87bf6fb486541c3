"""The lossless model (issue 13): every file rejoins byte for byte from its tokens, and its
statements carry the directives and arguments the loader reads.

Its tokens are the lexer's one reading of the file (issue 45), the loader's: checked here
against nginx's tokenizer (ngx_conf_read_token) written as one regular expression that shares
nothing with nginxgen.conf.lexer, on every file and on generated text, syntax errors included;
the lexer's Lua blocks are checked against crossplane's Lua plugin in tests/conf/test_lexer.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nginxgen.conf.load import RawStmt, _parse_text, load_path, template_mark, walk
from nginxgen.edit.source import Source, SourceStatement, from_spans
from nginxgen.edit.tree_sources import TreeSources
from tests.fuzzing.configs import mutated, token_stream
from tests.helpers import FUZZ_CASES
from tests.paths import example_and_corpus_files

HAND_MADE = {
    "tabs": b"http {\n\tserver {\n\t\tlisten 443 ssl;\t# tls\n\t}\n}\n",
    "crlf": b"http {\r\n    server {\r\n        listen 443 ssl;\r\n    }\r\n}\r\n",
    "no final newline": b"events {}\nhttp { ssl_protocols TLSv1.2 TLSv1.3; }",
    "bom": b"\xef\xbb\xbfevents {}\nhttp {}\n",
    "latin-1": b'# caf\xe9 config\nhttp { add_header X-Name "caf\xe9"; }\n',
    "blank lines and comments": b"\n\n# a\n\nhttp {\n\n    # b\n    gzip on;   # c\n\n}\n\n",
    "quotes and escapes": b"http { add_header X \"a \\\" b\" always; return 200 'it\\'s'; set $a \\;; }\n",
    "lua": b"http { server { location / { content_by_lua_block { ngx.say('}') } } } }\n",
    "broken": b'http { server { listen 443 ssl }\n"unterminated\n',
    # what the model once tokenized a second time (issue 45): the lexer reads them itself
    "set_by_lua_block": b"http { server { set_by_lua_block $res { return 1 -- }\n } } }\n",
    "lua cut off": b"http { content_by_lua_block { ngx.say(1)\n",
    "backslash after a comment": b"events {} # no \\\nhttp {}\n",
    "control characters": b"events {}\nhttp {\x0c\n gzip\x0bon; \x1c add_header X\xc2\xa0 1;\n}\n",
    "a brace too many": b"events {}\n}\nhttp { gzip on; }\n",
    "backslash at the end": b"events {}\nhttp {}\n\\",
    "variable braces": b"events {}\nhttp { map $a ${x;y} { } map $b $c { ${x{{y} 1; } }\n",
}

# nginx's tokenizer as one regular expression (ngx_conf_read_token): whitespace is space, tab,
# CR and LF; a comment runs to the end of its line; a quoted string to its quote or the end of
# the file; a word ends at whitespace, `;` or `{`, takes a backslash's next character along
# (a lone one at the very end too), and `{` right after `$` (and more `{` after that).
NGINX_TOKEN = re.compile(
    rb"""(?P<space>[ \t\r\n]+)
    |(?P<comment>\#[^\n]*)
    |(?P<quoted>"(?:[^"\\]|\\[\s\S]|\\\Z)*"?|'(?:[^'\\]|\\[\s\S]|\\\Z)*'?)
    |(?P<open>\{)
    |(?P<close>\})
    |(?P<semi>;)
    |(?P<word>(?:\\[\s\S]|\\\Z|\$\{+|[^ \t\r\n;{\\])+)""",
    re.VERBOSE,
)

Tokens = list[tuple[str, int, int]]


def nginx_tokens(data: bytes) -> Tokens:
    found = [(m.lastgroup or "", m.start(), m.end()) for m in NGINX_TOKEN.finditer(data)]
    assert sum(end - start for _, start, end in found) == len(data)  # the oracle covers it all
    return found


def tokens_of(source: Source) -> Tokens:
    return [(t.kind, t.start, t.end) for t in source.tokens]


def files() -> list[Path]:
    return example_and_corpus_files()


def has_lua(data: bytes) -> bool:
    return b"_by_lua_block" in data


def test_every_file_rejoins_byte_for_byte() -> None:
    checked = 0
    for path in files():
        data = path.read_bytes()
        source = Source(data)
        assert source.joined() == data, path
        # ... and the tokens are contiguous: no byte twice, none left out
        assert all(a.end == b.start for a, b in pairwise(source.tokens)), path
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_files_rejoin(name: str) -> None:
    data = HAND_MADE[name]
    source = Source(data)
    assert source.joined() == data
    assert all(a.end == b.start for a, b in pairwise(source.tokens))
    if not has_lua(data):
        assert tokens_of(source) == nginx_tokens(data)


def test_every_file_is_read_as_nginx_reads_it() -> None:
    """Outside Lua blocks, the lexer's tokens are nginx's tokenizer's, byte for byte."""
    compared = 0
    for path in files():
        data = path.read_bytes()
        if not has_lua(data):
            assert tokens_of(Source(data)) == nginx_tokens(data), path
            compared += 1
    assert compared > 100


def if_args(args: list[str]) -> list[str]:
    """crossplane's parser takes the parentheses off `if (...)`; the model keeps the bytes."""
    args = list(args)
    if args and args[0].startswith("("):
        args[0] = args[0][1:]
    if args and args[-1].endswith(")"):
        args[-1] = args[-1][:-1]
    return [a for a in args if a]


def shape(source: Source, statements: list[SourceStatement]) -> list[object]:
    out: list[object] = []
    for s in statements:
        name = source.value(s.name)
        args = [source.value(a) for a in s.args]
        block = shape(source, s.block) if s.block is not None else None
        out.append((name, if_args(args) if name == "if" else args, block))
    return out


def loader_shape(parsed: list[RawStmt]) -> list[object]:
    return [
        (directive, list(args), loader_shape(block) if block is not None else None)
        for directive, _, args, block, *_ in parsed
        if directive != "#"
    ]


def test_statements_mean_what_the_loader_reads() -> None:
    compared = lua = 0
    for path in files():
        data = path.read_bytes()
        text = data.decode("utf-8", errors="surrogateescape")
        parsed, problems, _ = _parse_text(text, str(path))
        if problems or not parsed:
            continue
        source = Source(data)
        assert shape(source, source.statements) == loader_shape(parsed), path
        compared += 1
        lua += has_lua(data)
    assert compared > 100
    assert lua >= 3  # a Lua block's code is one word of its directive, as the loader reads it


def test_layout_of_a_statement() -> None:
    source = Source(HAND_MADE["tabs"])
    http = source.statements[0]
    assert http.indent == b"" and http.block is not None
    server = http.block[0]
    assert server.indent == b"\t" and server.block is not None
    listen = server.block[0]
    assert listen.indent == b"\t\t" and listen.trailing is not None
    assert source.text(listen.trailing) == b"# tls"
    assert source.data[listen.start : listen.end] == b"listen 443 ssl;"
    assert (listen.name.line, listen.name.column) == (3, 3)
    shared = Source(b"http { gzip on; }\n").statements[0].block
    assert shared is not None and shared[0].indent is None  # shares its line with `http {`
    assert Source(HAND_MADE["crlf"]).newline == b"\r\n"
    assert Source(HAND_MADE["tabs"]).newline == b"\n"


def test_a_lua_block_is_one_word_that_ends_its_directive() -> None:
    source = Source(HAND_MADE["set_by_lua_block"])
    (http,) = source.statements
    assert http.block is not None and http.block[0].block is not None
    (lua,) = http.block[0].block
    assert [source.value(a) for a in lua.args] == ["$res", " return 1 -- }\n "]
    assert lua.end_token is lua.args[-1] and source.text(lua.end_token).endswith(b"}")
    assert source.data[lua.end :].startswith(b" } }")


# One reading per file (issues 24, 45): a fix run builds the lossless model from the spans the
# loader kept, for every file it reads (Lua blocks and syntax errors included), and they make
# the same tokens as the model's own reading.


def loaders_tokens(data: bytes) -> Tokens | None:
    text = data.decode("utf-8", errors="surrogateescape")
    spans = _parse_text(text, "f.conf", with_spans=True)[2]
    return tokens_of(Source(data, from_spans(text, data, spans))) if spans else None


def test_every_files_model_is_made_from_the_loaders_reading() -> None:
    made = 0
    for path in files():
        data = path.read_bytes()
        tokens = loaders_tokens(data)
        text = data.decode("utf-8", errors="surrogateescape")
        if data.strip() and template_mark(text) is None:
            assert tokens is not None, path  # a template alone is not read
        if tokens is not None:
            assert tokens == tokens_of(Source(data)), path
            made += 1
    assert made > 100


# What the model once tokenized again with a regular expression of its own, because the loader
# kept no spans of it (a Lua block, a syntax error) or its spans left a gap that was not
# whitespace (a backslash after a comment, a control character): now it is made from the
# loader's spans, and each statement the loader read is found in it at the loader's offset.
FORMER_FALLBACKS = [
    "lua",
    "set_by_lua_block",
    "lua cut off",
    "broken",
    "a brace too many",
    "backslash after a comment",
    "control characters",
    "backslash at the end",
]


@pytest.mark.parametrize("name", FORMER_FALLBACKS)
def test_the_model_of_a_former_fallback_is_the_loaders_reading(name: str, tmp_path: Path) -> None:
    data = HAND_MADE[name]
    path = tmp_path / "f.conf"
    path.write_bytes(data)
    loaded = load_path(str(path), spans=True)
    spans = loaded.spans.get(str(path))
    assert spans, "the loader kept the spans of the whole file"
    text = loaded.texts[str(path)]
    tokens = from_spans(text, data, spans)
    assert tokens is not None, "the spans and whitespace between them hold every byte"
    source = Source(data, tokens)
    assert source.joined() == data
    assert tokens_of(source) == tokens_of(Source(data))
    if not has_lua(data):
        assert tokens_of(source) == nginx_tokens(data)
    tree = TreeSources(loaded.texts, loaded.spans)
    for stmt in walk(loaded.statements):
        found = tree.locate(stmt)
        assert found is not None, stmt
        model, statement = found
        assert model is tree.source(str(path))
        assert model.value(statement.name) == stmt.directive
        if stmt.block is None:
            assert [model.value(a) for a in statement.args] == stmt.args


FUZZ = settings(max_examples=FUZZ_CASES, deadline=None, database=None)
ANY_BYTES = st.one_of(st.binary(max_size=400), token_stream())
MUTATED_FILES = st.sampled_from([p for p in files() if p.stat().st_size < 20_000]).flatmap(
    lambda path: mutated(path.read_bytes())
)


def counted(cases: st.SearchStrategy[bytes], check: Callable[[bytes], bool]) -> None:
    """`check` on generated cases; one that has nothing to check returns False and is thrown
    away (assume) and replaced, so every case hypothesis counts checked something."""
    ran = 0

    @FUZZ
    @given(cases)
    def one(data: bytes) -> None:
        nonlocal ran
        assume(check(data))
        ran += 1

    one()
    assert ran >= FUZZ.max_examples, ran


def rejoins(data: bytes) -> bool:
    source = Source(data)
    assert source.joined() == data
    assert all(a.end == b.start for a, b in pairwise(source.tokens))
    return True


def read_as_nginx(data: bytes) -> bool:
    if has_lua(data):
        return False
    assert tokens_of(Source(data)) == nginx_tokens(data)
    return True


def one_reading(data: bytes) -> bool:
    """The loader's spans make the model's tokens (where the loader keeps spans: not of a
    template)."""
    tokens = loaders_tokens(data)
    if tokens is None:
        return False
    assert tokens == tokens_of(Source(data))
    return True


GENERATED = {"any bytes": ANY_BYTES, "mutated files": MUTATED_FILES}


@pytest.mark.parametrize("cases", sorted(GENERATED))
def test_generated_text_rejoins(cases: str) -> None:
    counted(GENERATED[cases], rejoins)


@pytest.mark.fuzz
@pytest.mark.parametrize("check", [read_as_nginx, one_reading])
@pytest.mark.parametrize("cases", sorted(GENERATED))
def test_generated_text_is_read_once_as_nginx_reads_it(
    cases: str, check: Callable[[bytes], bool]
) -> None:
    counted(GENERATED[cases], check)
