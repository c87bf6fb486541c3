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


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_a_cut_directive_is_one_syntax_error(
    case: str, name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(CASES[case])
    emerg = re.search(r"\[emerg\] (.*) in \S+:(\d+)$", nginx_check(build, conf).stderr, re.M)
    assert emerg is not None
    argv = ["lint", "--nginx-bin", str(nginx_bin), str(conf)]
    found = subprocess.run(
        [sys.executable, "-m", "nginxgen", *argv], capture_output=True, text=True, check=False
    )
    errors = [
        line for line in found.stdout.splitlines() if re.match(r"\S+:\d+: NGX\d+ error ", line)
    ]
    assert errors == [f"{conf}:{emerg.group(2)}: NGX001 error {emerg.group(1)}"], found.stdout
