"""Real `nginx -t` as the oracle for what lint says nginx refuses without reading files
(issue 27): mutate configs every build accepts - an argument dropped or added, a directive
name misspelled, a line moved into another block, a `;` lost before a block - and compare.

nginx stops at its first error. Where that error is one lint knows (structure, unknown
directive, not allowed here, argument count, value), lint's first error must be the same
message on the same line; where nginx accepts the text, lint must find no such error; where
nginx refuses it for something lint cannot know (a file, a host, a value only the module
reads), lint must name no error before that line (nginx would have stopped there first).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from nginxgen.conf.load import load_path
from nginxgen.edit.source import Source, SourceStatement
from nginxgen.knowledge import directives
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.structure import STRUCTURAL, _drop_semicolon_before_block

GRAMMAR = Selection(select={"NGX001", "NGX007", "NGX008", "NGX009", "NGX010"})
# nginx's wording of what lint knows (ngx_conf_handler and nginx's own value setters)
KNOWN = re.compile(
    STRUCTURAL.pattern
    + r'|^unknown directive "|directive is not allowed here$|^invalid number of arguments in'
    r'|^invalid value ".*" in ".*" directive, it must be "on" or "off"$'
    r'|^"[^"]+" directive invalid (?:value|number)$'
)
VALUE_MESSAGE = re.compile(r'^"([^"]+)" directive invalid (?:value|number)$')
EMERG_LINE = re.compile(r"\[emerg\] (.*?) in (\S+):(\d+)$", re.M)


def _statements(source: Source) -> list[SourceStatement]:
    flat, stack = [], list(source.statements)
    while stack:
        stmt = stack.pop()
        flat.append(stmt)
        stack.extend(stmt.block or [])
    return sorted(flat, key=lambda s: s.start)


@st.composite
def mutants(draw: st.DrawFn, seeds: tuple[str, ...]) -> tuple[str, str]:
    """(kind of mutation, mutated text)."""
    text = draw(st.sampled_from(seeds))
    data = text.encode("utf-8", "surrogateescape")
    statements = _statements(Source(data))
    kind = draw(st.sampled_from(("drop-arg", "add-arg", "misspell", "move", "semicolon")))
    if kind == "semicolon" or not statements:
        at = draw(st.integers(0, len(text)))
        return kind, _drop_semicolon_before_block(text, at) or text
    stmt = draw(st.sampled_from(statements))
    if kind == "drop-arg" and stmt.args:
        arg = draw(st.sampled_from(stmt.args))
        data = data[: arg.start].rstrip(b" \t") + b" " + data[arg.end :].lstrip(b" \t")
    elif kind == "add-arg":
        word = draw(st.sampled_from((b"x", b"on", b"1", b"10m", b"$host", b'"a b"')))
        at = stmt.args[-1].end if stmt.args else stmt.name.end
        data = data[:at] + b" " + word + data[at:]
    elif kind == "misspell":
        name = data[stmt.name.start : stmt.name.end]
        i = draw(st.integers(0, max(len(name) - 1, 0)))
        how = draw(st.sampled_from(("drop", "double", "swap")))
        if how == "drop":
            new = name[:i] + name[i + 1 :]
        elif how == "double":
            new = name[: i + 1] + name[i : i + 1] + name[i + 1 :]
        else:
            new = name[:i] + name[i + 1 : i + 2] + name[i : i + 1] + name[i + 2 :]
        data = data[: stmt.name.start] + (new or b"x") + data[stmt.name.end :]
    elif kind == "move" and stmt.block is None and stmt.end_token is not None:
        line = data[stmt.start : stmt.end]
        rest = data[: stmt.start] + data[stmt.end :]
        openers = [m.end() for m in re.finditer(rb"\{", rest)] or [0]
        at = draw(st.sampled_from(openers))
        data = rest[:at] + b"\n" + line + b"\n" + rest[at:]
    return kind, data.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Verdict:
    nginx: str  # accepted | known | other
    message: str
    line: int | None
    lint: list[tuple[int, str]]  # (line, message) of lint's grammar errors, in line order

    @property
    def agrees(self) -> bool:
        if self.nginx == "accepted":
            return not self.lint
        if self.nginx == "known":
            first = [
                message for line, message in self.lint if self.lint and line == self.lint[0][0]
            ]
            if self.message not in first:  # lint's first line with an error says it too
                return False
            # both name the line where nginx read the statement's last token (its `;` or `{`)
            return self.line is None or self.lint[0][0] == self.line
        # refused for a reason lint cannot know: lint names nothing nginx would meet first
        return not self.lint or self.line is None or self.lint[0][0] >= self.line


def compare(build: Build, text: str) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="nginxgen-grammar-") as tmp:
        folder = Path(tmp)
        conf = folder / "nginx.conf"
        conf.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        refused = nginx_refuses(build, conf)
        findings = lint(load_path(str(conf)), build_target(build), GRAMMAR)
    errors = sorted((f.line, f.message) for f in findings if f.severity == "error")
    if refused is None:
        return Verdict("accepted", "", None, errors)
    message, line = refused
    known = bool(KNOWN.search(message))
    setter = VALUE_MESSAGE.search(message)
    if setter:  # "invalid value" of a module's own handler (expires, listen) is not knowable
        entries = directives.nginx_directive(build_target(build), setter.group(1)) or ()
        known = any(e.value for e in entries)
    return Verdict("known" if known else "other", message, line, errors)


def nginx_refuses(build: Build, conf: Path) -> tuple[str, int | None] | None:
    """nginx's first [emerg] message and its line (None: "syntax is ok")."""
    done = subprocess.run(
        [*build.nginx_argv, "-p", f"{conf.parent}/", "-c", str(conf), "-e", "/dev/null", "-t",
         "-g", f"pid {conf.parent}/nginx.pid;"],
        capture_output=True, text=True, errors="replace", timeout=30, check=False,
        env=build.env(),
    )  # fmt: skip
    if "syntax is ok" in done.stderr:
        return None
    found = EMERG_LINE.search(done.stderr)
    if found:
        return found.group(1), int(found.group(3))
    bare = re.search(r"\[emerg\] (.*)$", done.stderr, re.M)
    return (bare.group(1) if bare else done.stderr.strip()), None
