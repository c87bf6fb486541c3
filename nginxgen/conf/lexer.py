"""nginx's tokenizer for the loader and the lossless model, and a faster drop-in for crossplane's
lexer: the same (token, line, quoted) tuples and the same syntax errors at the same points, made
with regular expressions over the whole text instead of three generators per character. Lexing
was two thirds of lint time; nginxgen's parser (conf/load) builds the tree from these tokens.

The loader reads as nginx reads (ngx_conf_read_token), where crossplane reads otherwise:
- a `}` inside a word belongs to the word (`appl}ication` is one word to nginx, and `a}` then
  `}` closes one block, not two); crossplane ends the word there;
- whitespace is a space, a tab, CR or LF: a form feed, a vertical tab or a Unicode space is a
  character of a word (crossplane: str.isspace);
- `${` is part of a word like any `$` and `{` after it, and the word ends where any word ends
  (crossplane reads `${...}` to its `}` across `;` and `{`, and the end of the file there is an
  error);
- a comment runs to the end of its line (crossplane ends it before a backslash-newline), and a
  backslash at the very end of the file is a character of a word (crossplane drops it).
With `as_nginx=False` the lexer reads as crossplane does: tests/conf/test_lexer.py checks that
reading against crossplane's lex_string, quirks included, token for token on every corpus file
and on generated text, and tests/conf/test_structure_oracle.py checks nginx's reading against
`nginx -t`. crossplane's quirks kept in both readings: a backslash pairs with the next
character; a newline is counted on the line after it; `#` starts a comment only at the start of
a token; a quote inside a token is an ordinary character, and a quoted string ends its token.

`*_by_lua_block` bodies are Lua, read as crossplane's Lua plugin (crossplane.ext.lua) reads them:
one quoted token for the body (braces counted outside Lua strings and `--` comments) and a `;`.

The spans (`scan(spans=...)`) are what the lossless model of a file (nginxgen.edit.source) is
built from: one (start, end) per token, a Lua body's with its braces (its `;` is empty), and
past a syntax error the rest of the text read on as if there were none, so that the spans and
the whitespace between them hold every character of any text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from nginxgen.base.patterns import lazy

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


# What every Lua block directive's name holds: a text without it is lexed without looking for one.
_LUA_BLOCK = "_by_lua_block"
# The directives crossplane's Lua plugin reads (crossplane.ext.lua, LuaBlockPlugin.directives;
# tests/conf/test_lexer.py checks the list against it). lua-nginx-module has a few more, which
# crossplane reads as nginx blocks; so does this lexer, to stay crossplane's drop-in.
LUA_DIRECTIVES = frozenset({
    "access_by_lua_block", "balancer_by_lua_block", "body_filter_by_lua_block",
    "content_by_lua_block", "header_filter_by_lua_block", "init_by_lua_block",
    "init_worker_by_lua_block", "log_by_lua_block", "rewrite_by_lua_block", "set_by_lua_block",
    "ssl_certificate_by_lua_block", "ssl_session_fetch_by_lua_block",
    "ssl_session_store_by_lua_block",
})  # fmt: skip
_EXPECTED_LUA = "expected { to start Lua block"

# nginx's whitespace (ngx_conf_read_token); crossplane's is str.isspace, which `\s` matches
NGINX_SPACE = " \t\r\n"


@cache
def _next(as_nginx: bool) -> re.Pattern[str]:
    """The token at a position, of one of these kinds (they cover every character)."""
    space = r" \t\r\n" if as_nginx else r"\s"
    return re.compile(
        rf"""(?P<ws>[{space}]+)
        |(?P<word>[^{space}{{}};"'\\\#$]+)
        |(?P<punct>[{{}};])
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
def _plain(as_nginx: bool) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """What may not be plain (one set of characters: a fast search), the plain tokens and each
    newline (to count the lines), the plain tokens alone (for their spans)."""
    space = r" \t\r\n" if as_nginx else r"\s"
    return (
        re.compile(r"""[\\"'#$}]"""),
        re.compile(rf"[^{space}{{}};]+|[{{}};]|\n"),
        re.compile(rf"[^{space}{{}};]+|[{{}};]"),
    )


# crossplane's comment ends before a backslash-newline; nginx's at the end of the line
_COMMENT = lazy(r"#(?:[^\\\n]|\\[^\n])*")
_QUOTED = {
    '"': re.compile(r'((?:[^"\\]|\\[\s\S])*)"'),
    "'": lazy(r"((?:[^'\\]|\\[\s\S])*)'"),
}
# What nginx's ngx_conf_read_token() accepts right after a closing quote.
_AFTER_QUOTE = frozenset(" \t\r\n;{)")
_ESCAPED_PAIR = lazy(r"\\([\s\S])")
_UNIT = lazy(r"\\[\s\S]|[\s\S]")


def lex(text: str, filename: str | None = None, as_crossplane: bool = False) -> Iterator[Lexeme]:
    """Tokens of one file as nginx reads them, in the form crossplane.lexer.lex_string yields
    them (errors included); with `as_crossplane`, as crossplane reads them also where nginx
    reads otherwise (the tests compare that reading)."""
    tokens, error = scan(text, filename, as_nginx=not as_crossplane)
    yield from tokens
    if error is not None:
        raise error


def scan(
    text: str,
    filename: str | None = None,
    strict: list[tuple[str, int]] | None = None,
    as_nginx: bool = True,
    spans: list[tuple[int, int]] | None = None,
    jobs: int = 1,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    """All tokens up to the first syntax error, and that error (None if there is none).

    `strict`, when given, collects what nginx refuses while crossplane reads on: a quoted string
    followed by anything but whitespace, `;`, `{` or `)` (nginx: unexpected "c"). `spans`, when
    given, gets each token's (start, end) offsets in the text, and after the last token the
    spans of the rest (past an error, in nginx's reading), so that the lossless model of the file
    (nginxgen.edit.source) is built from this one reading; the whitespace between spans is
    all the text they leave out. `jobs` other than 1: a text of at least PART_MIN characters is
    lexed in that many pieces at once (0: as many as nginxgen.base.forks.processes gives), each
    in its own process (_scan_parts), with the same result."""
    lua = _LUA_BLOCK in text
    if jobs != 1 and len(text) >= PART_MIN and not lua:
        from nginxgen.base.forks import processes

        parts = processes(jobs)
        done = _scan_parts(text, filename, strict, as_nginx, spans, parts) if parts > 1 else None
        if done is not None:
            return done
    return _scan(text, filename, strict, as_nginx, spans, lua)


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
    as_nginx: bool = True,
    spans: list[tuple[int, int]] | None = None,
    lua: bool = False,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None]:
    out, error, (_, _, depth, _, _) = _lex(
        text, 0, len(text), 1, 0, filename, strict, as_nginx, spans, lua
    )
    return (out, error) if error is not None else _finish(out, depth, filename)


def _scan_parts(
    text: str,
    filename: str | None,
    strict: list[tuple[str, int]] | None,
    as_nginx: bool,
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
            as_nginx,
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
    as_nginx: bool = True,
    spans: list[tuple[int, int]] | None = None,
    lua: bool = False,
) -> tuple[list[Lexeme], NgxParserSyntaxError | None, End]:
    """The tokens of text[start:stop], from `line` at `start`: a `}` that takes the depth below
    `floor` is an error. A word still open at the end of the text is a token; one open at
    `stop` before the end is left out (End says so). `lua`: the text may hold Lua blocks.

    With `spans`, an error does not stop the reading: the tokens stop there, the spans go on
    to the end of the text (a `}` too many is a token, an unclosed quote runs to the end)."""
    out: list[Lexeme] = []
    token, token_line, depth, lowest, pos = "", 0, 0, 0, start
    not_plain = -1  # where the next character _not_plain finds is
    token_start = 0  # where the word being read began
    keep = spans is not None
    placed: list[tuple[int, int]] = spans if spans is not None else []
    first: NgxParserSyntaxError | None = None  # the error the tokens stop at (with `spans`)
    cut = -1  # how many tokens there were when they stopped
    directive = True  # whether the next word or quoted string starts a directive (Lua blocks)
    _lexed[0] += stop - start
    plain = _lexed[0] >= PLAIN_MIN and not lua
    if plain:
        _, plain_token, plain_span = _plain(as_nginx)
    next_token = _next(as_nginx)
    while pos < stop:
        if plain and not token:
            # whole lines up to the next character that is not plain: they start where no
            # word is open, and end after a newline
            if not_plain < pos:
                not_plain = _not_plain(text, pos, stop, as_nginx)
            plain_end = text.rfind("\n", pos, not_plain) + 1
            if plain_end > pos:
                for piece in plain_token.findall(text, pos, plain_end):
                    if piece == "\n":
                        line += 1
                        continue
                    if piece == "}":
                        depth, lowest, error = _close(depth, lowest, floor, filename, line)
                        if error is not None:
                            if not keep:
                                return out, error, (pos, line, depth, lowest, False)
                            if first is None:
                                first, cut = error, len(out)
                    elif piece == "{":
                        depth += 1
                    out.append((piece, line, False))
                if keep:
                    placed.extend(word.span() for word in plain_span.finditer(text, pos, plain_end))
                pos = plain_end
                continue
        match = next_token.match(text, pos, stop)
        assert match is not None  # the alternatives cover every character
        kind, piece = match.lastgroup, match.group()
        pos = match.end()
        if kind == "ws":
            if token:
                out.append((token, token_line, False))
                if keep:
                    placed.append((token_start, match.start()))
                if lua and directive and token in LUA_DIRECTIVES:
                    at = (pos, line + piece.count("\n"), depth, lowest)
                    at, (first, cut), error = _lua_step(
                        text, at, floor, token, filename, as_nginx, out, spans, (first, cut)
                    )
                    pos, line, depth, lowest = at
                    if error is not None:
                        return out, error, (pos, line, depth, lowest, False)
                    token = ""
                    continue
                directive = False
                token = ""
            line += piece.count("\n")
        elif kind == "word" or kind == "dollar":
            if not token:
                token_line, token_start = line, match.start()
            token += piece
        elif kind == "punct":
            if piece == "{" and token.endswith(("$", "{")):
                if not as_nginx and token.endswith("$"):
                    directive = False
                    token, pos, line, error = _expansion(
                        text, pos, token, token_line, line, filename
                    )
                    if error is not None:
                        return out, error, (pos, line, depth, lowest, bool(token))
                    continue
                if as_nginx and _after_variable(token):
                    token += piece  # nginx: `{` right after `$` is part of the word
                    continue
            if piece == "}" and token and as_nginx:
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
                    if not keep:
                        return out, error, (pos, line, depth, lowest, False)
                    if first is None:
                        first, cut = error, len(out)
            directive = True
            out.append((piece, line, False))
            if keep:
                placed.append((match.start(), pos))
        elif token and (kind == "hash" or kind == "quote"):
            token += piece  # inside a word, `#` and quotes are ordinary characters
        elif kind == "hash":
            stop_at, after, lines = _comment(text, pos - 1, as_nginx)
            out.append((text[pos - 1 : stop_at], line, False))
            if keep:
                placed.append((pos - 1, stop_at))
            pos, line = after, line + lines
        elif kind == "quote":
            value, pos, after, error = _quoted(
                text, pos, line, filename, strict if first is None else None
            )
            if error is not None:
                if not keep:
                    return out, error, (pos, line, depth, lowest, False)
                if first is None:
                    first, cut = error, len(out)
                placed.append((match.start(), len(text)))  # nginx reads on to the end
                pos = len(text)
                break
            out.append((value, line, True))
            if keep:
                placed.append((match.start(), pos))
            line = after
            if lua and directive and value in LUA_DIRECTIVES:
                at, (first, cut), error = _lua_step(
                    text, (pos, line, depth, lowest), floor, value, filename, as_nginx, out,
                    spans, (first, cut),
                )  # fmt: skip
                pos, line, depth, lowest = at
                if error is not None:
                    return out, error, (pos, line, depth, lowest, False)
                continue
            directive = False
        elif kind == "esc" or as_nginx:  # nginx: a lone backslash at the end is in the word
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
    if cut >= 0:
        del out[cut:]
    return out, first, (pos, line, depth, lowest, open_word)


def _after_variable(token: str) -> bool:
    """Whether a `{` after `token` is nginx's `${`: the token ends with a `$` that no backslash
    escapes, and `{`s after it (nginx keeps reading `{` as part of the word while it does)."""
    head = token.rstrip("{")
    if not head.endswith("$"):
        return False
    before = head[:-1]
    return (len(before) - len(before.rstrip("\\"))) % 2 == 0


# where _lex is: position, line, block depth and the lowest depth met
At = tuple[int, int, int, int]


def _lua_step(
    text: str,
    at: At,
    floor: int,
    name: str,
    filename: str | None,
    as_nginx: bool,
    out: list[Lexeme],
    spans: list[tuple[int, int]] | None,
    first: tuple[NgxParserSyntaxError | None, int],
) -> tuple[At, tuple[NgxParserSyntaxError | None, int], NgxParserSyntaxError | None]:
    """The Lua block after the directive `name`, read from `at` (past what ended the name) onto
    `out` and `spans`: where reading goes on, the first error and the tokens' count there (see
    _lex), and the error to stop at (only without `spans`). A text that ends in the block ends
    the tokens there without an error, as crossplane's plugin stops quietly; the spans get the
    rest."""
    pos, line, depth, lowest = at
    lexemes, placed, after, problem, rest = _lua_block(text, pos, line, name, as_nginx)
    error = None if problem is None else NgxParserSyntaxError(problem[0], filename, problem[1])
    if lexemes and lexemes[0][0] in ("{", "}") and not lexemes[0][2]:
        # set_by_lua_block's argument: crossplane counts a `{` or `}` as a brace
        if lexemes[0][0] == "{":
            depth += 1
        else:
            depth, lowest, unopened = _close(depth, lowest, floor, filename, lexemes[0][1])
            if unopened is not None:
                error, lexemes, placed = unopened, [], []  # the tokens stop before it
    out.extend(lexemes)
    if error is not None:
        if spans is None:
            return (pos, line, depth, lowest), first, error
        # the spans read on here as nginx words
        return (pos, line, depth, lowest), first if first[0] else (error, len(out)), None
    if spans is not None:
        spans.extend(placed)
    if after < 0:  # the text ended in the block
        if spans is not None and rest is not None:
            spans.append(rest)
        after = len(text)
        first = first if first[1] >= 0 else (None, len(out))
    return (after, line + text.count("\n", pos, after), depth, lowest), first, None


# what _lua_block read: its tokens, their spans, where reading goes on, the error, the rest
LuaRead = tuple[
    list[Lexeme], list[tuple[int, int]], int, tuple[str, int] | None, tuple[int, int] | None
]


def _lua_block(text: str, pos: int, line: int, name: str, as_nginx: bool) -> LuaRead:
    """crossplane's Lua plugin (crossplane.ext.lua) on the text from `pos`, at `line` there:
    the tokens it yields (set_by_lua_block's argument, the body as one quoted token, `;`), their
    spans (the body's with its braces, the `;`'s empty), where reading goes on (-1: the text
    ended first, and then the span of what is left unread, if any), and the error (message,
    line). It reads in units (a backslash and the character after it are one)."""
    end = len(text)
    space = NGINX_SPACE if as_nginx else None
    lexemes: list[Lexeme] = []
    placed: list[tuple[int, int]] = []

    def unit_end(at: int) -> int:
        """Where the unit at `at` ends; -1 if the text ends there (a lone backslash is not read,
        as crossplane drops it)."""
        if at >= end:
            return -1
        if text[at] != "\\":
            return at + 1
        return at + 2 if at + 1 < end else -1

    def is_space(char: str) -> bool:
        return char in space if space is not None else char.isspace()

    def line_at(unit: int) -> int:  # crossplane counts a newline on the line after it
        return line + text.count("\n", pos, unit)

    def skip_space(at: int) -> int:
        while at < end and is_space(text[at]):
            at += 1
        return at

    at = skip_space(pos)
    if name == "set_by_lua_block":  # its one argument, up to whitespace
        first = at
        while True:
            after = unit_end(at)
            if after < 0:
                return lexemes, placed, -1, None, (first, end) if first < end else None
            if is_space(text[at]):
                break
            at = after
        lexemes.append((text[first:at], line_at(at + 1), False))
        placed.append((first, at))
        at = skip_space(at + 1)
    after = unit_end(at)
    if after < 0:
        return lexemes, placed, -1, None, (at, end) if at < end else None
    if text[at] != "{":
        return lexemes, placed, 0, (_EXPECTED_LUA, line_at(after)), None
    opened, depth = at, 0
    while True:
        after = unit_end(at)
        if after < 0:
            return lexemes, placed, -1, None, (opened, end)
        char = text[at]
        if char == "-" and text.startswith("-", after):  # a comment, to a newline
            at = after + 1
            while text[at : at + 1] != "\n":
                at = unit_end(at)
                if at < 0:
                    return lexemes, placed, -1, None, (opened, end)
            after = at + 1
        elif char == "-" and unit_end(after) < 0:
            return lexemes, placed, -1, None, (opened, end)  # crossplane looked past the end
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                closing = line_at(at)
                lexemes += [(text[opened + 1 : at], closing, True), (";", closing, False)]
                placed += [(opened, after), (after, after)]
                return lexemes, placed, after, None, None
        elif char in "\"'":  # a string, to the same quote
            at = after
            while text[at : at + 1] != char:
                at = unit_end(at)
                if at < 0:
                    return lexemes, placed, -1, None, (opened, end)
            after = at + 1
        at = after


def _close(
    depth: int, lowest: int, floor: int, filename: str | None, line: int
) -> tuple[int, int, NgxParserSyntaxError | None]:
    """A `}`: the depth after it, the lowest depth so far, and the error when it closes a block
    that was not open (below `floor`)."""
    depth -= 1
    if depth >= floor:
        return depth, min(lowest, depth), None
    return depth, min(lowest, depth), NgxParserSyntaxError('unexpected "}"', filename, line)


def _not_plain(text: str, start: int, stop: int, as_nginx: bool) -> int:
    """Where the first character from `start` on that a plain stretch cannot hold is (`stop` if
    there is none): a quote, `#`, a backslash, `$` before `{`, or `}` right after a character
    of a word (a `}` at `start` ends none: no word is open there)."""
    pos = start
    special = _plain(as_nginx)[0]
    while True:
        found = special.search(text, pos, stop)
        if found is None:
            return stop
        at = found.start()
        char = text[at]
        if char == "$":
            if at + 1 < stop and text[at + 1] == "{":
                return at
        elif char != "}" or (at > start and not _ends_word(text[at - 1], as_nginx)):
            return at
        pos = at + 1


def _ends_word(char: str, as_nginx: bool) -> bool:
    """Whether a word ends before `char` (whitespace, `{`, `}`, `;`) in that reading."""
    return char in "{};" or (char in NGINX_SPACE if as_nginx else char.isspace())


def _comment(text: str, start: int, as_nginx: bool) -> tuple[int, int, int]:
    """The comment from the `#` at `start` to the end of its line: where it ends, where lexing
    goes on and the lines passed. nginx's ends at the newline (read next as whitespace);
    crossplane's before a backslash-newline, which it skips, and a lone backslash at the very
    end is dropped."""
    if as_nginx:
        stop = text.find("\n", start)
        stop = len(text) if stop < 0 else stop
        return stop, stop, 0
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
