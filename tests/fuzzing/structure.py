"""Real `nginx -t` as the oracle for structure (issue 12): mutate configs that nginx accepts by
their braces, semicolons and quotes, and compare what nginx says with what lint says.

Seeds are single files every build reads to "syntax is ok": the rendered examples (includes
inlined, certificate and DH paths pointed at real files) and the corpus files that pass as they
are (wrapped in `http{}` or `server{}` where they are snippets). A mutant that nginx refuses with
a structural message must draw an NGX001 finding; one nginx reads to "syntax is ok" must draw
none. Mutants nginx refuses for another reason (a bad value) decide nothing.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from nginxgen.conf.load import _parse_text, load_path
from nginxgen.knowledge.target import Target
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.directive_probe import nginx_t, nginx_t_at
from tests.fuzzing.generate_check import build_target, real_files
from tests.paths import EXAMPLES, corpus_files

# nginx's messages for structure (ngx_conf_read_token, ngx_conf_handler): a character where the
# tokenizer allows none, the end of the file inside a block or directive, a block where a `;`
# belongs or the reverse. `unexpected "!~" in condition` and the like are about values.
STRUCTURAL = re.compile(
    r'^unexpected "."$|^unexpected end of file|is not terminated by ";"|has no opening "\{"'
)
INCLUDE = re.compile(r"^(\s*)include\s+(\S+);", re.M)
FILE_DIRECTIVE = re.compile(
    r"(?<![\w$])(ssl_certificate_key|ssl_certificate|(?:proxy_|grpc_|uwsgi_)?ssl_trusted_certificate"
    r"|ssl_dhparam)"
    r"(\s+)[^;\s]+;"
)
# the examples log to /var/log/nginx, which a test machine need not have
ACCESS_LOG = re.compile(r"(?<![\w$])(access_log\s+)/[^;\s]+")
SELECT_SYNTAX = Selection(select={"NGX001"})


def _inline(path: Path) -> str:
    """An example's nginx.conf with its includes pasted in and its files pointed at real ones."""
    folder = path.parent

    def paste(match: re.Match[str]) -> str:
        included = folder / match.group(2)
        return included.read_text() if included.is_file() else match.group(0)

    return point_files(INCLUDE.sub(paste, path.read_text()))


def point_files(text: str) -> str:
    """The certificate, key, trusted chain and DH parameter lines pointed at real files (the
    certificates alternate between an ECDSA and an RSA pair), so that `nginx -t` can load them,
    and access logs written to /dev/null."""
    files = real_files()
    counts = {"ssl_certificate": 0, "ssl_certificate_key": 0}

    def point(match: re.Match[str]) -> str:
        directive = match.group(1)
        if directive in counts:
            pair = files.certificates[counts[directive] % len(files.certificates)]
            counts[directive] += 1
            value = pair["cert" if directive == "ssl_certificate" else "key"]
        elif directive == "ssl_dhparam":
            value = files.dhparam
        else:
            value = files.chain
        return f"{directive}{match.group(2)}{value};"

    return ACCESS_LOG.sub(r"\1/dev/null", FILE_DIRECTIVE.sub(point, text))


def _wrapped(text: str) -> str | None:
    """A corpus file as a whole nginx.conf, or None when it does not parse or is not a config."""
    parsed, problems, _ = _parse_text(text, "seed.conf")
    if problems or not parsed:
        return None
    top = {raw[0] for raw in parsed}
    if top & {"http", "events", "stream"}:
        return text if "events" in top else "events {}\n" + text
    if top & {"server", "upstream", "map", "geo", "types"}:
        return "events {}\nhttp {\n" + text + "\n}\n"
    return "events {}\nhttp {\nserver {\n" + text + "\n}\n}\n"


@functools.cache
def candidate_seeds() -> tuple[str, ...]:
    texts = [_inline(p) for p in sorted(EXAMPLES.glob("*/*/nginx.conf"))]
    for path in corpus_files():
        if path.name.startswith("_LICENSE"):
            continue
        data = path.read_bytes()
        if b"\x00" in data or len(data) > 64 * 1024 or b"include" in data:
            continue
        wrapped = _wrapped(data.decode("utf-8", errors="surrogateescape"))
        if wrapped is not None:
            texts.append(wrapped)
    return tuple(texts)


@functools.cache
def accepted_seeds(builds: tuple[Build, ...]) -> tuple[str, ...]:
    """The candidate seeds that every one of these builds reads to "syntax is ok"."""
    with tempfile.TemporaryDirectory(prefix="nginxgen-oracle-") as tmp:
        return tuple(
            text
            for text in candidate_seeds()
            if all(nginx_t(build, text, Path(tmp)) == "" for build in builds)
        )


# --- mutations -------------------------------------------------------------------------------


def _drop_semicolon_before_block(text: str, at: int) -> str | None:
    """Drop the `;` that ends the directive just before the next block opener after `at`."""
    for match in re.finditer(r";(\s*\n\s*[\w$\"'][^;{}]*\{)", text[at:]):
        start = at + match.start()
        return text[:start] + text[start + 1 :]
    return None


@st.composite
def mutants(draw: st.DrawFn, seeds: tuple[str, ...]) -> tuple[str, str]:
    """(kind of mutation, mutated text)."""
    text = draw(st.sampled_from(seeds))
    kind = draw(
        st.sampled_from(
            ("drop", "drop", "extra", "quote", "truncate", "semicolon-before-block", "two")
        )
    )
    if kind == "truncate":
        return kind, text[: draw(st.integers(0, max(len(text) - 1, 0)))]
    if kind == "semicolon-before-block":
        at = draw(st.integers(0, len(text)))
        mutated = _drop_semicolon_before_block(text, at) or _drop_semicolon_before_block(text, 0)
        return kind, mutated or text
    if kind == "quote":
        at = draw(st.integers(0, len(text)))
        return kind, text[:at] + draw(st.sampled_from(('"', "'"))) + text[at:]
    if kind == "extra":
        at = draw(st.integers(0, len(text)))
        return kind, text[:at] + draw(st.sampled_from(";{}")) + text[at:]
    rounds = 2 if kind == "two" else 1
    for _ in range(rounds):
        marks = [m.start() for m in re.finditer(r"[;{}\"']", text)]
        if not marks:
            break
        at = draw(st.sampled_from(marks))
        text = text[:at] + text[at + 1 :]
    return kind, text


# --- the comparison --------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    nginx: str  # accepted | structural | other
    message: str
    lint_errors: list[str]  # "line: message", by line
    line: int | None = None  # the line nginx names

    @property
    def agrees(self) -> bool:
        """Accepted: no syntax error. Refused for structure: lint's first line with a syntax
        error is nginx's, and nginx's words are among its errors there (nginx stops at the
        first; a user goes to that line)."""
        if self.nginx == "accepted":
            return not self.lint_errors
        if self.nginx == "structural":
            first = self.lint_errors[0].split(":", 1)[0] if self.lint_errors else None
            said = f"{self.line}: {self.message}"
            return first == str(self.line) and any(_same(said, e) for e in self.lint_errors)
        return True


def _same(said: str, written: str) -> bool:
    """nginx's message and lint's are the same words. nginx prints one byte of a character
    (`unexpected "%c"`): of a multi-byte one, its first, which reads as U+FFFD here; lint
    names the character (the fuzzer's find: `'env 'русский текст';`)."""
    if "\ufffd" not in said:
        return said == written
    pattern = "".join("[^\\x00-\\x7f]" if c == "\ufffd" else re.escape(c) for c in said)
    return re.fullmatch(pattern, written) is not None


def compare(build: Build, text: str) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="nginxgen-oracle-") as tmp:
        folder = Path(tmp)
        message, line = nginx_t_at(build, text, folder)
        conf = folder / "nginx.conf"
        conf.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        target: Target = build_target(build)
        findings = lint(load_path(str(conf)), target, SELECT_SYNTAX)
    if message == "":
        kind = "accepted"
    elif STRUCTURAL.search(message):
        kind = "structural"
    else:
        kind = "other"
    ordered = sorted(findings, key=lambda f: f.line)
    return Verdict(kind, message, [f"{f.line}: {f.message}" for f in ordered], line)


# --- every non-block directive with its `;` lost before a block (issue 36) -------------------

# a context -> the file around the directive, with the block that follows it; `@` is the
# directive's line without its `;`. nginx reads the block's words as the directive's arguments
# and meets `{`: ngx_conf_handler() refuses any directive without NGX_CONF_BLOCK there, before
# it counts the arguments.
BEFORE_A_BLOCK = {
    "main": "@\nevents {}\n",
    "events": "events {\n    @\n    x {}\n}\n",
    "http": "events {}\nhttp {\n    @\n    server {}\n}\n",
    "server": "events {}\nhttp {\n    server {\n        @\n        location / {}\n    }\n}\n",
    "location": "events {}\nhttp {\n    server {\n        location / {\n            @\n"
    "            location /a {}\n        }\n    }\n}\n",
    "upstream": "events {}\nhttp {\n    upstream u {\n        @\n        x {}\n    }\n}\n",
    "stream": "events {}\nstream {\n    @\n    server {}\n}\n",
    "stream_server": "events {}\nstream {\n    server {\n        @\n        x {}\n    }\n}\n",
}


def semicolon_before_block_cases(build: Build) -> list[tuple[str, str, str]]:
    """(directive, context, text): every directive of the build's release that takes no block
    (its `ngx_command_t` entries in nginx's source, tests/data/value_vocabulary.json), in each
    of its contexts, its `;` lost right before a block."""
    from tests.fuzzing.values import release_for, vocabulary

    shapes = vocabulary()["structure"][release_for(build.nginx_version)]
    found = []
    for name, shape in shapes.items():
        contexts, kind, counts = shape.split("|")
        if kind != "simple":
            continue
        line = name if counts == "0" else f"{name} x"
        for context in contexts.split():
            if context in BEFORE_A_BLOCK:
                found.append((name, context, BEFORE_A_BLOCK[context].replace("@", line)))
    return found


def semicolon_before_block_sweep(
    builds: list[Build], spread: bool = False
) -> tuple[Counter[str], list[tuple[str, str, str, Verdict]]]:
    """nginx's verdicts and the disagreements (build, directive, context, verdict) of the
    cases above on these builds: each on every build, or with `spread` each (directive,
    context) on one build in turn (CI). Two nginx -t at a time."""
    todo = []
    for i, build in enumerate(builds):
        for j, (name, context, text) in enumerate(semicolon_before_block_cases(build)):
            if not spread or j % len(builds) == i:
                todo.append((build, name, context, text))
    outcomes: Counter[str] = Counter()
    wrong = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = pool.map(lambda case: compare(case[0], case[3]), todo)
        for (build, name, context, _), verdict in zip(todo, verdicts, strict=True):
            outcomes[verdict.nginx] += 1
            if not verdict.agrees:
                wrong.append((build.name, name, context, verdict))
    return outcomes, wrong
