"""A faster drop-in for crossplane's lexer: the same (token, line, quoted) tuples and the same
syntax errors at the same points, made with regular expressions over the whole text instead of
three generators per character. Lexing was two thirds of lint time; crossplane's parser still
builds the tree from these tokens.

One difference, where nginx reads otherwise (ngx_conf_read_token): a `}` inside a word belongs
to the word (`appl}ication` is one word to nginx, and `a}` then `}` closes one block, not two);
crossplane ends the word there.

Equality with crossplane's lex_string, quirks included, is what tests/test_lexer.py checks on
every corpus file and on generated text: a backslash pairs with the next character (a lone one at
the end is dropped); a newline is counted on the line after it; `#` starts a comment only at the
start of a token; a quote inside a token is an ordinary character, and a quoted string ends its
token; `${...}` runs to `}` or whitespace and must not end the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# a word, its line and whether it was quoted (edit.source.Token is another thing: a span)
Lexeme = tuple[str, int, bool]


class NgxParserSyntaxError(Exception):
    """A syntax error where crossplane's lexer raises its own of that name (same message, same
    line): nginxgen's lexer and parser need nothing of crossplane at run time."""

    def __init__(self, strerror: str, filename: str | None, lineno: int | None) -> None:
        super().__init__(strerror, filename, lineno)
        self.strerror, self.filename, self.lineno = strerror, filename, lineno

    def __str__(self) -> str:
        return f"{self.strerror} in {self.filename}:{self.lineno}"


# Lua blocks have a lexer plugin of their own in crossplane (crossplane.ext.lua): such a file is
# lexed by crossplane, imported only then.
_LUA_BLOCK = "_by_lua_block"
# without crossplane (an install that left it out): the file is not read, and its finding says why
LUA_UNREADABLE = "a *_by_lua_block is read only with crossplane, which is not installed here"

_NEXT = re.compile(
    r"""(?P<ws>\s+)
    |(?P<word>[^\s{};"'\\#$]+)
    |(?P<punct>[{};])
    |(?P<hash>\#)
    |(?P<quote>["'])
    |(?P<esc>\\[\s\S])
    |(?P<lone>\\)
    |(?P<dollar>\$)""",
    re.VERBOSE,
)
_COMMENT = re.compile(r"#(?:[^\\\n]|\\[^\n])*")
_QUOTED = {
    '"': re.compile(r'((?:[^"\\]|\\[\s\S])*)"'),
    "'": re.compile(r"((?:[^'\\]|\\[\s\S])*)'"),
}
# What nginx's ngx_conf_read_token() accepts right after a closing quote.
_AFTER_QUOTE = frozenset(" \t\r\n;{)")
_ESCAPED_PAIR = re.compile(r"\\([\s\S])")
_UNIT = re.compile(r"\\[\s\S]|[\s\S]")


def lex(text: str, filename: str | None = None, as_crossplane: bool = False) -> Iterator[Lexeme]:
    """Tokens of one file, as crossplane.lexer.lex_string yields them (errors included); with
    `as_crossplane`, a `}` ends a word as in crossplane (the tests compare that reading)."""
    tokens, error = scan(text, filename, word_brace=not as_crossplane)
    yield from tokens
    if error is not None:
        raise error


def scan(
    text: str,
    filename: str | None = None,
    strict: list[tuple[str, int]] | None = None,
    word_brace: bool = True,
    spans: list[tuple[int, int]] | None = None,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    """All tokens up to the first syntax error, and that error (None if there is none).

    `strict`, when given, collects what nginx refuses while crossplane reads on: a quoted string
    followed by anything but whitespace, `;`, `{` or `)` (nginx: unexpected "c"). `spans`, when
    given, gets each token's (start, end) offsets in the text, so the lossless model of the file
    (nginxgen.edit.source) is built from this one reading; a file crossplane lexes (Lua blocks)
    gets none."""
    if _LUA_BLOCK in text:
        try:
            from crossplane.errors import NgxParserBaseException
            from crossplane.lexer import EXTERNAL_LEXERS, lex_string
        except ImportError:  # an install without it (a browser page): say so where it matters
            line = text[: text.index(_LUA_BLOCK)].count("\n") + 1
            message = f"{LUA_UNREADABLE} (pip install ngxparse)"
            return [], NgxParserSyntaxError(message, filename, line)

        if any(directive in text for directive in EXTERNAL_LEXERS):
            tokens: list[Lexeme] = []
            try:
                tokens.extend(lex_string(text, filename))
            except NgxParserBaseException as exc:
                return tokens, NgxParserSyntaxError(exc.strerror, filename, exc.lineno)
            return tokens, None
    return _scan(text, filename, strict, word_brace, spans)


def _scan(
    text: str,
    filename: str | None,
    strict: list[tuple[str, int]] | None = None,
    word_brace: bool = True,
    spans: list[tuple[int, int]] | None = None,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    out: list[Lexeme] = []
    token, token_line, line, depth, pos, end = "", 0, 1, 0, 0, len(text)
    token_start = 0  # where the word being read began
    keep = spans is not None
    placed: list[tuple[int, int]] = spans if spans is not None else []
    while pos < end:
        match = _NEXT.match(text, pos)
        assert match is not None  # the alternatives cover every character
        kind, piece = match.lastgroup, match.group()
        pos = match.end()
        if kind == "ws":
            if token:
                out.append((token, token_line, False))
                if keep:
                    placed.append((token_start, match.start()))
                token = ""
            line += piece.count("\n")
        elif kind == "word" or kind == "dollar":
            if not token:
                token_line, token_start = line, match.start()
            token += piece
        elif kind == "punct":
            if piece == "{" and token.endswith("$"):
                token, pos, line, error = _expansion(text, pos, token, token_line, line, filename)
                if error is not None:
                    return out, error
                continue
            if piece == "}" and token and word_brace:
                token += piece  # nginx ends a word only at whitespace, `;` or `{`
                continue
            if token:
                out.append((token, token_line, False))
                if keep:
                    placed.append((token_start, match.start()))
                token = ""
            depth += 1 if piece == "{" else -1 if piece == "}" else 0
            if depth < 0:
                return out, NgxParserSyntaxError('unexpected "}"', filename, line)
            out.append((piece, line, False))
            if keep:
                placed.append((match.start(), pos))
        elif token and (kind == "hash" or kind == "quote"):
            token += piece  # inside a word, `#` and quotes are ordinary characters
        elif kind == "hash":
            stop, after, lines = _comment(text, pos - 1)
            out.append((text[pos - 1 : stop], line, False))
            if keep:
                placed.append((pos - 1, stop))
            pos, line = after, line + lines
        elif kind == "quote":
            value, pos, after, error = _quoted(text, pos, line, filename, strict)
            if error is not None:
                return out, error
            out.append((value, line, True))
            if keep:
                placed.append((match.start(), pos))
            line = after
        elif kind == "esc":
            if piece.endswith("\n"):
                line += 1
            if not token:
                token_line, token_start = line, match.start()
            token += piece
        else:  # a lone backslash ends the text: crossplane drops it
            pos = match.start()
            break
    if token:
        out.append((token, token_line, False))
        if keep:
            placed.append((token_start, pos))
    return _finish(out, depth, filename)


def _comment(text: str, start: int) -> tuple[int, int, int]:
    """The comment from the `#` at `start` to the end of its line: where it ends, where lexing
    goes on (past the newline, or past a backslash-newline; a lone backslash at the very end is
    dropped as crossplane drops it) and the lines passed."""
    comment = _COMMENT.match(text, start)
    assert comment is not None
    stop = comment.end()
    if text.startswith("\\\n", stop):
        return stop, stop + 2, 1
    if text.startswith("\n", stop):
        return stop, stop + 1, 1
    return stop, len(text), 0


def _quoted(
    text: str, pos: int, line: int, filename: str | None, strict: list[tuple[str, int]] | None
) -> tuple[str, int, int, NgxParserSyntaxError | None]:
    """The quoted string whose quote is at pos - 1: its value (the quote unescaped), where it
    ends, the line there, and the error when the file ends first. What nginx refuses after the
    closing quote goes to `strict`."""
    quote = text[pos - 1]
    quoted = _QUOTED[quote].match(text, pos)
    if quoted is None:
        reason = f'unexpected end of file, expecting "{quote}"'
        return "", pos, line, NgxParserSyntaxError(reason, filename, line)
    body = quoted.group(1)
    line += body.count("\n")
    pos = quoted.end()
    if strict is not None and pos < len(text) and text[pos] not in _AFTER_QUOTE:
        strict.append((f'unexpected "{text[pos]}"', line))
    return _unescape_quote(body, quote), pos, line, None


def _finish(
    out: list[Lexeme], depth: int, filename: str | None
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    if depth > 0:
        reason = 'unexpected end of file, expecting "}"'
        return out, NgxParserSyntaxError(reason, filename, out[-1][1])
    return out, None


def _unescape_quote(body: str, quote: str) -> str:
    if "\\" not in body:
        return body
    return _ESCAPED_PAIR.sub(lambda m: quote if m.group(1) == quote else m.group(0), body)


def _expansion(
    text: str, pos: int, token: str, token_line: int, line: int, filename: str | None
) -> tuple[str, int, int, NgxParserSyntaxError | None]:
    """`${...}`: from the `{` at pos - 1, take characters until the token ends with `}` or a
    whitespace character comes; the file must not end meanwhile. Returns the token so far, the
    position of the character that stopped it (lexed as usual next), and the line there."""
    pos -= 1
    end = len(text)
    while True:
        unit = _UNIT.match(text, pos)
        assert unit is not None
        piece = unit.group()
        token += piece
        if piece.endswith("\n"):
            line += 1
        pos = unit.end()
        if pos >= end or (pos == end - 1 and text[pos] == "\\"):
            return token, pos, line, _eof_in_expansion(filename, token_line)
        if token.endswith("}") or text[pos].isspace():
            return token, pos, line, None


def _eof_in_expansion(filename: str | None, line: int) -> NgxParserSyntaxError:
    return NgxParserSyntaxError('unexpected end of file, expecting "}"', filename, line)
