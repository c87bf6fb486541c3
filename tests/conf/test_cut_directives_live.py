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
