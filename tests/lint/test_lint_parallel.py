"""A lint in several processes (nginxgen.base.forks: files read ahead, a large file lexed in pieces,
rule families in children) says exactly what the lint in one process says: the same output,
byte for byte, the same exit code, on a large generated tree and on every corpus file, with the
thresholds that keep small trees in one process forced down so that every path runs.

The lints run in a fresh Python process (driver() below): a forked child copies only the
forking thread, so nginxgen never forks where other threads run, and pytest-xdist's workers run
some."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.base import forks
from nginxgen.conf import lexer
from tests.fuzzing.configs import mutated, token_stream
from tests.helpers import FUZZ_CASES
from tests.paths import REPO, corpus_files

TARGET = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"]

# the parts run in children, by the function each_part was given
READ_AHEAD = "Loader._parse_all.<locals>.<lambda>"
LEX_PIECES = "_scan_parts.<locals>.piece"
RULE_FAMILIES = "_check_in_parts.<locals>.part"


def driver() -> None:
    """Lint each command line of the JSON list on stdin in one process (--jobs 1), then with
    the thresholds at their lowest in each number of processes the input names; print, for
    each, whether output, errors and exit code were the same, and how many children reported,
    by part."""
    import contextlib
    import io

    from nginxgen.conf import load
    from nginxgen.lint import cli, run

    reported: dict[str, int] = {}
    each_part, in_child = forks.each_part, forks.in_child

    def counted_each_part(work, parts, dumps, loads):  # type: ignore[no-untyped-def]
        name = work.__qualname__

        def counted_in_child(child_work, unread=None):  # type: ignore[no-untyped-def]
            collect = in_child(child_work, unread)
            if collect is None:
                return None

            def counted_collect():  # type: ignore[no-untyped-def]
                data = collect()
                if data is not None:
                    reported[name] = reported.get(name, 0) + 1
                return data

            return counted_collect

        forks.in_child = counted_in_child
        try:
            return each_part(work, parts, dumps, loads)
        finally:
            forks.in_child = in_child

    forks.each_part = counted_each_part  # type: ignore[assignment]

    def lint(argv: list[str]) -> tuple[int, bytes, str]:
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # --diff writes to its buffer
        err = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.run(argv)
        out.flush()
        return code, out.buffer.getvalue(), err.getvalue()  # type: ignore[attr-defined]

    results = []
    thresholds = lexer.PART_MIN, load.READ_AHEAD_MIN, run.RULES_IN_PARTS_MIN
    given = json.load(sys.stdin)
    for argv in given["cases"]:
        serial = lint(["--jobs", "1", *argv])
        reported.clear()
        lexer.PART_MIN, load.READ_AHEAD_MIN, run.RULES_IN_PARTS_MIN = 1, 1, 1
        try:
            same = [lint(["--jobs", str(jobs), *argv]) == serial for jobs in given["jobs"]]
        finally:
            lexer.PART_MIN, load.READ_AHEAD_MIN, run.RULES_IN_PARTS_MIN = thresholds
        results.append({"argv": argv, "same": same, "exit": serial[0], "children": dict(reported)})
    json.dump(results, sys.stdout)


def run_driver(
    cases: list[list[str]], cwd: Path, jobs: tuple[int, ...] = (2, 3)
) -> list[dict[str, object]]:
    code = "from tests.lint.test_lint_parallel import driver; driver()"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps({"cases": cases, "jobs": jobs}),
        capture_output=True,
        text=True,
        cwd=cwd,  # no settings file of this repository's on the way up
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, object]] = json.loads(done.stdout)
    return results


# (every how many vhosts, a line): something for a rule to find, or to suppress
SOMETIMES = (
    (23, "# nginxgen: ignore[NGX401] kiosks that only speak TLS 1.0"),
    (23, "ssl_protocols TLSv1 TLSv1.2;"),
    (7, "ssl_protocols TLSv1 TLSv1.2;"),
    (37, "ssl_ciphers RC4-SHA:AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256;"),
    (13, 'add_header Strict-Transport-Security "max-age=100";'),
    (17, "keepalive_timeout 0;"),
    (19, "ssl_protocol TLSv1.2;"),  # a typo
    (29, 'add_header X-Note "one line\n        and the next";'),
    (31, "include snippets/common.conf;"),
    (43, "ssl_stapling on;"),
    (47, "ssl_session_timeout yes;"),
    (53, "include missing/site.conf;"),
)


def vhost(i: int) -> str:
    """A TLS vhost with something for many rules to find, varied by its number: old protocols,
    weak suites, HSTS missing or short, a typo, a bad value, a suppression, a quoted string over
    two lines, a shared snippet, a backend not verified, stapling, a missing include."""
    lines = [
        f"# site {i}",
        "server {",
        "    listen 443 ssl;",
        f"    server_name site{i}.example.com;",
        f"    ssl_certificate /etc/ssl/site{i}/fullchain.pem;",
        f"    ssl_certificate_key /etc/ssl/site{i}/privkey.pem;",
        *(f"    {line}" for every, line in SOMETIMES if i % every == 0),
    ]
    if i % 11 and i % 13:
        lines.append('    add_header Strict-Transport-Security "max-age=63072000" always;')
    lines += [
        f"    set $site ${{host}}{i};",
        "    location / {",
        f"        proxy_pass {'https' if i % 41 == 0 else 'http'}://127.0.0.1:{8000 + i % 50};",
        "    }",
        "    location /static/ {",
        f"        root /var/www/site{i};",
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


HEAD = """events {{}}
http {{
    ssl_session_cache shared:SSL:10m;
    server {{
        listen 443 ssl default_server;
        ssl_reject_handshake on;
    }}
{body}}}
"""


def write_fleet(folder: Path, count: int, split: bool) -> Path:
    """`count` vhosts in nginx.conf, or one include per vhost (one of them with a syntax error
    in its middle, a `;` with no directive, which lint reads past: one nginx stops reading at,
    at the end of a file, would leave lint only what nginx says before it, Loaded.stopped)."""
    folder.mkdir()
    (folder / "snippets").mkdir()
    (folder / "snippets" / "common.conf").write_text("add_header X-Frame-Options DENY;\n")
    if split:
        (folder / "sites").mkdir()
        for i in range(count):
            text = vhost(i) if i != count // 2 else vhost(i).replace("root", "; root", 1)
            (folder / "sites" / f"site{i:04}.conf").write_text(text)
        body = "    include sites/*.conf;\n"
    else:
        body = "".join(vhost(i) for i in range(count))
    main = folder / "nginx.conf"
    main.write_text(HEAD.format(body=body))
    return main


@pytest.mark.fuzz  # a long run: a fleet six ways, each in one process and in several
def test_a_large_tree_in_several_processes_is_linted_as_in_one(tmp_path: Path) -> None:
    # with the thresholds at their lowest, 160 vhosts take every way of sharing the work, and
    # every line of SOMETIMES (the rarest comes every 53rd) is in them at least 3 times
    one_file = write_fleet(tmp_path / "one", 160, split=False)
    split = write_fleet(tmp_path / "split", 160, split=True)
    cases = [
        [*TARGET, str(one_file)],
        [*TARGET, str(split)],
        [*TARGET, "--format", "sarif", str(one_file)],  # with each fix's edits
        [*TARGET, "--format", "json", str(split)],
        [*TARGET, "--unsafe-fixes", "--diff", str(split)],  # the fix loop's passes
        [*TARGET, "--root", str(split), str(split.parent / "sites" / "site0007.conf")],
    ]
    results = run_driver(cases, tmp_path)
    for result in results:
        assert result["same"] == [True, True], result["argv"]
        assert result["exit"] == 1, result["argv"]  # findings: the rules found something
    children = [result["children"] for result in results]
    # each way of sharing the work ran, in one child (--jobs 2) and in two (--jobs 3)
    assert children[0][LEX_PIECES] == 3  # type: ignore[index]
    assert children[1][READ_AHEAD] == 3  # type: ignore[index]
    assert all(found[RULE_FAMILIES] >= 3 for found in children)  # type: ignore[index]


@pytest.mark.parametrize("jobs", ["0", "-1", "two", ""])
def test_jobs_takes_a_whole_number_from_one_up(tmp_path: Path, jobs: str) -> None:
    from nginxgen.lint.cli import run

    main = tmp_path / "nginx.conf"
    main.write_text("events {}\n")
    assert run(["--jobs", jobs, str(main)]) == 2


@pytest.mark.fuzz  # a long run: every corpus file in one process and in two
def test_every_corpus_file_in_several_processes_is_linted_as_in_one(tmp_path: Path) -> None:
    files = [p for p in corpus_files() if not p.name.startswith("_LICENSE")]
    assert len(files) > 300
    # in two processes only: three (one parent, two children) is the fleet test's above
    results = run_driver([[*TARGET, str(path)] for path in files], tmp_path, jobs=(2,))
    differ = [result["argv"] for result in results if result["same"] != [True]]
    assert differ == []
    # children checked the rules of every file that holds a statement (a few hold none), and
    # lexed pieces of most
    for part, share in ((RULE_FAMILIES, 0.95), (LEX_PIECES, 0.8)):
        ran = sum(bool(result["children"].get(part)) for result in results)  # type: ignore[attr-defined]
        assert ran >= share * len(files), part


FUZZ = settings(max_examples=FUZZ_CASES, deadline=None,
                suppress_health_check=list(HealthCheck))  # fmt: skip
_alphabet = st.sampled_from([*list("ab $#{};\"'\\\n\r\t}{"), "${", "\\\n", '\\"', "日"])
_files = [p for p in corpus_files() if p.suffix == ".conf" and p.stat().st_size < 20_000]


@FUZZ
@given(
    st.one_of(
        token_stream(),
        st.lists(_alphabet, max_size=200).map(lambda t: "".join(t).encode()),
        st.sampled_from(_files).flatmap(lambda path: mutated(path.read_bytes())),
    ),
    st.integers(2, 5),
)
def test_the_lexer_in_pieces_reads_as_in_one(data: bytes, parts: int) -> None:
    """Whatever the text and wherever the cuts fall (a quote or comment across one, a `}` that
    closes a block opened before it, an error), the pieces joined are the whole text's tokens,
    errors, refusals and spans, or the pieces give up (None) and the text is lexed whole. The
    pieces run here one after another (no fork): the children's side is the tests above."""
    text = data.decode("utf-8", "surrogateescape")
    whole_strict: list[tuple[str, int]] = []
    whole_spans: list[tuple[int, int]] = []
    strict: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    can_fork, plain_min = forks.can_fork, lexer.PLAIN_MIN
    forks.can_fork, lexer.PLAIN_MIN = (lambda: False), 0  # plain stretches in pieces too
    try:
        whole = lexer._scan(text, "f.conf", whole_strict, True, whole_spans)
        pieces = lexer._scan_parts(text, "f.conf", strict, True, spans, parts)
    finally:
        forks.can_fork, lexer.PLAIN_MIN = can_fork, plain_min
    if pieces is None:
        assert (strict, spans) == ([], [])  # nothing half-written for the whole reading
        return
    assert (pieces[0], str(pieces[1]), strict, spans) == (
        whole[0],
        str(whole[1]),
        whole_strict,
        whole_spans,
    )
