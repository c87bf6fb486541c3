"""The lossless model (issue 13): every file rejoins byte for byte from its tokens, and its
statements carry the directives and arguments the loader (crossplane's parser) reads."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from crossplane.lexer import EXTERNAL_LEXERS
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nginxgen.conf.load import _parse_text
from nginxgen.edit.source import Source, SourceStatement, from_spans
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
}


def files() -> list[Path]:
    paths = example_and_corpus_files()
    return paths


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
    assert Source(data).joined() == data


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


def loader_shape(parsed: list[dict[str, object]]) -> list[object]:
    return [
        (
            d["directive"],
            list(d.get("args", [])),  # type: ignore[call-overload]
            loader_shape(d["block"]) if "block" in d else None,  # type: ignore[arg-type]
        )
        for d in parsed
        if d["directive"] != "#"
    ]


def test_statements_mean_what_the_loader_reads() -> None:
    compared = 0
    for path in files():
        data = path.read_bytes()
        text = data.decode("utf-8", errors="surrogateescape")
        if any(name in text for name in EXTERNAL_LEXERS):
            continue  # Lua blocks: their content is Lua, which crossplane keeps as one token
        parsed, problems, _ = _parse_text(text, str(path))
        if problems or not parsed:
            continue
        source = Source(data)
        assert shape(source, source.statements) == loader_shape(parsed), path
        compared += 1
    assert compared > 100


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


FUZZ = settings(max_examples=FUZZ_CASES, deadline=None, database=None)
ANY_BYTES = st.one_of(st.binary(max_size=400), token_stream())
MUTATED_FILES = st.sampled_from([p for p in files() if p.stat().st_size < 20_000]).flatmap(
    lambda path: mutated(path.read_bytes())
)


@FUZZ
@given(ANY_BYTES)
def test_any_bytes_rejoin(data: bytes) -> None:
    source = Source(data)
    assert source.joined() == data
    assert all(a.end == b.start for a, b in pairwise(source.tokens))


@FUZZ
@given(MUTATED_FILES)
def test_mutated_files_rejoin(data: bytes) -> None:
    assert Source(data).joined() == data


# One reading per file (issue 24): the lossless tokens are made from the loader's spans. Where
# that is possible they must be exactly the tokens the lossless tokenizer makes on its own.


def _tokens(data: bytes) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]] | None]:
    text = data.decode("utf-8", errors="surrogateescape")
    spans = _parse_text(text, "f.conf", with_spans=True)[2]
    own = [(t.kind, t.start, t.end) for t in Source(data).tokens]
    made = from_spans(text, data, spans) if spans else None
    return own, None if made is None else [(t.kind, t.start, t.end) for t in made]


def test_tokens_from_the_loaders_reading_are_the_tokenizers() -> None:
    made_from_spans = 0
    for path in [*files()]:
        own, made = _tokens(path.read_bytes())
        if made is not None:
            assert made == own, path
            made_from_spans += 1
    assert made_from_spans > 100


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_tokens_from_spans(name: str) -> None:
    own, made = _tokens(HAND_MADE[name])
    assert made is None or made == own
    if name in ("tabs", "crlf", "latin-1", "quotes and escapes", "bom"):
        assert made == own  # these are read whole: no second tokenizing


def tokens_from_spans_agree(cases: st.SearchStrategy[bytes]) -> None:
    """A case the loader reads no spans from has nothing to compare: it is thrown away (assume)
    and replaced, so every case hypothesis counts compared the two tokenizings."""
    compared = 0

    @FUZZ
    @given(cases)
    def one(data: bytes) -> None:
        nonlocal compared
        own, made = _tokens(data)
        assume(made is not None)
        assert made == own
        compared += 1

    one()
    assert compared >= FUZZ.max_examples, compared


@pytest.mark.fuzz
def test_any_bytes_tokens_from_spans() -> None:
    tokens_from_spans_agree(ANY_BYTES)


@pytest.mark.fuzz
def test_mutated_files_tokens_from_spans() -> None:
    tokens_from_spans_agree(MUTATED_FILES)
