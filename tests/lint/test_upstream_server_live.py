"""An upstream block's `server` parameters against real `nginx -t` (issue 44: Overleaf's toolkit
writes `server host:port resolve;`, which open source nginx reads from 1.27.3 on; Debian 12's
and 13's nginx stop with `invalid parameter "resolve"` and lint said nothing). The parameters
each release reads come from nginx's own handlers (scripts/build_value_tables.py). Each case is
one upstream line in http{} and in stream{}: where nginx refuses it, NGX010 gives nginx's words
at nginx's line; where nginx reads it, NGX010 says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint

PARAMETERS = [
    "weight=2 max_fails=3 fail_timeout=10s",
    "backup",
    "down",
    "resolve",  # 1.27.3
    "max_conns=10 bogus",
    "weight=2 Backup",  # compared with ngx_strcmp: case counts
]


def _tree(build: Build, block: str, parameters: str) -> str:
    modules = ""
    if build.root is not None and block == "stream":  # Debian's nginx: a loadable module
        modules = f"load_module {build.root / 'usr/lib/nginx/modules/ngx_stream_module.so'};\n"
    upstream = (
        "resolver 127.0.0.1 valid=10s;\n"
        "upstream app {\n"
        "    zone app 64k;\n"
        "    server 127.0.0.1:8081;\n"
        f"    server localhost:8082 {parameters};\n"
        "}\n"
    )
    use = (
        "server { listen 127.0.0.1:8999; location / { proxy_pass http://app; } }"
        if block == "http"
        else "server { listen 127.0.0.1:8998; proxy_pass app; }"
    )
    head = (
        " ".join(["access_log off;", *build.temp_path_directives, "\n"]) if block == "http" else ""
    )
    return f"{modules}events {{}}\n{block} {{\n{head}{upstream}{use}\n}}\n"


@pytest.mark.parametrize("block", ["http", "stream"])
@pytest.mark.parametrize("parameters", PARAMETERS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_server_parameters_as_nginx_reads_them(
    name: str,
    parameters: str,
    block: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, block, parameters))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX010")
    if emerg is None:
        assert lines == [], lines
        return
    said, line = emerg
    assert said.startswith("invalid parameter"), said  # what this test is about
    assert len(lines) == 1 and f":{line}: NGX010 error {said}" in lines[0], (lines, said)
