"""NGX029 (trial 20, Nginx Proxy Manager's per-host `map $scheme $hsts_header`): two blocks that
define one variable pass `nginx -t`, and a running nginx answers every server from the last. The
oracle is nginx itself, asked over HTTP for the variable's value in each server; lint says
NGX029 exactly where a block's values never reach a response."""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import require_build
from tests.live import Server, free_port, lint_as, nginx_bin_script, nginx_check, prepare_prefix

TREE = """worker_processes 1;
events {{}}
http {{
    {first} {{ {first_entries} }}
    server {{ listen 127.0.0.1:{port}; server_name a.example; return 200 "$v"; }}
    {second} {{ {second_entries} }}
    server {{ listen 127.0.0.1:{port}; server_name b.example; return 200 "$v"; }}
}}
"""

CASES = [
    # (first block, its entries, second block, its entries, each server's answer)
    ("map $host $v", "default one;", "map $host $v", "default two;", ("two", "two")),
    ("map $host $V", "default one;", "map $uri $v", "default two;", ("two", "two")),
    ("geo $v", "default one;", "map $host $v", "default two;", ("two", "two")),
    ("map $host $v", "default one;", "split_clients $host $v", "* two;", ("two", "two")),
    # the same block twice (one file included twice): nothing is lost
    ("map $host $v", "default one;", "map $host $v", "default one;", ("one", "one")),
    # two variables: each server its own (the fix)
    ("map $host $v", "default one;", "map $host $w", "default two;", ("one", "one")),
]


def _answer(port: int, host: str) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/", headers={"Host": host})
        return connection.getresponse().read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_the_last_definition_answers_every_server(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    nginx_bin = nginx_bin_script(build, None, tmp_path / "nginx-bin")
    wrong = []
    for index, (first, one, second, two, answers) in enumerate(CASES):
        folder = tmp_path / str(index)
        folder.mkdir()
        conf = folder / "nginx.conf"
        port = free_port()
        conf.write_text(TREE.format(first=first, first_entries=one, second=second,
                                    second_entries=two, port=port))  # fmt: skip
        prepare_prefix(conf, build, workers=1)
        checked = nginx_check(build, conf)
        assert checked.returncode == 0, checked.stderr  # nginx -t says nothing of it
        with Server(build, conf, [port]):
            seen = (_answer(port, "a.example"), _answer(port, "b.example"))
        assert seen == answers, (first, second, seen)
        lost = seen[0] != one.split()[-1].rstrip(";")  # the first block's value never answers
        found = lint_as(nginx_bin, conf, "NGX029")
        line = conf.read_text().splitlines().index(f"    {first} {{ {one} }}") + 1
        said = f"nginx.conf:{line}: NGX029 warning" in found.stdout
        if said != lost or found.stdout.count("NGX029") != (1 if lost else 0):
            wrong.append(f"{first} / {second}: lost {lost}, lint {found.stdout}")
    assert not wrong, wrong
