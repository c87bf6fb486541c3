"""The main level against real `nginx -t` (trial 8, certbot's test configs: a second `user` in
an include, two http{} blocks, no events{}; lint said nothing). Each case is a tree; nginx's
first [emerg] and lint's one error (NGX006, NGX019) name the same thing at the same line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.base.records import replace
from nginxgen.conf.load import load_path
from tests.builds import Build
from tests.conftest import binary_and_tree, require_build
from tests.every_rule import lint_checked
from tests.fuzzing.generate_check import build_target
from tests.live import first_emerg, lint_as, live_target, nginx_check

HTTP = "http { HEAD\n    server { listen 127.0.0.1:8080; return 204; }\n}\n"
CASES: dict[str, dict[str, str]] = {  # name: files (nginx.conf first)
    "user in an include": {
        "nginx.conf": "user root;\nevents {}\ninclude more.conf;\n" + HTTP,
        "more.conf": "user root;\n",
    },
    "http twice": {"nginx.conf": "events {}\n" + HTTP + HTTP},
    "http twice, one from an include": {
        "nginx.conf": "events {}\ninclude more.conf;\n" + HTTP,
        "more.conf": HTTP,
    },
    "events twice": {"nginx.conf": "events {}\nevents {}\n" + HTTP},
    "worker_processes twice": {
        "nginx.conf": "worker_processes 1;\nworker_processes 2;\nevents {}\n" + HTTP
    },
    "worker_connections twice": {
        "nginx.conf": "events { worker_connections 64; worker_connections 64; }\n" + HTTP
    },
    "no events": {"nginx.conf": "worker_processes 1;\n" + HTTP},
    "no events, an include has it": {
        "nginx.conf": "worker_processes 1;\ninclude ev.conf;\n" + HTTP,
        "ev.conf": "events {}\n",
    },
    "error_log twice (allowed)": {
        "nginx.conf": "error_log stderr;\nerror_log stderr;\nevents {}\n" + HTTP
    },
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_the_main_level_as_nginx_reads_it(
    name: str, case: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    head = " ".join(build.in_prefix)
    for file, text in CASES[case].items():
        (tree / file).write_text(text.replace("HEAD", head))
    conf = tree / "nginx.conf"
    checked = nginx_check(build, conf)
    emerg = first_emerg(checked.stderr)
    found = lint_as(nginx_bin, conf, "NGX006,NGX019")
    errors = re.findall(r"^(\S+?):(\d+): NGX0(?:06|19) error (.*)$", found.stdout, re.M)
    if emerg is None:
        assert "test is successful" in checked.stderr, checked.stderr
        assert errors == [], found.stdout
        return
    message, line = emerg
    assert len(errors) == 1, (checked.stderr, found.stdout)
    file, at, said = errors[0]
    assert said.startswith(message.split(" in /")[0].removesuffix(" in configuration")), (
        message,
        said,
    )
    if line is not None:  # nginx names the line of the second one
        where = re.search(r" in (\S+):\d+$", checked.stderr.splitlines()[0] + "")
        assert int(at) == line, (checked.stderr, found.stdout)
        assert where is None or Path(where.group(1)).name == Path(file).name


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
@pytest.mark.parametrize("how", ["twice", "twice, one from an include", "missing", "once"])
def test_load_module_as_nginx_does_it(
    name: str, how: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """NGX021 (trial 9: a load_module nginx cannot do drew nothing): the stream module loaded a
    second time, or a module file that is not there, in the tree this machine's nginx reads
    (the target's --conf-path folder, its prefix the test's); nginx -t's [emerg] and lint's
    error say the same thing at the same line. Debian's modules are dynamic (libnginx-mod-*)."""
    build = require_build(provisioned, name)
    tree = tmp_path / "tree"
    tree.mkdir()
    module = f"{build.root}/usr/lib/nginx/modules/ngx_stream_module.so"
    line = f"load_module {module};\n"
    files = {
        "twice": {"nginx.conf": line + line},
        "twice, one from an include": {"nginx.conf": "include mods/*.conf;\n" + line},
        "missing": {"nginx.conf": "load_module modules/ngx_nothing_module.so;\n"},
        "once": {"nginx.conf": "include mods/*.conf;\n"},
    }[how]
    (tree / "mods").mkdir()
    (tree / "mods" / "50-mod-stream.conf").write_text(line)
    head = " ".join(build.in_prefix)
    conf = tree / "nginx.conf"
    conf.write_text(files["nginx.conf"] + "events {}\n" + HTTP.replace("HEAD", head))
    checked = nginx_check(build, conf)
    target = replace(live_target(build, conf), prefix=f"{tree}/")
    found = [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX021"]
    emerg = first_emerg(checked.stderr)
    if emerg is None:
        assert "test is successful" in checked.stderr, checked.stderr
        assert found == [], found
        return
    message, at = emerg
    (finding,) = found
    assert finding.line == at and finding.file == str(conf), (checked.stderr, finding)
    said = message.split(" failed")[0] if "dlopen" in message else message.split(" in /")[0]
    said = said.replace('dlopen() "', "").rstrip('"') if "dlopen" in said else said
    assert said in finding.message, (message, finding.message)


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
@pytest.mark.parametrize("where", ["beside", "missing"])
def test_a_main_file_includes_from_its_folder_whatever_the_prefix(
    name: str, where: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Trial 12 (Internet.nl): `nginx -p PREFIX -c PREFIX/conf/nginx.conf` reads a relative
    include from conf/, the main file's folder (its conf prefix), not from PREFIX; `lint
    --prefix PREFIX` looked in PREFIX and drew 13 NGX002 errors on a tree nginx -t passes. The
    include beside the main file: both pass; not there: both stop at its line."""
    build = require_build(provisioned, name)
    prefix = tmp_path / "prefix"
    (prefix / "conf").mkdir(parents=True)
    conf = prefix / "conf" / "nginx.conf"
    head = " ".join(build.in_prefix)
    conf.write_text(f"events {{}}\nhttp {{\n    {head}\n    include extra.conf;\n}}\n")
    if where == "beside":
        (prefix / "conf" / "extra.conf").write_text(
            "server { listen 127.0.0.1:8080; return 204; }\n"
        )
    else:  # a file of that name in the prefix itself, which nginx does not read
        (prefix / "extra.conf").write_text("server { listen 127.0.0.1:8080; return 204; }\n")
    (prefix / "temp").mkdir()
    argv = [*build.nginx_argv, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "e.log")]
    checked = subprocess.run(
        [*argv, "-t", "-g", f"pid {prefix}/nginx.pid;"],
        capture_output=True, text=True, timeout=60, check=False, env=build.env(),
    )  # fmt: skip
    found = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--select", "NGX002", "--nginx-version",
         build.nginx_version, "--tls-library", build.tls_library, "--prefix", str(prefix),
         str(conf)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    errors = re.findall(r"^\S+:(\d+): NGX002 error", found.stdout, re.M)
    emerg = first_emerg(checked.stderr)
    if where == "beside":
        assert emerg is None and "test is successful" in checked.stderr, checked.stderr
        assert errors == [], found.stdout
    else:
        assert emerg is not None and emerg[1] == 4, checked.stderr
        assert errors == ["4"], found.stdout


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("openssl36", 'module "ngx_stream_module" is already loaded'),  # --with-stream
        ("openssl40", 'module "ngx_stream_module" is already loaded'),
        ("wheel", "(Dynamic loading not supported)"),  # --with-ld-opt='-static ...'
        ("trixie", None),  # stream built as a module: the load is what it needs
    ],
)
def test_load_module_of_a_module_the_binary_has(
    name: str,
    said: str | None,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    """Debian's modules-enabled/50-mod-stream.conf on a binary with stream built in, or one that
    cannot load modules at all (trial 21, Jitsi's Debian layout): nginx -t stops at the line, and
    lint said nothing (exit 0)."""
    build = require_build(provisioned, name)
    trixie = require_build(provisioned, "trixie")
    conf = tmp_path / "nginx.conf"
    module = f"{trixie.root}/usr/lib/nginx/modules/ngx_stream_module.so"
    head = " ".join(build.in_prefix)
    conf.write_text(f"load_module {module};\nevents {{}}\n" + HTTP.replace("HEAD", head))
    emerg = first_emerg(nginx_check(build, conf).stderr)
    target = build_target(build)  # nginx -V says what the binary has
    found = [f for f in lint_checked(load_path(str(conf)), target) if f.code == "NGX021"]
    if said is None:
        assert emerg is None and found == [], (emerg, found)
        return
    assert emerg is not None and said in emerg[0] and emerg[1] == 1, emerg
    assert [(f.line, said in f.message) for f in found] == [(1, True)], found


@pytest.mark.parametrize("name", ["openssl36", "openssl40"])
def test_load_module_of_a_built_in_module_whose_file_is_not_there(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """nginx opens the file before it sees the module is built in: a file that is not there
    fails with dlopen() (trial 24: lint said only "already loaded"). The tree is not the
    binary's own, so lint cannot know the file is missing on the server: it says both."""
    build = require_build(provisioned, name)
    conf = tmp_path / "nginx.conf"
    module = tmp_path / "modules" / "ngx_stream_module.so"
    head = " ".join(build.in_prefix)
    conf.write_text(f"load_module {module};\nevents {{}}\n" + HTTP.replace("HEAD", head))
    emerg = first_emerg(nginx_check(build, conf).stderr)
    assert emerg is not None and f'dlopen() "{module}" failed' in emerg[0], emerg
    found = [
        f for f in lint_checked(load_path(str(conf)), build_target(build)) if f.code == "NGX021"
    ]
    assert [f.message for f in found] == [
        f'module "ngx_stream_module" is already loaded (or, where {module} is not there, '
        "dlopen() fails first): this nginx has it built in (nginx -V: --with-stream): nginx -t fails"
    ], found
