"""A directive cut off by a `}` or by the end of the file (issue 44: a markdown fence copied
after a config's last `}`, found trying configs as a new user). nginx handles a directive only
once its `;` or `{` is read, so it never judges the cut words: it stops with one syntax error.
Lint gives that one error, at nginx's line, and no finding about the words nginx never read
(it said `unknown directive` about them too). Against real `nginx -t` on Debian 12 and 13."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_check

CASES = {
    "a markdown fence after the last brace": "events {}\nhttp {\n    server { listen 8999; }\n}\n```\n",
    "a word at the end of the file": "events {}\nhttp {\n}\nfoo bar\n",
    "an unknown word ended by a brace": "events {}\nhttp {\n    server { listen 8999; foo }\n}\n",
    "a known directive ended by a brace": "events {}\nhttp {\n    server { listen 8999 ssl }\n}\n",
    "a value cut by the end of the file": "events {}\nhttp {\n    ssl_protocols TLSv1.2",
}


# a directive that lost its `;` before a block: nginx checks where it may stand first
LOST = {
    # Scramble's config, tried as a new user: "not allowed here" at the `{`, and only that
    "not allowed where it stands": ("events {}\nserver_tokens off\n\nhttp {\n}\n", "NGX008"),
    "allowed where it stands": (
        "events {}\nhttp {\n    keepalive_timeout 30\n    server { listen 8999; }\n}\n",
        "NGX001",
    ),
    "not allowed in a location": (
        "events {}\nhttp {\n    server { listen 8999;\n        location / {\n"
        "            ssl_protocols TLSv1.2\n            if ($uri) { return 404; }\n"
        "        }\n    }\n}\n",
        "NGX008",
    ),
}


@pytest.mark.parametrize("case", [*CASES, *LOST])
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_one_syntax_error_at_nginxs_line(
    case: str, name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    text, code = LOST[case] if case in LOST else (CASES[case], "NGX001")
    conf.write_text(text)
    said, errors = _nginx_and_errors(build, nginx_bin, conf)
    assert errors == [f"{conf}:{said[1]}: {code} error {said[0]}"], errors


def _nginx_and_errors(
    build: Build, nginx_bin: Path, conf: Path
) -> tuple[tuple[str, str], list[str]]:
    """nginx -t's [emerg] (message, line) and the error lines of lint's text output."""
    emerg = re.search(r"\[emerg\] (.*) in \S+:(\d+)$", nginx_check(build, conf).stderr, re.M)
    assert emerg is not None
    argv = ["lint", "--nginx-bin", str(nginx_bin), str(conf)]
    found = subprocess.run(
        [sys.executable, "-m", "nginxgen", *argv], capture_output=True, text=True, check=False
    )
    errors = [
        line for line in found.stdout.splitlines() if re.match(r"\S+:\d+: NGX\d+ error ", line)
    ]
    return (emerg.group(1), emerg.group(2)), errors


# A quote left open (issue: lint gave findings beside nginx's one error): nginx reads on to the
# end of the file, where it stops with `unexpected end of file, expecting ";" or "}"`. It has
# handled each statement before the quote's, and reads nothing after the end of that file (the
# lines after an include of it): what it says is its handlers' words on the lines before, up to
# the first [emerg]. @TMP@: the tree; site.conf, where a case has one, is what @TMP@/site.conf
# holds. (main file, site.conf)
QUOTES = {
    "a directive at the top": ('worker_processes "2;\nevents {}\nhttp {\n    foo bar;\n}\n', ""),
    "a server": (
        "events {}\nhttp {\n    server {\n        listen 8999;\n"
        '        add_header X "a;\n        ssl_protocols TLSv1;\n    }\n}\n',
        "",
    ),
    "a location": (
        "events {}\nhttp {\n    server {\n        listen 8999;\n        location / {\n"
        "            return 200 'hi;\n        }\n    }\n    server { listen 8999; }\n}\n",
        "",
    ),
    "an included file, lines after its include": (
        "events {}\nhttp {\n    include @TMP@/site.conf;\n"
        "    server { listen 8998; ssl_protocols TLSv1; foo; }\n}\n",
        "server {\n    listen 8999;\n    add_header X 'a;\n    return 204;\n}\n",
    ),
    "an upstream's include": (
        "events {}\nhttp {\n    upstream u {\n        include @TMP@/site.conf;\n    }\n"
        "    server { listen 8998; location / { proxy_pass http://u; } }\n}\n",
        '# servers\nserver 127.0.0.1:9 "a;\n',
    ),
    # what nginx says before it reaches the end: an unknown directive stops it there
    "an unknown directive before": (
        "events {}\nhttp {\n    server {\n        listen 8999;\n        foo bar;\n"
        '        add_header X "a;\n    }\n}\n',
        "",
    ),
    # a warning of a listen's handler, then the end
    "a deprecated listen before": (
        'events {}\nhttp {\n    server {\n        listen 8999 http2;\n        add_header X "a;\n'
        "    }\n}\n",
        "",
    ),
    # an upstream judged at its `}`, before the quote
    "an empty upstream before": (
        "events {}\nhttp {\n    upstream u {\n    }\n    server {\n        listen 8999;\n"
        "        return 200 'a;\n    }\n}\n",
        "",
    ),
    # lines nginx read, judged only once the tree is read (a cache zone, a certificate) or by
    # lint alone (TLSv1): nginx never gets there
    "a tree nginx never finished": (
        "events {}\nhttp {\n    ssl_protocols TLSv1;\n    proxy_cache_path @TMP@/c keys_zone=z:1m;\n"
        "    server {\n        listen 8999 ssl;\n        location / { proxy_cache nosuch; }\n"
        "    }\n    server {\n        server_name 'b;\n    }\n}\n",
        "",
    ),
    # a block the file ends inside stops nginx at the end alike (`expecting "}"`)
    "a block left open after an unknown directive": (
        "events {}\nhttp {\n    foo;\n    server {\n        listen 8999;\n",
        "",
    ),
    # a stray `}` in an included file (trial 21: a patch's .rej in sites-enabled/): nginx warns
    # of the lines it read before, then stops; the include's error came first in lint's
    # reading order, and the warning was dropped
    "a stray brace in an included file": (
        "events {}\nhttp {\n    server { listen 8999 http2; }\n    include @TMP@/site.conf;\n}\n",
        "-  a\n+  b\n}\n",
    ),
    "a block left open": (
        "events {}\nhttp {\n    server {\n        listen 8999 ssl;\n        ssl_protocols TLSv1;\n",
        "",
    ),
}
SAID = re.compile(r"\[(warn|emerg)\] (?:\d+#\d+: )?(.*) in (\S+):(\d+)$", re.M)
FOUND = re.compile(r"^(\S+):(\d+): NGX\d+ (warning|error|info) (.*)$", re.M)


@pytest.mark.parametrize("case", QUOTES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_where_a_file_ends_inside_a_statement_lint_says_what_nginx_says(
    case: str, name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Each of nginx's messages is one of lint's findings, at its file and line, with its level
    (warn: a warning, emerg: an error in nginx's words), and lint says nothing else."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    main, site = (text.replace("@TMP@", str(tree)) for text in QUOTES[case])
    conf = tree / "nginx.conf"
    conf.write_text(main)
    if site:
        (tree / "site.conf").write_text(site)
    said = SAID.findall(nginx_check(build, conf).stderr)
    assert said and said[-1][0] == "emerg", said
    argv = ["lint", "--nginx-bin", str(nginx_bin), str(conf)]
    found = subprocess.run(
        [sys.executable, "-m", "nginxgen", *argv], capture_output=True, text=True, check=False
    )
    lint = FOUND.findall(found.stdout)
    levels = {"warn": "warning", "emerg": "error"}
    assert [(f, int(n), levels[level]) for level, _, f, n in said] == [
        (f, int(n), severity) for f, n, severity, _ in lint
    ], (said, found.stdout)
    for (level, message, *_), (*_, words) in zip(said, lint, strict=True):
        if level == "emerg":
            assert words.startswith(message), (message, words)


@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_a_main_file_ending_after_its_blocks_is_read_whole(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """certbot's test tree (broken.conf): `@@@` after the main file's last line. nginx has read
    and closed every block by then, so it made http{}'s checks (a certificate missing for a
    `listen ... ssl`), whose [emerg] is the one it gives; lint says it too, as for any tree it
    read whole (with its other findings), and the end of the file's syntax error."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    (tree / "site.conf").write_text(
        "http {\n    server {\n        listen 8999 ssl default_server;\n"
        "        server_name a.example;\n    }\n}\n"
    )
    conf = tree / "nginx.conf"
    conf.write_text(f"events {{}}\ninclude {tree}/site.conf;\n\n@@@\n")
    said = SAID.findall(nginx_check(build, conf).stderr)
    assert [(level, f, n) for level, _, f, n in said] == [
        ("emerg", str(tree / "site.conf"), "2")
    ], said
    argv = ["lint", "--nginx-bin", str(nginx_bin), str(conf)]
    found = subprocess.run(
        [sys.executable, "-m", "nginxgen", *argv], capture_output=True, text=True, check=False
    )
    errors = [(f, n, words) for f, n, severity, words in FOUND.findall(found.stdout)
              if severity == "error"]  # fmt: skip
    assert (str(tree / "site.conf"), "2") in [(f, n) for f, n, _ in errors], found.stdout
    assert any(f == str(conf) and w.startswith("unexpected end of file") for f, _, w in errors)
