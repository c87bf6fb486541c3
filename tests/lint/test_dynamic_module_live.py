"""stream{} on Debian's nginx, where stream is a loadable module (`--with-stream=dynamic`):
without `load_module` of ngx_stream_module.so nginx -t stops with `unknown directive "stream"`
(issue 44), and lint, its target read from that binary, says so; with the line, neither does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.directive_probe import nginx_t
from tests.live import lint_as

STREAM = "events {}\nstream {\n    server {\n        listen 127.0.0.1:9999;\n        return x;\n    }\n}\n"


# Found trying nginx's IMAP proxy example as a new user: Debian builds mail as a loadable
# module too (`--with-mail=dynamic`), and lint was silent where nginx -t stops.
MAIL = (
    "events {}\nmail {\n    auth_http 127.0.0.1:9000/auth;\n    server {\n"
    "        listen 127.0.0.1:9143;\n        protocol imap;\n    }\n}\n"
)


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
@pytest.mark.parametrize(("block", "text"), [("stream", STREAM), ("mail", MAIL)])
def test_a_loadable_module_needs_loading(
    name: str,
    block: str,
    text: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    assert build.root is not None
    assert nginx_t(build, text, tree) == f'unknown directive "{block}"'
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007")
    assert found.returncode == 1, found.stderr
    assert f'nginx.conf:2: NGX007 error unknown directive "{block}"' in found.stdout
    assert f"load_module /usr/lib/nginx/modules/ngx_{block}_module.so;" in found.stdout
    # the module file as the package installs it (here: inside the build's unpacked root)
    module = build.root / f"usr/lib/nginx/modules/ngx_{block}_module.so"
    loaded = f"load_module {module};\n{text}"
    assert nginx_t(build, loaded, tree) == ""
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007")
    assert found.returncode == 0, found.stdout


# Trial 24 (an MQTT stream file left inside http{}): nested, the unloaded module's block is as
# unknown to nginx -t; with the module loaded, it is "not allowed here" instead.
NESTED = "events {}\nhttp {\n    stream {\n        server { listen 127.0.0.1:9997; }\n    }\n}\n"


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_a_loadable_modules_block_nested_is_unknown_until_loaded(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    assert build.root is not None
    assert nginx_t(build, NESTED, tree) == 'unknown directive "stream"'
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007,NGX008")
    assert 'nginx.conf:3: NGX007 error unknown directive "stream"' in found.stdout, found.stdout
    assert "NGX008" not in found.stdout, found.stdout
    module = build.root / "usr/lib/nginx/modules/ngx_stream_module.so"
    loaded = f"load_module {module};\n{NESTED}"
    assert nginx_t(build, loaded, tree) == '"stream" directive is not allowed here'
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007,NGX008")
    assert 'nginx.conf:4: NGX008 error "stream" directive is not allowed here' in found.stdout
    assert "NGX007" not in found.stdout, found.stdout


# Found trying public configs as a new user: brotli_static (google/ngx_brotli) was an info
# "unless this nginx has that module" although --nginx-bin named a binary whose nginx -V shows
# no module beyond nginx's own, and nginx -t stops there.
BROTLI = "events {}\nhttp {\n    server {\n        listen 127.0.0.1:9998;\n        brotli_static on;\n    }\n}\n"


@pytest.mark.parametrize("name", ["bookworm", "trixie", "awslc", "boringssl", "openssl40"])
def test_a_third_party_directive_on_a_binary_without_it(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    assert nginx_t(build, BROTLI, tree) == 'unknown directive "brotli_static"'
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007")
    assert found.returncode == 1, found.stderr
    assert 'nginx.conf:5: NGX007 error unknown directive "brotli_static"' in found.stdout
    # a load_module line of a file that is not nginx's own may bring the module: then unsure
    (tree / "nginx.conf").write_text(
        f"load_module modules/ngx_http_brotli_static_module.so;\n{BROTLI}"
    )
    found = lint_as(nginx_bin, tree / "nginx.conf", "NGX007")
    assert found.returncode == 0, found.stdout
    assert 'NGX007 info "brotli_static" is a directive of the third-party module' in found.stdout
