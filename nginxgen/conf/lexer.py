"""A faster drop-in for crossplane's lexer: the same (token, line, quoted) tuples and the same
syntax errors at the same points, made with regular expressions over the whole text instead of
three generators per character. Lexing was two thirds of lint time; crossplane's parser still
builds the tree from these tokens.

One difference, where nginx reads otherwise (ngx_conf_read_token): a `}` inside a word belongs
to the word (`appl}ication` is one word to nginx, and `a}` then `}` closes one block, not two);
crossplane ends the word there.

Equality with crossplane's lex_string, quirks included, is what tests/conf/test_lexer.py checks on
every corpus file and on generated text: a backslash pairs with the next character (a lone one at
the end is dropped); a newline is counted on the line after it; `#` starts a comment only at the
start of a token; a quote inside a token is an ordinary character, and a quoted string ends its
token; `${...}` runs to `}` or whitespace and must not end the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

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
# What the plain stretches of a text are read without: a quote, a comment (or `#` in a word),
# a backslash, `${`, and a `}` that ends a word (nginx keeps it in the word). Between two
# of these, whole lines are words, `;`, `{` and `}` apart by whitespace: read with one regular
# expression for the stretch instead of one match per word and per space (the lexer's time on
# a fleet's file: 3x less).
# Compiled once PLAIN_MIN characters were lexed (in one text or in many small files): for a
# pre-commit run's small file, compiling them (0.3-0.6 ms) would cost more than they save.
PLAIN_MIN = 8192
_lexed = [0]  # the characters lexed so far in this process


@cache
def _plain() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """What may not be plain (one set of characters: a fast search), the plain tokens and each
    newline (to count the lines), the plain tokens alone (for their spans)."""
    return (
        re.compile(r"""[\\"'#$}]"""),
        re.compile(r"[^\s{};]+|[{};]|\n"),
        re.compile(r"[^\s{};]+|[{};]"),
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
    jobs: int = 1,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    """All tokens up to the first syntax error, and that error (None if there is none).

    `strict`, when given, collects what nginx refuses while crossplane reads on: a quoted string
    followed by anything but whitespace, `;`, `{` or `)` (nginx: unexpected "c"). `spans`, when
    given, gets each token's (start, end) offsets in the text, so the lossless model of the file
    (nginxgen.edit.source) is built from this one reading; a file crossplane lexes (Lua blocks)
    gets none. `jobs` other than 1: a text of at least PART_MIN characters is lexed in that many
    pieces at once (0: as many as nginxgen.base.forks.processes gives), each in its own process
    (_scan_parts), with the same result."""
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
    if jobs != 1 and len(text) >= PART_MIN:
        from nginxgen.base.forks import processes

        parts = processes(jobs)
        done = _scan_parts(text, filename, strict, word_brace, spans, parts) if parts > 1 else None
        if done is not None:
            return done
    return _scan(text, filename, strict, word_brace, spans)


# Below this many characters a text is lexed in one piece: the pieces' start-up and the return
# of their tokens cost about what they save (about 430 of bench/run.py's vhosts; measured,
# docs/benchmarks.md#fleets-on-two-cores-issue-47).
PART_MIN = 200_000

# where a piece of the text stopped: its position, its line, the block depth there and the
# lowest depth it met (both from its start), and whether a word was still open
End = tuple[int, int, int, int, bool]


def _scan(
    text: str,
    filename: str | None,
    strict: list[tuple[str, int]] | None = None,
    word_brace: bool = True,
    spans: list[tuple[int, int]] | None = None,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    out, error, (_, _, depth, _, _) = _lex(
        text, 0, len(text), 1, 0, filename, strict, word_brace, spans
    )
    return (out, error) if error is not None else _finish(out, depth, filename)


def _scan_parts(
    text: str,
    filename: str | None,
    strict: list[tuple[str, int]] | None,
    word_brace: bool,
    spans: list[tuple[int, int]] | None,
    parts: int,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None] | None:
    """The text lexed in `parts` pieces, each cut just after a newline, the first here and the
    others in forked children (nginxgen.base.forks), joined: what _scan makes of the whole text.
    A piece starts in the state the lexer is in after a newline that ends a word, outside a
    quote or comment, at the line that counts the newlines before it; the piece before it
    must have ended there in that state, and its blocks must not close more than were open
    before it. Anything else (a quoted string across a cut, a syntax error) returns None and
    the text is lexed in one piece."""
    import marshal

    from nginxgen.base.forks import each_part

    cuts = [0]
    for k in range(1, parts):
        newline = text.find("\n", max(cuts[-1], len(text) * k // parts))
        if 0 <= newline < len(text) - 1:
            cuts.append(newline + 1)
    cuts.append(len(text))

    # tokens, read without an error, where it stopped, what `strict` and `spans` got, its line
    Piece = tuple[list[Lexeme], bool, End, list[tuple[str, int]], list[tuple[int, int]], int]

    def piece(index: int) -> Piece:
        start, stop = cuts[index], cuts[index + 1]
        found: list[tuple[str, int]] = []
        placed: list[tuple[int, int]] = []
        line = text.count("\n", 0, start) + 1
        floor = 0 if index == 0 else -len(text) - 1  # a later piece may close earlier blocks
        out, error, end = _lex(
            text,
            start,
            stop,
            line,
            floor,
            filename,
            found if strict is not None else None,
            word_brace,
            placed if spans is not None else None,
        )
        return out, error is None, end, found, placed, line

    pieces = each_part(piece, len(cuts) - 1, marshal.dumps, marshal.loads)
    depth, line = 0, 1  # at the start of each piece, as the pieces before it left them
    for (_, ok, end, _, _, first_line), stop in zip(pieces, cuts[1:], strict=True):
        pos, last_line, rise, lowest, open_word = end
        if not ok or first_line != line or pos != stop or depth + lowest < 0:
            return None
        if open_word and stop < len(text):
            return None
        depth, line = depth + rise, last_line
    out: list[Lexeme] = []
    for tokens, _, _, found, placed, _ in pieces:
        out.extend(tokens)
        if strict is not None:
            strict.extend(found)
        if spans is not None:
            spans.extend(placed)
    return _finish(out, depth, filename)


def _lex(
    text: str,
    start: int,
    stop: int,
    line: int,
    floor: int,
    filename: str | None,
    strict: list[tuple[str, int]] | None = None,
    word_brace: bool = True,
    spans: list[tuple[int, int]] | None = None,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None, End]:
    """The tokens of text[start:stop], from `line` at `start`: a `}` that takes the depth below
    `floor` is an error. A word still open at the end of the text is a token; one open at
    `stop` before the end is left out (End says so)."""
    out: list[Lexeme] = []
    token, token_line, depth, lowest, pos = "", 0, 0, 0, start
    not_plain = -1  # where the next character _not_plain finds is
    token_start = 0  # where the word being read began
    keep = spans is not None
    placed: list[tuple[int, int]] = spans if spans is not None else []
    _lexed[0] += stop - start
    plain = _lexed[0] >= PLAIN_MIN
    if plain:
        _, plain_token, plain_span = _plain()
    while pos < stop:
        if plain and not token:
            # whole lines up to the next character that is not plain: they start where no
            # word is open, and end after a newline
            if not_plain < pos:
                not_plain = _not_plain(text, pos, stop)
            plain_end = text.rfind("\n", pos, not_plain) + 1
            if plain_end > pos:
                for piece in plain_token.findall(text, pos, plain_end):
                    if piece == "\n":
                        line += 1
                        continue
                    if piece == "}":
                        depth, lowest, error = _close(depth, lowest, floor, filename, line)
                        if error is not None:
                            return out, error, (pos, line, depth, lowest, False)
                    elif piece == "{":
                        depth += 1
                    out.append((piece, line, False))
                if keep:
                    placed.extend(word.span() for word in plain_span.finditer(text, pos, plain_end))
                pos = plain_end
                continue
        match = _NEXT.match(text, pos, stop)
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
                    return out, error, (pos, line, depth, lowest, bool(token))
                continue
            if piece == "}" and token and word_brace:
                token += piece  # nginx ends a word only at whitespace, `;` or `{`
                continue
            if token:
                out.append((token, token_line, False))
                if keep:
                    placed.append((token_start, match.start()))
                token = ""
            if piece == "{":
                depth += 1
            elif piece == "}":
                depth, lowest, error = _close(depth, lowest, floor, filename, line)
                if error is not None:
                    return out, error, (pos, line, depth, lowest, False)
            out.append((piece, line, False))
            if keep:
                placed.append((match.start(), pos))
        elif token and (kind == "hash" or kind == "quote"):
            token += piece  # inside a word, `#` and quotes are ordinary characters
        elif kind == "hash":
            stop_at, after, lines = _comment(text, pos - 1)
            out.append((text[pos - 1 : stop_at], line, False))
            if keep:
                placed.append((pos - 1, stop_at))
            pos, line = after, line + lines
        elif kind == "quote":
            value, pos, after, error = _quoted(text, pos, line, filename, strict)
            if error is not None:
                return out, error, (pos, line, depth, lowest, False)
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
    open_word = bool(token)
    if token and stop == len(text):
        out.append((token, token_line, False))
        if keep:
            placed.append((token_start, pos))
    return out, None, (pos, line, depth, lowest, open_word)


def _close(
    depth: int, lowest: int, floor: int, filename: str | None, line: int
) -> tuple[int, int, NgxParserSyntaxError | None]:
    """A `}`: the depth after it, the lowest depth so far, and the error when it closes a block
    that was not open (below `floor`)."""
    depth -= 1
    if depth >= floor:
        return depth, min(lowest, depth), None
    return depth, min(lowest, depth), NgxParserSyntaxError('unexpected "}"', filename, line)


def _not_plain(text: str, start: int, stop: int) -> int:
    """Where the first character from `start` on that a plain stretch cannot hold is (`stop` if
    there is none): a quote, `#`, a backslash, `$` before `{`, or `}` right after a character
    of a word (a `}` at `start` ends none: no word is open there)."""
    pos = start
    while True:
        found = _plain()[0].search(text, pos, stop)
        if found is None:
            return stop
        at = found.start()
        char = text[at]
        if char == "$":
            if at + 1 < stop and text[at + 1] == "{":
                return at
        elif char != "}" or (
            at > start and text[at - 1] not in "{};" and not text[at - 1].isspace()
        ):
            return at
        pos = at + 1


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
