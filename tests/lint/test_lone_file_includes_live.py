"""A vhost linted alone (`nginxgen lint sites-enabled/site.conf`, as pre-commit passes it) whose
relative includes name files beside nginx.conf (issue 44: 9 false NGX002 errors): nginx reads a
relative include from its conf prefix, the main file's folder, so the tree real nginx -t passes
gives no error; a lone file whose includes cannot be found anywhere is a warning, not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.shell.cli import main
from tests.builds import Build
from tests.conftest import require_build
from tests.live import nginx_check, prepare_prefix
from tests.pki import CertificateFactory

MAIN = """worker_processes auto;
events {}
http {
    include mime.types;
    include sites-enabled/*;
}
"""
SITE = """server {{
    listen 127.0.0.1:8443 ssl;
    server_name a.test;
    include snippets/ssl.conf;
    ssl_certificate {cert};
    ssl_certificate_key {key};
}}
"""
HTTP_LEVEL = "include mime.types;\nserver_tokens off;\n"


def _debian_tree(folder: Path) -> Path:
    chain = CertificateFactory(folder / "certs").leaf("a.test")
    (folder / "nginx.conf").write_text(MAIN)
    (folder / "mime.types").write_text("types {\n    text/html html;\n}\n")
    (folder / "snippets").mkdir()
    (folder / "snippets" / "ssl.conf").write_text("ssl_protocols TLSv1.2 TLSv1.3;\n")
    (folder / "sites-enabled").mkdir()
    site = folder / "sites-enabled" / "site.conf"
    site.write_text(SITE.format(cert=chain.fullchain, key=chain.key))
    (folder / "conf.d").mkdir()
    (folder / "conf.d" / "http.conf").write_text(HTTP_LEVEL)
    return site


def test_a_lone_vhost_reads_includes_from_the_tree_root(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    build = require_build(provisioned, "bookworm")
    site = _debian_tree(tmp_path)
    prepare_prefix(tmp_path / "nginx.conf", build)
    checked = nginx_check(build, tmp_path / "nginx.conf")
    assert checked.returncode == 0, checked.stderr
    for lone in (site, tmp_path / "conf.d" / "http.conf"):
        main(["lint", "--select", "NGX002", *build.target_flags, str(lone)])
        out = capsys.readouterr().out
        assert "NGX002" not in out, out


def test_a_lone_fragment_whose_include_is_nowhere_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site.conf"
    site.write_text(SITE.format(cert="/x/a.crt", key="/x/a.key"))
    main(["lint", "--select", "NGX002", "--nginx-version", "1.26.3", str(site)])
    out = capsys.readouterr().out.splitlines()
    found = [line for line in out if " NGX002 " in line]
    assert len(found) == 1 and found[0].startswith(f"{site}:4: NGX002 warning included file")
    assert "linted alone" in found[0]
    # a main file keeps the error: nginx reads its relative includes from its own folder
    main_file = tmp_path / "nginx.conf"
    main_file.write_text("events {}\nhttp {\n    include missing.conf;\n}\n")
    main(["lint", "--select", "NGX002", "--nginx-version", "1.26.3", str(main_file)])
    assert f"{main_file}:3: NGX002 error" in capsys.readouterr().out
