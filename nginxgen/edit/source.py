"""A lossless model of one nginx config file: every byte is in exactly one token.

Tokens are the pieces nginx's tokenizer (ngx_conf_read_token) sees - words, quoted strings,
`{`, `}`, `;` - and the pieces it skips - whitespace and comments - each with its byte span,
line and column. Statements are built on the significant tokens: a directive's name, its
arguments, the `;` or the block that ends it, the indentation of its line and a comment that
trails it on the same line. Joining the tokens gives the file back byte for byte (tabs, CRLF, no
final newline, a BOM, bytes that are not UTF-8), which is what edits need: they replace byte
spans and leave everything else alone.

The tokens come from the loader's one reading of nginx syntax (nginxgen.conf.lexer, the
lexer that feeds the loader): its spans of words, quoted strings, `{`, `}`, `;`, comments and
Lua blocks, and the whitespace between them (`from_spans`). A fix run builds the model from the
spans the loader kept (nginxgen.edit.tree_sources); `Source(data)` lexes the text itself. The
lexer's spans cover any text, a syntax error included (past it, the rest is read on as nginx
would), so every file joins back. Meaning stays the loader's: the tests check that the
statements here carry the same directives and arguments wherever the loader reads a file
without errors.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from nginxgen.conf.lexer import scan

SIGNIFICANT = frozenset({"quoted", "open", "close", "semi", "word", "lua"})
_NEWLINE = re.compile(rb"\n")


class Token:
    """One piece of the file. Line and column are worked out when asked (most tokens are never
    asked), from the offsets of the file's line starts."""

    __slots__ = ("_lines", "end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int, lines: list[int]) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self._lines = lines  # offsets where lines start, shared by every token of the file

    @property
    def line(self) -> int:
        return bisect_right(self._lines, self.start)

    @property
    def column(self) -> int:
        return self.start - self._lines[self.line - 1] + 1

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.start}:{self.end}, line {self.line})"


class SourceStatement:
    """A directive of the lossless model, as tokens with their byte spans, ended by `;`, by a
    block, or cut off by the file's end. (A directive as the config model reads it, its words
    unquoted, is conf/load's Stmt; Context.locate finds one from the other.)"""

    __slots__ = ("args", "block", "close", "end_token", "indent", "name", "open", "trailing")

    def __init__(self, name: Token) -> None:
        self.name = name
        self.args: list[Token] = []
        self.end_token: Token | None = None  # the `;`, the block's `}`, or its Lua block
        self.open: Token | None = None  # the block's `{`
        self.block: list[SourceStatement] | None = None
        self.close: Token | None = None
        self.indent: bytes | None = None  # whitespace before it on its line (None: shares it)
        self.trailing: Token | None = None  # a comment after it on the same line

    @property
    def start(self) -> int:
        return self.name.start

    @property
    def end(self) -> int:
        """The byte after its `;` or `}` (after its last token when the file is cut short)."""
        if self.end_token is not None:
            return self.end_token.end
        last = self.args[-1] if self.args else self.name
        return last.end


class Source:
    """One file: its bytes, every token, and the statements built on them."""

    def __init__(self, data: bytes, tokens: list[Token] | None = None) -> None:
        self.data = data
        self.tokens = tokens if tokens is not None else read(data)
        self.statements, self.strays = _statements(self.tokens)
        _layout(self)

    def text(self, token: Token) -> bytes:
        return self.data[token.start : token.end]

    def value(self, token: Token) -> str:
        """A word or quoted string as the loader reads it (quotes off, `\\"` unescaped)."""
        raw = self.text(token).decode("utf-8", errors="surrogateescape")
        if token.kind == "lua":  # the Lua code between its braces, as one word
            return raw[1:-1] if raw.endswith("}") else raw[1:]
        if token.kind != "quoted":
            return raw
        quote, body = raw[0], raw[1:-1] if len(raw) > 1 and raw[-1] == raw[0] else raw[1:]
        return body.replace("\\" + quote, quote)

    def joined(self) -> bytes:
        """The file put back together from its tokens."""
        return b"".join(self.data[t.start : t.end] for t in self.tokens)

    @property
    def newline(self) -> bytes:
        """The file's own line ending (CRLF when most of its lines end so)."""
        crlf = self.data.count(b"\r\n")
        return b"\r\n" if crlf and crlf * 2 >= self.data.count(b"\n") else b"\n"


def read(data: bytes) -> list[Token]:
    """The tokens of a file, from the lexer's reading of its text."""
    text = data.decode("utf-8", errors="surrogateescape")
    spans: list[tuple[int, int]] = []
    scan(text, spans=spans)
    return from_spans(text, data, spans)


# What the lexer's tokens start with, and the kind that makes them here.
_KIND_BY_FIRST = {ord("{"): "open", ord("}"): "close", ord(";"): "semi", ord("#"): "comment",
                  ord('"'): "quoted", ord("'"): "quoted"}  # fmt: skip
_BLANK = frozenset(b" \t\r\n")  # nginx's whitespace, what the lexer's spans leave out


def from_spans(text: str, data: bytes, spans: list[tuple[int, int]]) -> list[Token]:
    """The tokens of a file from the lexer's spans of it (offsets in `text`, the bytes `data`
    decoded): what lies between two spans is whitespace. A span from `{` that is more than the
    `{` is a Lua block (its braces and its code); an empty one (the `;` the lexer gives a Lua
    block) is no token."""
    if text.isascii():
        offsets: list[int] | None = None
    else:  # character offsets to byte offsets, one encode per piece
        offsets, done, at = [], 0, 0
        for start, end in spans:
            for point in (start, end):
                at += len(text[done:point].encode("utf-8", errors="surrogateescape"))
                done = point
                offsets.append(at)
    lines = [0, *(m.end() for m in _NEWLINE.finditer(data))]
    tokens: list[Token] = []
    before = 0
    for index, (start, end) in enumerate(spans):
        if offsets is not None:
            start, end = offsets[2 * index], offsets[2 * index + 1]
        if start == end:
            continue
        if start != before:
            _space(tokens, data, before, start, lines)
        kind = _KIND_BY_FIRST.get(data[start], "word")
        if kind == "open" and end > start + 1:
            kind = "lua"
        tokens.append(Token(kind, start, end, lines))
        before = end
    if before < len(data):
        _space(tokens, data, before, len(data), lines)
    return tokens


def _space(tokens: list[Token], data: bytes, start: int, end: int, lines: list[int]) -> None:
    # The spans hold every character but nginx's whitespace, none twice: else the model would
    # not give the file back.
    assert start < end and _BLANK.issuperset(data[start:end]), (start, end)
    tokens.append(Token("space", start, end, lines))


def _statements(tokens: list[Token]) -> tuple[list[SourceStatement], list[Token]]:
    """Statements nested as blocks; `strays` are `;`, `{` and `}` that belong to none."""
    top: list[SourceStatement] = []
    strays: list[Token] = []
    stack: list[tuple[SourceStatement | None, list[SourceStatement]]] = [(None, top)]
    current: SourceStatement | None = None
    for token in tokens:
        if token.kind not in SIGNIFICANT:
            continue
        owner, body = stack[-1]
        if token.kind in ("word", "quoted"):
            if current is None:
                current = SourceStatement(token)
                body.append(current)
            else:
                current.args.append(token)
        elif token.kind == "lua":  # its code is the directive's last word, and ends it
            if current is None:
                strays.append(token)
            else:
                current.args.append(token)
                current.end_token = token
                current = None
        elif token.kind == "semi":
            if current is None:
                strays.append(token)
            else:
                current.end_token = token
                current = None
        elif token.kind == "open":
            if current is None:
                strays.append(token)
                stack.append((None, []))  # nginx refuses it; keep the nesting to stay in step
            else:
                current.open, current.block = token, []
                stack.append((current, current.block))
                current = None
        else:  # close
            current = None  # a statement cut off by `}` has no end token
            if len(stack) == 1:
                strays.append(token)
                continue
            stack.pop()
            if owner is not None:
                owner.close = owner.end_token = token
            else:
                strays.append(token)
    return top, strays


def _layout(source: Source) -> None:
    """Each statement's indentation and trailing comment."""
    data, tokens = source.data, source.tokens
    by_start = {t.start: i for i, t in enumerate(tokens)}
    pending = list(source.statements)  # a stack, not recursion: blocks may nest thousands deep
    while pending:
        stmt = pending.pop()
        if stmt.block is not None:
            pending.extend(stmt.block)
        line_start = data.rfind(b"\n", 0, stmt.start) + 1
        before = data[line_start : stmt.start]
        stmt.indent = before if not before.strip(b" \t") else None
        index = by_start.get(stmt.end)
        if index is not None and tokens[index].kind == "space":
            if b"\n" in source.text(tokens[index]):
                continue  # the next thing is on another line
            index += 1
        if index is not None and index < len(tokens) and tokens[index].kind == "comment":
            stmt.trailing = tokens[index]
