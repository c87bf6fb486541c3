"""Reading nginx configuration into statements: files, includes, `nginx -T` dumps, stdin.

Each file is lexed by nginxgen.conf.lexer (as nginx reads it, crossplane's tokens elsewhere) and
parsed here into crossplane's statements; includes are followed here so that a missing file, a
cycle or a symlink loop becomes a finding at the include line instead of a crash.
"""

from __future__ import annotations

import os
import re
from functools import cached_property

from nginxgen.base.patterns import lazy
from nginxgen.base.records import field, record
from nginxgen.conf.lexer import Lexeme, NgxParserSyntaxError, scan
from nginxgen.conf.tree import (
    PathMap,
    TreeMapping,
    infer_map,
    is_glob,
    map_path,
    notes,
    sorted_map,
)
from nginxgen.knowledge import directives

MAX_DEPTH = 200  # nginx has no limit, but no real config nests this deep; recursion would
# Directives that includes may bring in: 25x a 10,000-vhost fleet split one file per vhost, yet a
# bound on files that include each other several times over (2^n expansion, a hang otherwise).
MAX_INCLUDED_STATEMENTS = 500_000
# The included files of one level below which they are read and parsed in one process: a
# forked process's start and the return of the parses cost about what it saves (measured,
# docs/benchmarks.md#fleets-on-two-cores-issue-47).
READ_AHEAD_MIN = 200
DUMP_MARKER = re.compile(r"^# configuration file (?P<path>.+):\s*$", re.MULTILINE)
STDIN_NAME = "<stdin>"  # how `-` is named in findings, and in the fix loop's texts
SUPPRESSION = lazy(r"nginxgen:\s*ignore\[(?P<codes>[^\]]*)\]\s*(?P<reason>.*)$")


class LoadError(Exception):
    """A path that cannot be read at all (exit code 2)."""


@record(slots=True)
class Stmt:
    directive: str
    args: list[str]
    line: int
    file: str
    block: list[Stmt] | None = None
    includes: list[str] | None = None  # for `include`: the files it pulled in
    # Where its name starts in its file's text (None for a dump, or when spans were not kept): the
    # lossless model's statement at that offset is this one, so an edit needs no lookup.
    start: int | None = None
    # an `include` whose file could not be read (NGX002): what it would set is unknown
    unread: bool = False
    # the line of its `;`, or of a block's `{`: where nginx stands when it hands the statement to
    # its directive's handler, and so the line its handler's errors name (handler_line); 0 in a
    # record made elsewhere. Not compared: it is the same statement whatever line it ends on.
    end_line: int = field(default=0, compare=False)
    # a block's closing `}` line (0: not a block, or one the file ended inside): where nginx
    # stands once ngx_conf_parse has read the block, and so the line named by what a block's
    # handler says after reading it (a server's implicit listen, an upstream with no server)
    close_line: int = field(default=0, compare=False)


def handler_line(stmt: Stmt) -> int:
    """The line nginx names in what it says of a statement once it has read it all: unknown
    directive, not allowed here, the argument count and its setter's errors (ngx_conf_parse
    calls ngx_conf_handler after ngx_conf_read_token returned at the `;` or `{`, and
    ngx_conf_log_error names cf->conf_file->line, the parser's line then). A statement written
    over several lines is named at its last, not its first."""
    return stmt.end_line or stmt.line


def walk(statements: list[Stmt]) -> list[Stmt]:
    """Every statement in reading order, blocks' contents after their owner (no recursion:
    blocks may nest thousands deep)."""
    flat: list[Stmt] = []
    stack = list(reversed(statements))
    while stack:
        stmt = stack.pop()
        flat.append(stmt)
        if stmt.block:
            stack.extend(reversed(stmt.block))
    return flat


@record
class Suppression:
    file: str
    line: int
    codes: frozenset[str]
    reason: str
    used: bool = False


@record
class Problem:
    """A syntax or include problem found while loading (becomes an NGX00x finding)."""

    kind: str  # "syntax", "missing-include", "include-cycle", "include-expansion"
    file: str
    line: int
    message: str
    # the line nginx names where it is not `line`: an include's handler opens the file once it
    # has read the statement, and names its last line (handler_line); 0: `line`
    end_line: int = field(default=0, compare=False)


@record
class Loaded:
    statements: list[Stmt]
    files: list[str]
    problems: list[Problem] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    http_level_top: bool = False  # a snippet: top-level servers are read as http{} content
    prefix: str = ""  # relative include, certificate and key paths resolve against it
    # a file linted alone that is not a main file (no events, http, stream or mail at its top):
    # its relative includes resolve against the conf prefix found for it (fragment_prefix)
    fragment: bool = False
    path_map: PathMap = field(default_factory=list)
    inferred: PathMap = field(default_factory=list)  # the part of path_map inferred (conf.tree)
    # other files read (certificates, keys): as named here -> real path
    reads: dict[str, str] = field(default_factory=dict)
    # each other file's path as a line names it -> the file nginx would open, None: cannot be
    # known or read here (conf.files.resolve: a fleet's rules ask for each certificate often)
    resolved: dict[str, str | None] = field(default_factory=dict)
    real: dict[str, str] = field(default_factory=dict)  # each config file read -> real path
    texts: dict[str, str] = field(default_factory=dict)  # each file's text as read (not dumps)
    # each file's token spans from its one reading (nginxgen.edit.source builds on them)
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # where nginx stopped reading the tree: the file it reached the end of in the middle of a
    # directive, a quoted word or a block, and that end's line (None: it read the tree to its
    # end). Nothing after is read, in that file or the files that include it (Loader._convert)
    stopped: tuple[str, int] | None = None

    def read_files(self) -> dict[str, str]:
        """The files on disk this load read, as named here, with their real paths (resolved once,
        by the loader): config files and the certificates, keys and other files rules opened
        (a dump's or stdin's text is not a file read here)."""
        files = {os.path.abspath(f): self.real[f] for f in self.texts if f in self.real}
        return {**files, **self.reads}

    def line_text(self, file: str, number: int) -> str | None:
        """The text of one line of a file as read (None: a dump's or stdin's, which keep none).
        Rules that read back what the statements leave out (an `if`'s parentheses) ask it."""
        lines = self._lines.get(file)
        if lines is None:
            text = self.texts.get(file)
            if text is None:
                return None
            lines = self._lines[file] = text.split("\n")  # once a file: fleets have an if a vhost
        return lines[number - 1] if 0 < number <= len(lines) else None

    @cached_property
    def _lines(self) -> dict[str, list[str]]:
        return {}

    def here(self, path: str) -> str:
        """Where a path the config names (absolute, or relative to the prefix) is found here."""
        full = path if os.path.isabs(path) else os.path.join(self.prefix, path)
        return map_path(full, self.path_map)


def _check_tokens(
    tokens: list[Lexeme], problems: list[tuple[str, int]], last_line: int
) -> list[Lexeme]:
    """Note what crossplane lets slip and nginx refuses (ngx_conf_read_token, ngx_conf_handler):
    a directive ended by `}` or by the end of the file instead of `;`; a `;` or `{` with no
    directive before it; a directive that takes no block followed by `{` (a `;` lost before the
    next block) or one that takes a block ended by `;`; a `{` inside a block that holds values
    (map, types); nesting deep enough to exhaust Python's recursion (the tokens are cut there).
    Each in nginx's words, at the line nginx names: where it stopped reading (the `}`, `{` or
    `;` that ended the directive, or `last_line` at the end of the file), not where the
    directive began, which may be lines above."""
    shapes = directives.directive_shapes()
    parents: list[str | None] = []  # the directive name of each open block
    name: str | None = None  # the current directive's name, once its first word is read
    open_directive: int | None = None  # its line
    for index, (token, line, quoted) in enumerate(tokens):
        if quoted or not (token in "{};" or token.startswith("#")):
            if open_directive is None:
                open_directive, name = line, token
            continue
        if token.startswith("#"):
            continue
        parent = parents[-1] if parents else None
        if token == "}":
            if open_directive is not None:
                problems.append(('unexpected "}"', line))
            if parents:
                parents.pop()
        elif open_directive is None or name is None:
            problems.append((f'unexpected "{token}"', line))
            if token == "{":
                parents.append(None)
        elif parent in shapes.free_content:
            if token == "{":
                problems.append(('unexpected "{"', line))
                parents.append(None)
        else:
            kind = shapes.kind(name, parent)
            if token == "{" and kind == "simple":
                problems.append((f'directive "{name}" is not terminated by ";"', line))
            elif token == ";" and kind == "block":
                problems.append((f'directive "{name}" has no opening "{{"', line))
            if token == "{":
                parents.append(name)
        if token == "{" and len(parents) > MAX_DEPTH:
            problems.append((f"blocks nested deeper than {MAX_DEPTH} levels", line))
            return tokens[:index]
        open_directive = name = None
    if open_directive is not None:
        # crossplane drops the words quietly; nginx stops at the end of the file
        problems.append((UNEXPECTED_END, last_line))
    return tokens


UNEXPECTED_END = 'unexpected end of file, expecting ";" or "}"'
UNCLOSED_BLOCK = 'unexpected end of file, expecting "}"'
UNCLOSED_QUOTE = {'unexpected end of file, expecting "\'"', 'unexpected end of file, expecting """'}


# A statement as the loader reads it, before it becomes a Stmt: (directive, line, words, block,
# offset of its name in the text, the line nginx handles it at, its block's `}` line (0: none),
# a comment's text). Tuples, not
# crossplane's dicts: a fleet's file has tens of thousands, each made, passed between processes
# (marshal) and read once.
RawStmt = tuple[str, int, list[str], "list[RawStmt] | None", int | None, int, int, str]


def _statements(
    tokens: list[Lexeme],
    at: int,
    parsed: list[RawStmt],
    starts: list[int] | None = None,
    as_nginx: bool = False,
) -> int:
    """crossplane's reading of a token list into statements (directive, line, args, block,
    comments as `#` statements), quirks kept, since rules read them: a block ends at `}`; a
    directive's words run to `;`, `{` or `}` (a `}` there ends the directive, not its block);
    `if (...)` loses its parentheses; comments among a directive's words follow it with its
    line. Returns the index after what was read. `starts`: each token's offset in the text; a
    statement then carries its name's.
    `as_nginx`: a directive whose words a `}` or the end of the file cut off is left out, as
    nginx never handles one (it stops there, which _check_tokens reports): rules would
    otherwise judge words nginx never read (`unknown directive` beside the syntax error); and a
    statement keeps the line of its `;` or `{` (Stmt.end_line)."""
    end = len(tokens)
    while at < end:
        token, line, quoted = tokens[at]
        first = at
        at += 1
        if token == "}" and not quoted:
            return at
        if token.startswith("#") and not quoted:
            parsed.append(("#", line, [], None, None, line, 0, token[1:]))
            continue
        args: list[str] = []
        comments: list[str] = []
        term, word_line = None, line
        while at < end:
            word, word_line, word_quoted = tokens[at]
            at += 1
            if word in ("{", ";", "}") and not word_quoted:
                term = word
                break
            if word.startswith("#") and not word_quoted:
                comments.append(word[1:])
            else:
                args.append(word)
        if token == "if" and args and args[0].startswith("(") and args[-1].endswith(")"):
            args[0] = args[0][1:].lstrip()  # one after the other: `if (1)` has one word
            args[-1] = args[-1][:-1].rstrip()
            args[:] = args[int(not args[0]) : len(args) - int(not args[-1])]
        block: list[RawStmt] | None = None
        closed = 0
        if term == "{":
            block = []
            at = _statements(tokens, at, block, starts, as_nginx)
            if as_nginx and at <= end:  # ended by its `}`, not the end of the file
                closed = tokens[at - 1][1]
        if not as_nginx or term in (";", "{"):
            start = starts[first] if starts is not None else None
            handled = word_line if as_nginx and term is not None else line
            parsed.append((token, line, args, block, start, handled, closed, ""))
        if comments:
            parsed.extend(("#", line, [], None, None, line, 0, c) for c in comments)
    return at + 1  # past the end: every token was read


def read_statements(
    tokens: list[Lexeme],
    error: NgxParserSyntaxError | None,
    starts: list[int] | None = None,
    as_nginx: bool = False,
) -> tuple[list[RawStmt], tuple[str, int] | None]:
    """The statements of a token list, and the lexer's error where crossplane would report it:
    crossplane pulls tokens lazily, so the error surfaces once every token before it was read,
    and then nothing of the file is kept (a `}` at the top ends reading before that).
    `as_nginx`: see _statements (crossplane keeps the cut directives; the loader does not), and
    the statements before an error at the end of the file are kept: nginx handled each of them
    before it met the end (what their handlers say comes before the syntax error)."""
    parsed: list[RawStmt] = []
    read_all = _statements(tokens, 0, parsed, starts, as_nginx) > len(tokens)
    if error is not None and read_all:
        return parsed if as_nginx else [], (error.strerror, error.lineno or 1)
    return parsed, None


def parse_tokens(
    tokens: list[Lexeme], error: NgxParserSyntaxError | None, starts: list[int] | None = None
) -> tuple[list[dict[str, object]], tuple[str, int] | None]:
    """read_statements as crossplane's statement dicts (its parse()'s "parsed"), comments
    kept: what the crossplane oracle compares."""
    parsed, failed = read_statements(tokens, error, starts)
    return _as_crossplane(parsed, starts is not None), failed


def _as_crossplane(parsed: list[RawStmt], with_starts: bool) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for directive, line, args, block, start, _, _, comment in parsed:
        if directive == "#":
            out.append({"directive": "#", "line": line, "args": [], "comment": comment})
            continue
        stmt: dict[str, object] = {"directive": directive, "line": line, "args": args}
        if with_starts:
            stmt["start"] = start
        if block is not None:
            stmt["block"] = _as_crossplane(block, with_starts)
        out.append(stmt)
    return out


# what any template mark below starts with: the file's lines are read only where one is
_TEMPLATE_HINT = lazy(r"\{\{|\{%|\$\{[A-Z]")


def template_mark(text: str) -> tuple[str, int] | None:
    """Where a file shows it is a template, not a config nginx reads (a Jinja `{{ name }}` or
    `{% if %}`, an envsubst `${NAME}` as Docker's nginx image renders from /etc/nginx/templates):
    the problem to report once, at its first line. nginx stops at the first such line, so one
    line says it all; a line per mark would bury it. nginx's own variables are lower case,
    so `${NAME}` in capitals counts unless the file sets it (`set $NAME`, a map or geo)."""
    if "{{" not in text and "{%" not in text and "${" not in text:
        return None  # the common case, without a regular expression
    if not _TEMPLATE_HINT.search(text):
        return None  # `${host}`: nginx's own variables, common; no line needs reading
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if "#" in line else line
        jinja = re.search(r"\{\{-?\s*[\w.'\"\[\]|() -]+?\s*-?\}\}|\{%-?\s*[a-z]+\b", code)
        if jinja:
            return (
                f"a Jinja template, not a config ({jinja[0].strip()!r}): nginx -t stops here; "
                "lint the rendered file (render it, then `nginxgen lint -` reads it from stdin)",
                number,
            )
        for name in re.findall(r"\$\{([A-Z][A-Z0-9_]*)\}", code):
            if not re.search(rf"(?m)^\s*(set|map\s+\S+|geo(\s+\S+)?)\s+\${name}\b", text):
                return (
                    f"an envsubst template, not a config (${{{name}}} is not an nginx variable "
                    "here): nginx reads the rendered file; lint that (render it with envsubst, "
                    "then `nginxgen lint -`)",
                    number,
                )
    return None


def _parse_text(text: str, filename: str, with_spans: bool = False, jobs: int = 1) -> Parse:
    """A file's statements and problems; `with_spans`: and its tokens' spans, for edits (a plain
    lint does without them: they cost a third more memory on a large file). A template is one
    problem and no statements. `jobs`: how many processes may lex a large text
    (nginxgen.conf.lexer.scan)."""
    mark = template_mark(text)
    if mark is not None:
        return [], [mark], []
    problems: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    lexed, error = scan(text, filename, problems, spans=spans if with_spans else None, jobs=jobs)
    last_line = text.count("\n") + 1  # nginx counts lines as it reads: where the file ends
    checked = _check_tokens(lexed, problems, last_line)
    if len(checked) < len(lexed):
        error = None  # cut at the nesting limit: the rest, and its errors, are not read
    starts = [start for start, _ in spans] if spans else None
    try:
        parsed, failed = read_statements(checked, error, starts, as_nginx=True)
    except RecursionError as exc:  # not reached: _check_tokens cuts at MAX_DEPTH
        return [], [(str(exc), 1)], []
    if failed is not None:
        message, line = failed
        if message in UNCLOSED_QUOTE:
            # nginx reads on to the end of the file, where it stops in the middle of a directive
            # (ngx_conf_read_token)
            message, line = UNEXPECTED_END, last_line
        elif message == UNCLOSED_BLOCK:
            line = last_line  # where nginx's reading ends (ngx_conf_parse)
        # a directive open at the end of the file is where nginx stops: the block is not
        # said to be open too, nor the end said twice
        if (message, line) not in problems and (
            message != UNCLOSED_BLOCK or (UNEXPECTED_END, last_line) not in problems
        ):
            problems.append((message, line))
    return parsed, problems, spans


def stops_at(problems: list[tuple[str, int]]) -> int | None:
    """The line at which nginx stops reading a file and the tree (ngx_conf_read_token at the end
    of the file in the middle of a directive, a quoted word or a block: it reads no file after),
    if its problems say so."""
    return next((line for message, line in problems if message in _ENDS), None)


_ENDS = frozenset({UNEXPECTED_END, UNCLOSED_BLOCK})


def read_text(path: str) -> str:
    # os.read, not open() (a file object and its buffer for each of a fleet's thousands of
    # files: 2,000 read in 14 ms of CPU instead of 24), nor pathlib (slow to import); O_BINARY:
    # no newline translation on Windows
    chunks = []
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            while chunk := os.read(handle, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(handle)
    except IsADirectoryError:
        raise LoadError(f"{path}: is a directory (give the nginx.conf inside it)") from None
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file") from None
    except OSError as exc:
        raise LoadError(f"{path}: cannot read: {exc.strerror}") from None
    # nginx reads bytes; a stray non-UTF-8 byte in a comment must not stop the lint.
    return b"".join(chunks).decode("utf-8", errors="surrogateescape")


def split_dump(text: str) -> dict[str, str] | None:
    """`nginx -T` output -> {path: text}, or None if the text is not a dump."""
    marks = list(DUMP_MARKER.finditer(text))
    if not marks:
        return None
    files: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[mark.end() + 1 : end]
        files.setdefault(mark["path"].strip(), body)
    return files


# crossplane's statements, problems, and the token spans (of the whole text, past an error too;
# empty for a template, or when not asked for)
Parse = tuple[list[RawStmt], list[tuple[str, int]], list[tuple[int, int]]]


@record
class PassCache:
    """What the passes of one `lint --fix` run share. Nothing on disk changes between them (the
    fixes stay in memory until the end), so each file is read, its real path resolved and each
    folder globbed once, and a file whose text a pass left as it was is not parsed again."""

    texts: dict[str, str] = field(default_factory=dict)  # path -> text on disk
    real: dict[str, str] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)  # a folder -> its real path
    globs: dict[str, list[str]] = field(default_factory=dict)
    links: dict[str, bool] = field(default_factory=dict)  # a globbed file -> a symlink or not
    parses: dict[tuple[str, str], Parse] = field(default_factory=dict)  # (real path, text)

    def read(self, path: str) -> str:
        if path not in self.texts:
            self.texts[path] = read_text(path)
        return self.texts[path]

    def glob(self, pattern: str) -> list[str]:
        """glob.glob(pattern); where only the file name has wildcards (`sites/*.conf`), read
        from one listing of the folder, which also tells which names are symlinks (real_path
        then asks nothing more of a fleet's thousands of files)."""
        folder, name = os.path.split(pattern)
        if not os.path.isabs(folder) or is_glob(folder) or not name:
            import glob

            return glob.glob(pattern)
        import fnmatch

        try:
            with os.scandir(folder) as entries:
                found = [
                    (os.path.join(folder, entry.name), entry.is_symlink())
                    for entry in entries
                    # as glob: a name that starts with a dot only for a pattern that does
                    if (entry.name[0] != "." or name[0] == ".")
                    and fnmatch.fnmatch(entry.name, name)
                ]
        except OSError:  # no such folder, or not one: glob finds nothing there either
            return []
        self.links.update(found)
        return [path for path, _ in found]

    def real_path(self, path: str) -> str:
        """os.path.realpath(path), its folder's resolved once: a file that is not a symlink is
        its name in its folder's real path (one lstat instead of one per folder above it; a
        fleet's thousands of included files share a folder; none for a file a glob listed)."""
        real = self.real
        if path not in real:
            folder, name = os.path.split(path)
            link = self.links.get(path)
            if link is None:
                link = bool(folder) and os.path.islink(path)
            if not folder or name in ("", ".", "..") or link:
                real[path] = os.path.realpath(path)
            else:
                if folder not in self.folders:
                    self.folders[folder] = os.path.realpath(folder)
                real[path] = os.path.join(self.folders[folder], name)
        return real[path]


class Loader:
    def __init__(
        self,
        prefix: str | None = None,
        dump: dict[str, str] | None = None,
        path_map: PathMap | None = None,
        overlay: dict[str, str] | None = None,
        shared: PassCache | None = None,
        spans: bool = False,
        infer: bool = False,
        keep_texts: bool = False,
        jobs: int = 1,
        conf_path: str | None = None,
    ) -> None:
        self.prefix = prefix
        self.conf_path = conf_path  # the main file the target's nginx reads (nginx -V)
        # a dump's texts are kept (for edits) only when asked: a lint of one needs none of them
        self.keep_texts = dump is None or keep_texts
        # processes that may read and parse a large tree at once (0: nginxgen.base.forks decides)
        self.jobs = jobs
        self.spans = spans  # keep each file's token spans: the run edits the files
        self.dump = dump
        self.overlay = overlay or {}  # files as a fix pass left them, not yet written
        self.infer = infer  # conf.tree infers where a copied tree's absolute includes point
        self.loaded = Loaded(statements=[], files=[], path_map=path_map or [])
        self._cache: dict[str, Parse] = {}
        self._included = 0  # statements brought in by includes so far
        self._shared = shared if shared is not None else PassCache()

    def _key(self, path: str) -> str:
        """The identity of a file for cycles and caching: its real path on disk."""
        if self.dump is not None or path == "-":
            return path
        return self._shared.real_path(path)

    def _text(self, path: str) -> str:
        if path in self.overlay:
            return self.overlay[path]
        if self.dump is not None:
            return self.dump[path]
        return self._shared.read(path)

    def _exists(self, path: str) -> bool:
        if self.dump is not None:
            return path in self.dump
        return path in self.overlay or os.path.isfile(path)

    def _glob(self, pattern: str) -> list[str]:
        import fnmatch

        if self.dump is not None:
            return sorted(p for p in self.dump if fnmatch.fnmatchcase(p, pattern))
        if pattern not in self._shared.globs:
            self._shared.globs[pattern] = self._shared.glob(pattern)
        found = set(self._shared.globs[pattern])
        if self.overlay:  # files a plan creates: matched in their folder, as glob would
            folder, name = os.path.split(pattern)
            found.update(
                path
                for path in self.overlay
                if os.path.dirname(path) == folder
                and not os.path.basename(path).startswith(".")
                and fnmatch.fnmatchcase(os.path.basename(path), name)
            )
        return sorted(found)

    def load(self, path: str, text: str | None = None) -> Loaded:
        if self.dump is None and path != STDIN_NAME:
            source = text if text is not None else self._text(path)
            top = {raw[0] for raw in self._parse(self._key(path), source)[0]}
            if not top & MAIN_BLOCKS:
                self.loaded.fragment = True
                if self.prefix is None:
                    self.prefix = fragment_prefix(path, self.conf_path)
            else:
                # a main file is read as `nginx -c FILE` reads it: its folder is the conf prefix
                # that relative includes and certificates resolve against, whatever -p names
                # (ngx_process_options; trial 12: `--prefix DIR` drew 13 NGX002 errors)
                self.prefix = os.path.dirname(os.path.abspath(path))
        if self.prefix is None:
            self.prefix = os.path.dirname(os.path.abspath(path)) if path != "-" else os.getcwd()
        if self.infer and self.dump is None and path != STDIN_NAME:
            source = text if text is not None else self._text(path)
            parsed = self._parse(self._key(path), source)
            given = self.loaded.path_map
            # a fleet in one file often has no include at all: then no walk over its statements
            includes = (
                [a for a in _include_arguments(parsed[0]) if a.startswith("/")]
                if "include" in source
                else []
            )
            self.loaded.inferred = infer_map(path, includes, given)
            self.loaded.path_map = sorted_map([*given, *self.loaded.inferred])
        self.loaded.prefix = self.prefix
        if self.jobs != 1 and self.dump is None and path != STDIN_NAME:
            self._read_ahead(path, text if text is not None else self._text(path))
        statements = self._load_file(path, (), text)
        self.loaded.statements = statements
        top = {s.directive for s in statements}
        self.loaded.http_level_top = "http" not in top and bool(
            top
            & {
                "server",
                "upstream",
                "map",
                "ssl_protocols",
                "ssl_ciphers",
                "ssl_ecdh_curve",
                "ssl_certificate",
                "add_header",
                "ssl_session_cache",
            }
        )
        return self.loaded

    def _load_file(self, path: str, stack: tuple[str, ...], text: str | None = None) -> list[Stmt]:
        key = self._key(path)
        if key not in self._cache:
            source = text if text is not None else self._text(path)
            self._cache[key] = self._parse(key, source, path)
            if self.keep_texts:
                self.loaded.texts[path] = source
                if path != STDIN_NAME:
                    self.loaded.real[path] = key
                if self._cache[key][2]:
                    self.loaded.spans[path] = self._cache[key][2]
            self.loaded.files.append(path)
            for message, line in self._cache[key][1]:
                self.loaded.problems.append(Problem("syntax", path, line, message))
        parsed, problems, _ = self._cache[key]
        statements = self._convert(parsed, path, (*stack, key))
        stop = stops_at(problems) if problems else None
        # the main file ending in the middle of a statement at its top level, after lines it
        # read, every block closed (certbot's test tree: `@@@` after its last line): nginx has
        # made every check of a block's end (a certificate missing for a `listen ... ssl` at
        # http{}'s) and stops there: the tree is linted as read. A quote left open in its first
        # line (nothing read) stops the tree as one in an include or a block does
        cut = (
            stack
            or not statements
            or any(s.block is not None and not s.close_line for s in statements)
        )
        if stop is not None and cut and self.loaded.stopped is None:
            self.loaded.stopped = (path, stop)
        return statements

    def _parse(
        self, key: str, source: str, path: str | None = None, jobs: int | None = None
    ) -> Parse:
        """The file's parse, made once (`jobs`: the processes that may lex it, if not the
        loader's)."""
        parses = self._shared.parses
        if (key, source) not in parses:
            jobs = self.jobs if jobs is None else jobs
            parses[key, source] = _parse_text(source, path or key, self.spans, jobs)
        return parses[key, source]

    def _read_ahead(self, path: str, source: str) -> None:
        """Read and parse the files the tree includes before the walk does, level by level
        (the main file's includes, theirs, ...), a level of at least READ_AHEAD_MIN files in
        several processes at once (`jobs`); the walk then finds each in the caches (PassCache). What
        it reads is what the walk would read: each include's files (_names), files a fix pass
        changed excepted (the walk takes those from the overlay); a file that cannot be read is
        left to the walk, which says so where it is included."""
        seen = {path}
        level = [self._parse(self._key(path), source, path)[0]] if "include" in source else []
        while level:
            names: list[str] = []
            for parsed in level:
                for argument in _include_arguments(parsed):
                    for name in self._names(self.loaded.here(argument)) or ():
                        if name not in seen and name not in self.overlay:
                            seen.add(name)
                            names.append(name)
            # a file without the word includes nothing: its statements are not walked
            level = [parse[0] for text, parse in self._parse_all(names) if "include" in text]

    def _parse_all(self, names: list[str]) -> list[tuple[str, Parse]]:
        """The text and parse of each file that can be read, in several processes when they are
        many."""
        parts = 1
        if len(names) >= max(READ_AHEAD_MIN, 2):
            from nginxgen.base.forks import processes  # only for a large tree: a small one's start

            parts = processes(self.jobs)
        if parts < 2:
            return [(text, parse) for _, _, text, parse in self._read_some(names, self.jobs)]
        import marshal

        from nginxgen.base.forks import each_part

        step = -(-len(names) // parts)
        slices = [names[i : i + step] for i in range(0, len(names), step)]
        found = each_part(
            lambda part: self._read_some(slices[part], 1),
            len(slices),
            marshal.dumps,
            marshal.loads,
        )
        parses = []
        for name, key, text, parse in (read for some in found for read in some):
            self._shared.real[name] = key
            self._shared.texts[name] = text
            self._shared.parses[key, text] = parse
            parses.append((text, parse))
        return parses

    def _read_some(self, names: list[str], jobs: int) -> list[tuple[str, str, str, Parse]]:
        """(name, real path, text, parse) of each file of `names` that can be read."""
        out = []
        for name in names:
            try:
                key, text = self._key(name), self._text(name)
            except LoadError:
                continue
            out.append((name, key, text, self._parse(key, text, name, jobs)))
        return out

    def _convert(self, parsed: list[RawStmt], path: str, stack: tuple[str, ...]) -> list[Stmt]:
        out: list[Stmt] = []
        included = len(stack) > 1
        loaded = self.loaded
        for directive, line, args, block, start, end, closed, comment in parsed:
            if directive == "#":
                self._comment(comment, path, line)
                continue
            # a copy of the words: parses are shared (a fix pass's, a file included twice)
            stmt = Stmt(directive, args[:], line, path, None, None, start, False, end, closed)
            if included:
                self._included += 1
            if block is not None:
                stmt.block = self._convert(block, path, stack)
                if loaded.stopped is not None:  # nginx stopped inside it, before its `}`
                    stmt.close_line = 0
            out.append(stmt)
            if directive == "include" and args:
                out.extend(self._include(stmt, stack))
            if loaded.stopped is not None:
                break  # an included file ended in the middle: nginx reads nothing after it
        return out

    def _comment(self, comment: str, path: str, line: int) -> None:
        match = SUPPRESSION.search(comment)
        if match:
            codes = frozenset(c.strip().upper() for c in match["codes"].split(",") if c.strip())
            self.loaded.suppressions.append(Suppression(path, line, codes, match["reason"].strip()))

    def _names(self, pattern: str) -> list[str] | None:
        """The files an include of this pattern reads; None: it names a file that is not there."""
        if is_glob(pattern):
            return [self._through_map(name) for name in self._glob(pattern)]
        name = self._through_map(pattern)
        return [name] if self._exists(name) else None  # an empty glob is fine for nginx too

    def _through_map(self, path: str) -> str:
        """A file of a copied tree that links to a mapped folder by an absolute path (Debian's
        sites-enabled/default -> /etc/nginx/sites-available/default, in a copy of /etc/nginx):
        the copy's file, as the machine's nginx reads its own (trial 22: the link was followed to
        this machine, "no such file", and the tree's default server was lost). It is named by
        where it lies in the copy, so that an edit goes there, never through the link. Any
        other path as it is."""
        path_map = self.loaded.path_map
        if not path_map or self.dump is not None or path in self.overlay:
            return path
        name, mapped = path, False
        for _ in range(MAX_LINKS):
            if not self._shared.links.get(name, True) or not os.path.islink(name):
                break
            try:
                target = os.readlink(name)
            except OSError:
                break
            if os.path.isabs(target):
                here = map_path(target, path_map)
                mapped = mapped or here != target
                target = here
            name = os.path.normpath(os.path.join(os.path.dirname(name), target))
        return name if mapped else path

    def _include(self, stmt: Stmt, stack: tuple[str, ...]) -> list[Stmt]:
        pattern = self.loaded.here(stmt.args[0])
        names = self._names(pattern)
        if names is None:
            stmt.unread = True
            self.loaded.problems.append(
                Problem(
                    "missing-include",
                    stmt.file,
                    stmt.line,
                    f"included file {pattern} does not exist",
                    handler_line(stmt),
                )
            )
            return []
        stmt.includes = names
        out: list[Stmt] = []
        for name in names:
            if self.loaded.stopped is not None:
                break  # the glob's file before ended in the middle: nginx reads no more
            if self._included > MAX_INCLUDED_STATEMENTS:
                self.loaded.problems.append(
                    Problem(
                        "include-expansion",
                        stmt.file,
                        stmt.line,
                        f"includes expand to more than {MAX_INCLUDED_STATEMENTS:,} directives; "
                        f"{name} and later includes are not linted",
                    )
                )
                break
            key = self._key(name)
            if key in stack:
                self.loaded.problems.append(
                    Problem(
                        "include-cycle",
                        stmt.file,
                        stmt.line,
                        f"{name} includes itself (an include cycle)",
                    )
                )
                continue
            try:
                out.extend(self._load_file(name, stack))
            except LoadError as exc:
                stmt.unread = True
                self.loaded.problems.append(
                    Problem("missing-include", stmt.file, stmt.line, str(exc), handler_line(stmt))
                )
        return out


MAX_LINKS = 40  # symbolic links followed in a row, as the system's limit (ELOOP)

MAIN_BLOCKS = frozenset(
    {"events", "http", "stream", "mail"}
)  # what only a main file has at its top
TREE_DEPTH = 3  # how many folders up from a fragment its tree's nginx.conf is looked for


def fragment_prefix(path: str, conf_path: str | None) -> str:
    """Where nginx would resolve a fragment's relative includes (`include snippets/ssl.conf;`
    in sites-enabled/site.conf): its conf prefix, the folder of the main file (ngx_conf_full_name
    with cycle->conf_prefix), not the fragment's folder. The folder of the target's --conf-path
    when the file lies inside it (the machine's /etc/nginx); else the tree's root, the nearest
    folder at most TREE_DEPTH up that holds an nginx.conf; else the file's own folder."""
    here = os.path.dirname(os.path.abspath(path))
    real = os.path.realpath(path)
    if conf_path:
        folder = os.path.dirname(conf_path)
        if real.startswith(os.path.realpath(folder).rstrip("/") + "/"):
            return folder
    folder = here
    for _ in range(TREE_DEPTH):
        if os.path.isfile(os.path.join(folder, "nginx.conf")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return here


def _include_arguments(parsed: list[RawStmt]) -> list[str]:
    """What a parsed file's `include` lines name (their first arguments)."""
    found: list[str] = []
    stack = list(parsed)
    while stack:
        directive, _, args, block, *_ = stack.pop()
        if directive == "include" and args:
            found.append(args[0])
        if block is not None:
            stack.extend(block)
    return found


def load_path(
    path: str,
    prefix: str | None = None,
    stdin_text: str | None = None,
    path_map: PathMap | None = None,
    overlay: dict[str, str] | None = None,
    shared: PassCache | None = None,
    spans: bool = False,
    infer: bool = True,
    jobs: int = 1,
    conf_path: str | None = None,
) -> Loaded:
    """Load a config file, a `nginx -T` dump, or stdin (`-`); `conf_path`: the main file the
    target's nginx reads, which places a fragment's relative includes (fragment_prefix);
    `path_map` says where the folders the config names by absolute path are found here,
    `infer` adds the folders a copied tree's absolute includes name that it leaves out
    (conf.tree); `shared`: what earlier passes of a fix run read and parsed; `spans`: keep what
    the lossless model of each file is built from (for a run that edits); `jobs`: how many
    processes may read and parse a large tree (0: nginxgen.base.forks decides)."""
    if path == "-":
        text = stdin_text if stdin_text is not None else ""
        name = STDIN_NAME
        if overlay and name in overlay:  # a fix pass's text of it
            text = overlay[name]
    else:
        shared = shared or PassCache()
        text = overlay[path] if overlay and path in overlay else shared.read(path)
        name = path
    if text.startswith("\x00") or "\x00" in text[:4096]:
        loaded = Loaded(statements=[], files=[name])
        loaded.problems.append(Problem("syntax", name, 1, "binary file, not an nginx config"))
        return loaded
    dump = split_dump(text)
    if dump:
        main = next(iter(dump))
        return Loader(prefix or os.path.dirname(main), dump).load(main)
    loader = Loader(
        prefix, None, path_map, overlay, shared, spans, infer, jobs=jobs, conf_path=conf_path
    )
    return loader.load(name, text)


def load_valid(
    path: str,
    where: str,
    spans: bool = False,
    path_map: PathMap | None = None,
    infer: bool = True,
) -> Loaded:
    """A config tree a command acts on (generate --into, report --config): a file that cannot
    be read (named by `where`) or a syntax error nginx would stop at is one NginxgenError line
    with its file and line."""
    from nginxgen.base.errors import NginxgenError

    try:
        loaded = load_path(path, path_map=path_map, spans=spans, infer=infer)
    except LoadError as exc:
        raise NginxgenError(str(exc), where=where) from None
    for problem in loaded.problems:
        if problem.kind == "syntax":
            raise NginxgenError(problem.message, where=f"{problem.file}:{problem.line}")
    return loaded


def where_read(
    loaded: Loaded, mapping: TreeMapping, main: str, folder: str | None = None
) -> list[str]:
    """What every command says of where it read the tree of `main`, loaded with `mapping`
    (conf.tree.notes): the binary's folder read from the copy, the inferred map, the files read
    outside `folder` (the main file's, if not given)."""
    path_map, infer = mapping.for_main(main)
    return notes(
        loaded.inferred,
        loaded.read_files(),
        folder or os.path.dirname(os.path.abspath(main)),
        copied_folders(loaded.statements, path_map, infer),
        mapping.conf_path,
    )


def read_elsewhere(loaded: Loaded) -> str | None:
    """An include of the tree that nginx resolves to another place than where it was read (a
    copy read through a path map: `include /etc/nginx/conf.d/*.conf;` read from the copy's
    conf.d/): that place, as nginx names it. nginx -t of the copy reads it there, not the files
    written here (trial 24: a fix judged by the original's files). None: every include is read
    where nginx reads it."""
    if not loaded.path_map:
        return None
    for stmt in walk(loaded.statements):
        if stmt.directive == "include" and stmt.args:
            pattern = stmt.args[0]
            full = pattern if os.path.isabs(pattern) else os.path.join(loaded.prefix, pattern)
            if loaded.here(pattern) != full:
                return full
    return None


def copied_folders(statements: list[Stmt], path_map: PathMap, infer: bool) -> PathMap:
    """The pairs of the binary's map (conf_path_map: `infer`, no map given) whose folder a line
    of the tree names (an include, a certificate): only for those is a file read from the copy,
    and that is said (conf.tree.describe_conf_path)."""
    if not infer or not path_map:
        return []

    def named(folder: str) -> bool:
        inside = folder.rstrip("/") + "/"
        return any(a == folder or a.startswith(inside) for s in walk(statements) for a in s.args)

    return [(folder, here) for folder, here in path_map if named(folder)]
