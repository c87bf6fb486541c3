"""What nginx says once it has read a whole block, against real `nginx -t`: it stands on the
block's closing `}` then, and names that line. A server{} with no listen line gets its
implicit `listen *:80` from ngx_http_core_server after its block is read, so the warning
`protocol options redefined` that listen draws (from nginx 1.23.4) names the server's `}`, not
its first line; NGX014 names the same line, in a file and in an `nginx -T` dump of it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import lint_as, nginx_argv, nginx_check

# the later servers' listens differ from the first's protocols (nginx warns at the second's
# line), and the server without listen, over several lines, leaves them out again: nginx warns
# at its `}` (line 12), the implicit listen's
IMPLICIT = """events {}
http { @HEAD@
    server { listen 80 proxy_protocol; server_name a.example; }
    server { listen 80 http2; server_name b.example; }
    server
    {
        server_name c.example;
        location / {
            return 204;
        }

    }
}
"""
WARNED = re.compile(r"\[warn\] (?:\d+#\d+: )?protocol options redefined .*? in (\S+):(\d+)$", re.M)
SINCE = "1.23.4"

# nginx gives a server without listen *:80 only as root (*:8000 otherwise), which lint assumes
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="the implicit listen is *:80 only for nginx run as root"
)


def _lint_lines(nginx_bin: Path, path: Path) -> list[tuple[str, int]]:
    found = lint_as(nginx_bin, path, "NGX014")
    said = re.findall(
        r"^(\S+?):(\d+): NGX014 warning protocol options redefined", found.stdout, re.M
    )
    return [(file, int(line)) for file, line in said]


@needs_root
@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_the_implicit_listen_is_named_at_the_servers_closing_line(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(IMPLICIT.replace("@HEAD@", " ".join(build.in_prefix)))
    checked = nginx_check(build, conf)
    assert "test is successful" in checked.stderr, checked.stderr
    said = [(file, int(line)) for file, line in WARNED.findall(checked.stderr)]
    if Version(build.nginx_version) >= Version(SINCE):
        assert said == [(str(conf), 4), (str(conf), 12)], checked.stderr
    else:
        assert said == [], checked.stderr
    assert _lint_lines(nginx_bin, conf) == said
    # the same tree as `nginx -T` prints it: the dump's file keeps its lines
    dumped = subprocess.run(
        nginx_argv(build, conf, "-T", "-g", f"pid {tree}/nginx.pid;"),
        capture_output=True, text=True, timeout=60, check=False, env=build.env(),
    )  # fmt: skip
    assert dumped.returncode == 0, dumped.stderr
    dump = tmp_path / "dump.txt"
    dump.write_text(dumped.stdout)
    assert _lint_lines(nginx_bin, dump) == said
