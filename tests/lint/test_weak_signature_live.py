"""NGX728 against nginx -t on the seven builds (trial 13, remiq/nginx-ssl-client: a leaf its
root signed with SHA-1). OpenSSL 3.0, 3.3 and 3.6 refuse to load it at their default security
level (`ca md too weak`); 3.5.9, 4.0.3, BoringSSL and AWS-LC load it. Where nginx -t stops,
NGX728 is an error on the ssl_certificate line; where it passes, NGX728 is a warning only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import first_emerg, nginx_check


def _sha1_leaf(folder: Path) -> tuple[Path, Path]:
    """A leaf its root signed with SHA-1, as the openssl command line signs it."""
    root_key, root, key, request, leaf = (
        folder / n for n in ("root.key", "root.crt", "leaf.key", "leaf.csr", "leaf.crt")
    )
    for argv in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=root", "-days", "30",
         "-keyout", str(root_key), "-out", str(root)],
        ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=sha1.example",
         "-keyout", str(key), "-out", str(request)],
        ["x509", "-req", "-in", str(request), "-CA", str(root), "-CAkey", str(root_key),
         "-sha1", "-days", "30", "-set_serial", "7", "-out", str(leaf)],
    ):  # fmt: skip
        subprocess.run(["openssl", *argv], check=True, capture_output=True)
    return leaf, key


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_a_sha1_signed_leaf_as_the_library_loads_it(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    leaf, key = _sha1_leaf(tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        "server { listen 127.0.0.1:18443 ssl;\n"
        f"ssl_certificate {leaf};\nssl_certificate_key {key};\n}}\n}}\n"
    )
    checked = nginx_check(build, conf)
    linted = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--select", "NGX728", "--format", "json",
         "--nginx-bin", str(nginx_bin), str(conf)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    (finding,) = json.loads(linted.stdout)["findings"]
    assert finding["line"] == 4, finding
    emerg = first_emerg(checked.stderr)
    if emerg is None:
        assert "test is successful" in checked.stderr, checked.stderr
        assert finding["severity"] == "warning", finding
    else:
        assert "ca md too weak" in emerg[0], checked.stderr
        assert finding["severity"] == "error", finding
