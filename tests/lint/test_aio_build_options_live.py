"""`aio on` and `aio threads` on builds configured without --with-file-aio or --with-threads
(issue 44): nginx -t stops with `"aio on" is unsupported on this platform`; lint, its target read
from that binary's `nginx -V`, says the same, and nothing where the build has the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.directive_probe import nginx_t
from tests.live import lint_as

AIO = "events {{}}\nhttp {{\n    aio {value};\n}}\n"


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_aio_where_the_build_lacks_it(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    for value in ("on", "threads", "threads=default"):
        said = nginx_t(build, AIO.format(value=value), tree)
        found = lint_as(nginx_bin, tree / "nginx.conf", "NGX010")
        if said:
            assert said.endswith("is unsupported on this platform"), said
            assert f"nginx.conf:3: NGX010 error {said}" in found.stdout, (value, found.stdout)
        else:
            assert found.returncode == 0, (value, found.stdout)
