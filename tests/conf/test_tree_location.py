"""Where a tree lives (issue 35, nginxgen/conf/tree.py): a copy's absolute includes are read from
the copy, and said so; `--map` and `nginx -V`'s --conf-path say it instead; a write outside the
folder given is refused whole; a file --root does not include is an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from nginxgen.conf.load import load_path
from nginxgen.conf.tree import TreeMapping, infer_map
from nginxgen.knowledge.target import parse_nginx_v
from tests.builds import Build
from tests.conftest import require_build
from tests.live import nginx_bin_script
from tests.pki import CertificateFactory

DEBIAN_MAIN = """user www-data;
events {}
http {
    include /etc/nginx/mime.types;
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
    include /etc/nginx/conf.d/*.conf;
    include /etc/nginx/sites-enabled/*;
}
"""


def nginxgen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", *args],
        capture_output=True, text=True, check=False, cwd=cwd,
    )  # fmt: skip


def debian_copy(folder: Path) -> Path:
    """A Debian-shaped tree (absolute includes as shipped) at `folder`."""
    for sub in ("conf.d", "sites-available", "sites-enabled"):
        (folder / sub).mkdir(parents=True)
    (folder / "mime.types").write_text("types { text/html html; }\n")
    (folder / "sites-available" / "default").write_text(
        "server {\n    listen 80 default_server;\n    root /var/www/html;\n}\n"
    )
    (folder / "sites-enabled" / "default").symlink_to("../sites-available/default")
    main = folder / "nginx.conf"
    main.write_text(DEBIAN_MAIN)
    return main


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): (f"-> {p.readlink()}" if p.is_symlink() else p.read_text())
        for p in sorted(folder.rglob("*"))
        if p.is_symlink() or p.is_file()
    }


def test_a_copy_reads_its_own_files(tmp_path: Path) -> None:
    main = debian_copy(tmp_path / "copy" / "nginx")
    loaded = load_path(str(main))
    here = str(main.parent)
    assert loaded.inferred == [("/etc/nginx", here)]
    assert f"{here}/mime.types" in loaded.files
    assert f"{here}/sites-enabled/default" in loaded.files
    assert not any(f.startswith("/etc/nginx") for f in loaded.files)
    # a given map is the whole answer: nothing is inferred beside it
    given = load_path(str(main), path_map=[("/etc/nginx", "/etc/nginx")], infer=False)
    assert given.inferred == [] and f"{here}/mime.types" not in given.files


def test_nothing_is_inferred_for_a_tree_in_place_or_a_folder_it_lacks(tmp_path: Path) -> None:
    here = tmp_path / "etc" / "nginx"
    (here / "conf.d").mkdir(parents=True)
    main = str(here / "nginx.conf")
    assert infer_map(main, [f"{here}/conf.d/*.conf"]) == []  # the includes name this folder
    # RHEL's modules live in /usr/share/nginx, which a copy of /etc/nginx does not hold
    assert infer_map(main, ["/usr/share/nginx/modules/*.conf", "/etc/nginx/conf.d/*.conf"]) == [
        ("/etc/nginx", str(here))
    ]
    # a glob's folder is never taken for the tree: conf.d/*.conf does not make conf.d the root
    assert infer_map(main, ["/srv/x/*.conf"]) == []


def test_the_binary_names_the_folder_the_copy_stands_for(tmp_path: Path) -> None:
    output = (
        "nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.1 1 Jul 2025\n"
        "configure arguments: --prefix=/usr/share/nginx --conf-path=/etc/nginx/nginx.conf "
        "--with-http_ssl_module\n"
    )
    assert parse_nginx_v(output).conf_path == "/etc/nginx/nginx.conf"
    bare = "nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.1\nconfigure arguments: --prefix=/opt/ngx\n"
    assert parse_nginx_v(bare).conf_path == "/opt/ngx/conf/nginx.conf"
    # the prefix relative load_module paths are read from (NGX021)
    assert parse_nginx_v(output).prefix == "/usr/share/nginx"
    nothing = "nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.1\nconfigure arguments:\n"
    assert parse_nginx_v(nothing).prefix == "/usr/local/nginx/"
    main = str(tmp_path / "nginx.conf")
    mapping = TreeMapping(conf_path="/etc/nginx/nginx.conf")
    assert mapping.for_main(main) == ([("/etc/nginx", str(tmp_path))], True)
    assert TreeMapping([("/etc/nginx", "/x")], "/etc/nginx/nginx.conf").for_main(main) == (
        [("/etc/nginx", "/x")],
        False,
    )


def test_generate_into_a_copy_writes_into_the_copy(tmp_path: Path) -> None:
    main = debian_copy(tmp_path / "nginx")
    chain = CertificateFactory(tmp_path / "ca").leaf("new.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--domain", "new.test",
        "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(main.parent),
        "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"reading /etc/nginx from {main.parent}" in done.stderr
    assert (main.parent / "sites-available" / "new.test.ssl.conf").is_file()
    assert (main.parent / "sites-enabled" / "new.test.ssl.conf").is_symlink()
    # the report names the line the include was written at
    text = main.read_text().splitlines()
    [step] = [
        line for line in done.stdout.splitlines() if "include nginxgen-tls.conf; added" in line
    ]
    number = int(step.split(":")[1])
    assert text[number - 1].strip() == "include nginxgen-tls.conf;", (step, text)


def test_a_write_outside_the_folder_is_refused_whole(tmp_path: Path) -> None:
    main = debian_copy(tmp_path / "nginx")
    before = snapshot(tmp_path)
    chain = CertificateFactory(tmp_path.parent / f"{tmp_path.name}-ca").leaf("new.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--domain", "new.test",
        "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(main.parent),
        "--map", f"/etc/nginx={tmp_path / 'elsewhere'}", "--nginx-version", "1.26.3",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    assert f"outside {main.parent}, the folder given; nothing written" in errors[0]
    assert f"--map /etc/nginx={main.parent} would place it inside, if" in errors[0]
    assert snapshot(tmp_path) == before


def test_a_fix_outside_the_main_files_folder_is_refused(tmp_path: Path) -> None:
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "tls.conf").write_text("ssl_protocols TLSv1 TLSv1.2;\n")
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "nginx.conf").write_text(
        f"events {{}}\nhttp {{\n    include {snippets}/tls.conf;\n    server {{ listen 443 ssl; }}\n}}\n"
    )
    before = snapshot(tmp_path)
    for mode in ("--unsafe-fixes", "--diff"):
        done = nginxgen(
            "lint", str(folder / "nginx.conf"), "--unsafe-fixes", mode,
            "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5",
        )  # fmt: skip
        assert done.returncode == 2, (mode, done.stdout, done.stderr)
        assert (
            f"{snippets}/tls.conf: outside {folder}, the main file's folder; nothing written"
            in (done.stderr)
        )
        assert snapshot(tmp_path) == before
        # the read outside was named too
        assert f"read 1 file outside {folder}: {snippets}/tls.conf" in done.stderr


def test_a_file_the_root_does_not_include_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "nginx.conf").write_text("events {}\nhttp { include site.conf; }\n")
    (tmp_path / "site.conf").write_text("server { listen 80; }\n")
    (tmp_path / "orphan.conf").write_text("ssl_protocols SSLv3 TLSv1.2;\nssl_ciphers RC4-SHA;\n")
    done = nginxgen("lint", "--root", "nginx.conf", "orphan.conf", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "nginxgen: error: orphan.conf: not included by nginx.conf (the --root), so nginx never "
        "reads it; lint it without --root, or give the root that includes it"
    ]
    assert done.stdout == ""
    ok = nginxgen("lint", "--root", "nginx.conf", "site.conf", cwd=tmp_path)
    assert ok.returncode in (0, 1), ok.stderr


def test_a_main_file_that_includes_another_tree_is_not_taken_for_its_copy(tmp_path: Path) -> None:
    """linuxserver's images (swag): /etc/nginx/nginx.conf is one line, `include
    /config/nginx/nginx.conf;`, and the tree lives in /config/nginx. Both folders hold an
    nginx.conf, which made the main file's folder look like a copy of /config/nginx: the include
    was read as the main file itself (a false include cycle, NGX003) and `--into` found no
    http{} block. nginx reads the path as written; so does the lint now."""
    real = tmp_path / "config" / "nginx"
    (real / "site-confs").mkdir(parents=True)
    (real / "nginx.conf").write_text(
        f"events {{}}\nhttp {{\n    include {real}/site-confs/*.conf;\n}}\n"
    )
    (real / "site-confs" / "default.conf").write_text("server { listen 8080; }\n")
    main = tmp_path / "etc" / "nginx" / "nginx.conf"
    main.parent.mkdir(parents=True)
    main.write_text(f"include {real}/nginx.conf;\n")
    assert infer_map(str(main), [f"{real}/nginx.conf"]) == []
    loaded = load_path(str(main))
    assert f"{real}/site-confs/default.conf" in loaded.files
    done = nginxgen("lint", "--nginx-version", "1.26.3", "--select", "NGX003", str(main))
    assert "NGX003" not in done.stdout and "copy of it" not in done.stderr, (
        done.stdout + done.stderr
    )


def test_the_binarys_folder_read_from_a_copy_is_said(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A new user's surprise: with a binary as the target (--nginx-bin, or the machine's nginx
    by default) a copy's includes of the binary's folder were read from the copy without a word
    (conf_path_map), where an inferred map is said. One line on stderr says it now, as for the
    inferred map; stdout, JSON or SARIF, is the report alone, as with the map given."""
    build = require_build(provisioned, "trixie")
    nginx_bin = nginx_bin_script(build, None, tmp_path / "nginx-bin")
    conf_path = parse_nginx_v(build.nginx("-V").stderr).conf_path
    assert conf_path == "/etc/nginx/nginx.conf"  # Debian's: the folder DEBIAN_MAIN names
    main = debian_copy(tmp_path / "nginx")
    for form in ("json", "sarif"):
        done = nginxgen("lint", "--nginx-bin", str(nginx_bin), "--format", form, str(main))
        said = [line for line in done.stderr.splitlines() if "reading /etc/nginx" in line]
        assert said == [
            f"nginxgen: reading /etc/nginx from {main.parent}: the nginx binary reads "
            f"{conf_path} (its --conf-path), and the tree given is taken for a copy of "
            "/etc/nginx (--map /etc/nginx=/etc/nginx reads the host's files instead)"
        ], done.stderr
        given = f"/etc/nginx={main.parent}"
        mapped = nginxgen("lint", "--nginx-bin", str(nginx_bin), "--format", form, "--map", given,
                          str(main))  # fmt: skip
        assert done.stdout == mapped.stdout and "reading" not in mapped.stderr
        report = json.loads(done.stdout)  # nothing but the report
        if form == "json":  # the copy's site was read for /etc/nginx/sites-enabled/*
            assert str(main.parent / "sites-enabled" / "default") in report["files"], report
    # a tree that names nothing in the binary's folder: nothing to say
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "nginx.conf").write_text("events {}\nhttp {}\n")
    done = nginxgen("lint", "--nginx-bin", str(nginx_bin), str(tmp_path / "plain" / "nginx.conf"))
    assert "reading" not in done.stderr, done.stderr


def test_every_command_says_the_binarys_folder_was_read_from_a_copy(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The note lint gives (above) came from lint's own code: probe --config and generate
    --into read the copy for the binary's folder as lint does (TreeMapping.for_main) and said
    nothing of it. Every command now says it from one place (conf.load.where_read)."""
    build = require_build(provisioned, "trixie")
    nginx_bin = nginx_bin_script(build, None, tmp_path / "nginx-bin")
    main = debian_copy(tmp_path / "nginx")
    said = f"nginxgen: reading /etc/nginx from {main.parent}: the nginx binary reads"
    # nothing listens on the port: the probe fails after it read the config (exit 2 or 3), and
    # says where it read it first
    probe = nginxgen("probe", "127.0.0.1:9", "--nginx-bin", str(nginx_bin), "--config",
                     str(main), "--timeout", "1")  # fmt: skip
    assert any(line.startswith(said) for line in probe.stderr.splitlines()), probe.stderr
    chain = CertificateFactory(tmp_path / "ca").leaf("new.test")
    into = nginxgen(
        "generate", "--preset", "intermediate", "--domain", "new.test",
        "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(main.parent),
        "--nginx-bin", str(nginx_bin), "--diff",
    )  # fmt: skip
    assert into.returncode == 1, into.stderr  # --diff: 1, something would change
    assert any(line.startswith(said) for line in into.stderr.splitlines()), into.stderr
    # with the map given, the user said it: nothing to add
    given = nginxgen("generate", "--preset", "intermediate", "--domain", "new.test",
                     "--cert", str(chain.fullchain), "--key", str(chain.key), "--into",
                     str(main.parent), "--nginx-bin", str(nginx_bin), "--diff",
                     "--map", f"/etc/nginx={main.parent}")  # fmt: skip
    assert given.returncode == 1 and "reading /etc/nginx" not in given.stderr, given.stderr
