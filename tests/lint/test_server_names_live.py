"""Server names two servers of one address give, against real `nginx -t` (issue 44: two
servers on 127.0.0.1:8080 naming app.example; nginx warns `conflicting server name
"app.example" on 127.0.0.1:8080, ignored` and lint said nothing). Each case is a list of
servers; nginx's warnings of that kind and NGX017's findings are the same, one for one (nginx
names no line: the unit test below checks the lines lint names)."""

from __future__ import annotations

import os
import re
import socket
from collections import Counter
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.every_rule import lint_checked
from tests.live import first_emerg, lint_as, nginx_and_lint_agree, nginx_check

L = "listen 127.0.0.1:8080;"
CASES = {  # name: (block, the servers' bodies)
    "the trial's": (
        "http",
        [f'{L} server_name _ "" app.example;', f"{L} server_name app.example;"],
    ),
    "letter case": ("http", [f"{L} server_name App.Example;", f"{L} server_name app.EXAMPLE;"]),
    "exact after .name": ("http", [f"{L} server_name .a.example;", f"{L} server_name a.example;"]),
    ".name after exact": ("http", [f"{L} server_name a.example;", f"{L} server_name .a.example;"]),
    ".name after *.name": (
        "http",
        [f"{L} server_name *.a.example;", f"{L} server_name .a.example;"],
    ),
    "*.name beside exact": (
        "http",
        [f"{L} server_name *.a.example;", f"{L} server_name a.example;"],
    ),
    "name.* twice": ("http", [f"{L} server_name www.a.*;", f"{L} server_name www.a.*;"]),
    "regex twice": (
        "http",
        [f"{L} server_name ~^a\\.example$;", f"{L} server_name ~^a\\.example$;"],
    ),
    "no names": ("http", [L, L]),
    "three servers": ("http", [f"{L} server_name a.example;"] * 3),
    "twice in one server": (
        "http",
        [f"{L} server_name a.example a.example;", f"{L} server_name b.example;"],
    ),
    "two addresses": (
        "http",
        ["listen 8080; listen [::]:8080; server_name a.example;"] * 2,
    ),
    "other ports": ("http", [f"{L} server_name a.example;", "listen 8081; server_name a.example;"]),
    "stream": ("stream", ["listen 127.0.0.1:8080; server_name a.example; return x;"] * 2),
    "stream udp": ("stream", ["listen 127.0.0.1:8080 udp; server_name a.example; return x;"] * 2),
    # trial 7: nginx gives a server without listen *:80 (as root), and `$hostname` is the
    # machine's name
    "no listen": ("http", ["server_name a.example;", "server_name a.example;"]),
    "no listen, no name": ("http", ["", "listen 80;"]),
    "$hostname twice": ("http", [f"{L} server_name $hostname;", f"{L} server_name $HOSTNAME;"]),
}
WARNING = re.compile(r"\[warn\] (?:\d+#\d+: )?(conflicting server name .*)$", re.M)


def _as_lint_says(warning: str) -> str:
    """nginx's warning in lint's words: the machine's name is `$hostname` (lint does not know
    the machine a config is for), and a server without listen is on port 80 (as root)."""
    warning = warning.replace(f'"{socket.gethostname().lower()}"', '"$hostname"')
    return warning if os.getuid() == 0 else warning.replace(":8000,", ":80,")


def _tree(build: Build, block: str, bodies: list[str]) -> str:
    servers = "".join(
        f"    server {{ {body}{'' if block == 'stream' else ' return 204;'} }}\n" for body in bodies
    )
    modules = build.load_module("stream") if block == "stream" else ""
    temp = "" if block == "stream" else "".join(f"    {d}\n" for d in build.in_prefix)
    return f"{modules}events {{}}\n{block} {{\n{temp}{servers}}}\n"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_conflicting_names_as_nginx_warns(
    name: str, case: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, *CASES[case]))
    checked = nginx_check(build, conf)
    found = lint_as(nginx_bin, conf, "NGX017")
    said = Counter(_as_lint_says(warning) for warning in WARNING.findall(checked.stderr))
    lint = Counter(
        re.sub(r" \(run as root; [^)]*\): nginx -t warns$| nginx -t warns$", "", line)
        .split(" NGX017 warning ", 1)[1]
        .removesuffix(":")
        for line in found.stdout.splitlines()
        if " NGX017 " in line
    )
    if first_emerg(checked.stderr) is not None:  # stream server_name before 1.25.5
        assert not said and not lint, (checked.stderr, lint)
        return
    assert lint == said, (checked.stderr, found.stdout)


def test_the_line_named_is_the_later_servers(tmp_path: Path) -> None:
    """nginx names no line: lint names the later server's server_name line, or for a server
    without one (the name "") its listen line."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "server { listen 8080; server_name a.example; }\n"
        "server {\n listen 8080;\n server_name b.example\n  A.example;\n}\n"
        "server { listen 8081; }\n"
        "server {\n listen 8081;\n}\n"
        "}\n"
    )
    target = resolve("1.26.3", "openssl-3.5.7")
    found = [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX017"]
    assert [(f.line, f.message.split(": ")[0]) for f in found] == [
        (6, 'conflicting server name "a.example" on 0.0.0.0:8080, ignored'),
        (11, 'conflicting server name "" on 0.0.0.0:8081, ignored'),
    ]


LONG = "a" * 38 + ".example"  # 46 characters: the longest name a 64-byte bucket holds
MANY = " ".join(f"n{i}.example" for i in range(1000))
HASHES = {  # name: (http{} lines, the servers' bodies)
    "46 characters": ("", [f"{L} server_name a.example;", f"{L} server_name {LONG};"]),
    "47 characters": ("", [f"{L} server_name a.example;", f"{L} server_name a{LONG};"]),
    "47 alone on its port": ("", [f"{L} server_name a{LONG};", "listen 8081;"]),
    "47 as .name": ("", [f"{L} server_name a.example;", f"{L} server_name .a{LONG};"]),
    "47 as a wildcard": ("", [f"{L} server_name a.example;", f"{L} server_name *.a{LONG};"]),
    "47, bucket 128": (
        "server_names_hash_bucket_size 128;",
        [f"{L} server_name a.example;", f"{L} server_name a{LONG};"],
    ),
    "47, bucket 65 (aligned up)": (
        "server_names_hash_bucket_size 65;",
        [f"{L} server_name a.example;", f"{L} server_name a{LONG};"],
    ),
    "1000 names": ("", [f"{L} server_name a.example;", f"{L} server_name {MANY};"]),
    "1000 names, max size 8192": (
        "server_names_hash_max_size 8192;",
        [f"{L} server_name a.example;", f"{L} server_name {MANY};"],
    ),
    "300 names": ("", [f"{L} server_name a.example;", f"{L} server_name {MANY[:3500]};"]),
}
HASH_MESSAGE = re.compile(
    r"\[(?:warn|emerg)\] (?:\d+#\d+: )?(could not build .*server_names_hash.*)$", re.M
)


@pytest.mark.parametrize("case", HASHES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_server_names_hash_as_nginx_builds_it(
    name: str, case: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The server names hash of an address (trial 8): a name too long for a bucket stops
    nginx -t, too many names for the max size draw its warning; NGX018 says the same."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    top, bodies = HASHES[case]
    conf.write_text(_tree(build, "http", bodies).replace("http {\n", f"http {{\n{top}\n", 1))
    checked = nginx_check(build, conf)
    found = lint_as(nginx_bin, conf, "NGX018")
    said = HASH_MESSAGE.findall(checked.stderr)
    lint = [
        line.split(" NGX018 ", 1)[1].split(" ", 1)[1].split(": nginx -t")[0].split(" (nginx -t")[0]
        for line in found.stdout.splitlines()
        if " NGX018 " in line
    ]
    assert said == lint, (checked.stderr, found.stdout)
    assert ("emerg" in checked.stderr) == (" NGX018 error " in found.stdout), found.stdout


# Names nginx refuses (trial 16, zlind0's `....xyz`): server_name itself refuses a `*` first
# without `.` and more, and `.` alone, in any server; the hash of an address more than one
# server listens on declines two `*`, `..` and a `*` elsewhere than `*.` or `.*`. A server alone
# on its address builds no hash: there nginx says nothing of the second kind.
NAMES = ["....xyz", "www.*.example.com", "a*.com", "**.a.com", "*", "*.", ".", "*x.com",
         "*.example.com", "www.example.*", ".example.com", ".a", "_"]  # fmt: skip


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "alone"])
@pytest.mark.parametrize("server_name", NAMES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_a_name_nginx_refuses(
    name: str,
    server_name: str,
    shared: bool,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    other = f"{L} server_name new.example;" if shared else "listen 127.0.0.1:8081;"
    conf.write_text(_tree(build, "http", [f"{L} server_name {server_name};", other]))
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", "")
