"""`nginxgen generate --into DIR` on stock trees (issue 14): the result passes real `nginx -t`,
lint finds nothing the new part could have avoided, a second identical run changes nothing, a
run for another domain adds only that site, `--diff` shows exactly what applying writes, a
failing `nginx -t` puts everything back, and bad input stops with one line and writes nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conftest import require_build
from tests.live import free_port, nginx_bin_script
from tests.patching import TOOLS, apply_to_copies, copies, require_tools, state
from tests.pki import CertificateFactory
from tests.stock_trees import TREES, stock_tree

CASES = [
    (tree, build)
    for tree, (ships_with, _) in TREES.items()
    for build in ([ships_with] if ships_with else ALL_BUILD_NAMES)
]


def nginxgen(
    *args: str, cwd: Path | None = None, machine: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The command; `machine`: the nginx this machine has ($NGINXGEN_NGINX), else none."""
    env = dict(os.environ, NGINXGEN_NGINX=str(machine)) if machine is not None else None
    return run_nginxgen(*args, cwd=cwd, env=env)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file's text and every symlink's target."""
    out = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_file() and not _runtime(path.relative_to(folder)):
            out[key] = path.read_text(errors="surrogateescape")
    return out


def _runtime(path: Path) -> bool:
    """What nginx itself leaves in the test prefix: logs and the pid file."""
    return path.parts[0] == "log" or path.name == "error.log" or path.suffix == ".pid"


def nginx_t(build: Build, main: Path) -> str:
    done = build.nginx(
        "-p", f"{main.parent}/", "-c", str(main), "-e", str(main.parent / "log/error.log"), "-t"
    )
    return "" if done.returncode == 0 else done.stderr


class Tree:
    def __init__(self, name: str, build: Build, tmp: Path) -> None:
        self.build = build
        self.main = stock_tree(name, build, tmp / "nginx")
        self.dir = self.main.parent
        self.certs = CertificateFactory(tmp / "certs")

    def generate(
        self, domain: str, *extra: str, preset: str = "intermediate", cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        chain = self.certs.leaf(domain, sans=(f"www.{domain}",))
        return nginxgen(
            "generate", "--preset", preset, *self.build.target_flags,
            "--domain", domain, "--domain", f"www.{domain}",
            "--cert", str(chain.fullchain), "--key", str(chain.key),
            "--into", str(self.dir), *extra, cwd=cwd,
        )  # fmt: skip


@pytest.mark.parametrize(("tree", "build_name"), CASES, ids=[f"{t}-{b}" for t, b in CASES])
def test_into_stock_tree_passes_nginx_t_and_lint(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    tree: str,
    build_name: str,
) -> None:
    build = require_build(provisioned, build_name)
    for preset in ["intermediate", *(["pq"] if build.name == "trixie" else [])]:
        stock = Tree(tree, build, tmp_path / preset)
        assert nginx_t(build, stock.main) == ""  # the copy runs as shipped
        for domain in ("one.test", "two.test"):
            before = snapshot(stock.dir)
            done = stock.generate(domain, preset=preset)
            assert done.returncode == 0, done.stderr
            assert "in what nginxgen wrote" not in done.stderr, done.stderr
            assert nginx_t(build, stock.main) == "", (preset, done.stdout)
            changed = {k for k in snapshot(stock.dir) if snapshot(stock.dir)[k] != before.get(k)}
            if domain == "two.test":  # another domain adds only its own site
                assert changed and all("two.test" in k for k in changed), changed
            after = snapshot(stock.dir)
            again = stock.generate(domain, preset=preset)  # the same run again: nothing changes
            assert again.returncode == 0 and "nothing to change" in again.stderr, again.stdout
            assert snapshot(stock.dir) == after


def applied(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp: Path, tree: str, build: str
) -> Tree:
    """The stock tree with a.test added by `generate --into`."""
    stock = Tree(tree, require_build(provisioned, build), tmp)
    done = stock.generate("a.test")
    assert done.returncode == 0, done.stderr
    return stock


def test_debian12_protocols_changed_in_place_not_merged(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    # Debian 12's http{} sets ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3: a second line would be
    # merged with it (TLS 1.0/1.1 stay on), so the line itself changes.
    stock = applied(provisioned, tmp_path, "debian-12", "bookworm")
    main = stock.main.read_text()
    assert "\tssl_protocols TLSv1.2 TLSv1.3; # Dropping SSLv3, ref: POODLE\n" in main, main
    assert main.count("ssl_protocols") == 1
    everything = "".join(snapshot(stock.dir).values())
    assert everything.count("ssl_prefer_server_ciphers ") == 1  # changed in place, not added
    assert (stock.dir / "sites-enabled" / "a.test.ssl.conf").is_symlink()


def test_tls_log_goes_beside_the_trees_own_log(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    stock = Tree("debian-12", require_build(provisioned, "bookworm"), tmp_path)
    before = stock.main.read_text()
    own = re.findall(r"^\s*access_log (\S+);", before, re.M)[0]
    assert stock.generate("a.test").returncode == 0
    assert stock.main.read_text().count("access_log") == before.count("access_log")
    ours = (stock.dir / "nginxgen-tls.conf").read_text()
    folder = os.path.dirname(own)
    assert f"access_log {folder}/nginxgen-tls.log nginxgen_tls;" in ours, ours
    assert "log_format nginxgen_tls escape=json" in ours


@pytest.mark.parametrize(
    "target", ["/dev/stdout", "/dev/stderr", "/proc/self/fd/1", "syslog:server=127.0.0.1:5514"]
)
def test_tls_log_goes_where_a_stream_log_goes(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, target: str
) -> None:
    """A tree whose log is a stream (a container's `access_log /dev/stdout;`, syslog) has no
    log folder: ours goes to the same target in its own format, the tree's line stays as it
    is, and no file is named in /dev or /proc (issue 44, trial 5: `access_log
    /dev/nginxgen-tls.log`, which nginx -t then created in the machine's /dev)."""
    build = require_build(provisioned, "trixie")
    for folder in ("log", "temp"):
        (tmp_path / folder).mkdir()
    main = tmp_path / "nginx.conf"
    temp = "".join(f"    {line}\n" for line in build.temp_path_directives)
    own = f"    access_log {target};\n"
    main.write_text(f"pid nginx.pid;\nevents {{}}\nhttp {{\n{temp}{own}}}\n")
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    argv = ["generate", "--preset", "intermediate", *build.target_flags, "--domain", "a.test"]
    argv += ["--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(tmp_path)]
    done = nginxgen(*argv)
    assert done.returncode == 0, done.stderr
    assert own in main.read_text()
    ours = (tmp_path / "nginxgen-tls.conf").read_text()
    assert re.findall(r"^access_log .*;$", ours, re.M) == [f"access_log {target} nginxgen_tls;"]
    assert nginx_t(build, main) == ""
    after = snapshot(tmp_path)
    again = nginxgen(*argv)
    assert again.returncode == 0 and "nothing to change" in again.stderr, again.stderr
    assert snapshot(tmp_path) == after


def test_nginx_org_default_site_keeps_port_80(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    # conf.d/a.test.ssl.conf sorts before conf.d/default.conf: the stock server, default of
    # port 80 only by order, is made explicit instead of losing it to the new redirect.
    stock = applied(provisioned, tmp_path, "nginx-org", "trixie")
    assert "listen       80 default_server;" in (stock.dir / "conf.d" / "default.conf").read_text()
    site = (stock.dir / "conf.d" / "a.test.ssl.conf").read_text()
    assert "    listen 80;\n" in site and "return 308" in site


def test_diff_is_what_applying_writes(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    # Debian's tree: new files, new folders' files, new symlinks in sites-enabled/, an edited
    # nginx.conf; `patch -p0` and `git apply -p0` each leave what the run without --diff writes
    require_tools()
    stock = Tree("debian-13", require_build(provisioned, "trixie"), tmp_path)
    before = snapshot(stock.dir)
    shown = stock.generate("a.test", "--diff", cwd=stock.dir)
    assert shown.returncode == 1, shown.stderr  # it shows a change
    assert snapshot(stock.dir) == before  # --diff writes nothing
    # and says so: what would be written, never "written" (issue 44)
    assert ": written (" not in shown.stderr and ": symlink -> " not in shown.stderr
    assert "sites-available/a.test.ssl.conf: would be written (" in shown.stderr, shown.stderr
    assert (
        "new file mode 120000\n--- /dev/null\n+++ sites-enabled/a.test.ssl.conf\n" in shown.stdout
    )
    trees = copies(stock.dir)
    assert stock.generate("a.test").returncode == 0
    written = state(stock.dir)
    assert apply_to_copies(shown.stdout.encode(), trees) == {tool: written for tool in TOOLS}
    again = stock.generate("a.test", "--diff", cwd=stock.dir)
    assert (again.returncode, again.stdout) == (0, ""), again.stderr  # nothing to change


def test_a_site_on_0_0_0_0_stays_the_default_of_its_port(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A site on `listen 0.0.0.0:8443 ssl;` is the default server of what a new site's
    `listen 8443` names: one address to nginx. into took them for two, added a default server
    that refuses every handshake, and the site stopped answering while nginx -t passed with a
    "conflicting server name" warning (ONLYOFFICE's sample, tried as a new user)."""
    build = require_build(provisioned, "trixie")
    stock = Tree("debian-13", build, tmp_path)
    chain = stock.certs.leaf("office.test")
    site = stock.dir / "sites-enabled" / "office"
    site.write_text(
        "server {\n    listen 0.0.0.0:8443 ssl;\n"
        f"    ssl_certificate {chain.fullchain};\n    ssl_certificate_key {chain.key};\n"
        '    return 200 "office\\n";\n}\n'
    )
    assert nginx_t(build, stock.main) == ""
    done = stock.generate("new.test", "--listen", "8443", "--http-listen", "8080")
    assert done.returncode == 0, done.stderr
    assert "no server listened there" not in done.stderr, done.stderr
    assert not (stock.dir / "sites-enabled" / "nginxgen-default-server.conf").exists()
    assert "listen 0.0.0.0:8443 ssl default_server;" in site.read_text()
    checked = build.nginx("-p", f"{stock.dir}/", "-c", str(stock.main), "-t")
    assert checked.returncode == 0 and "conflicting server name" not in checked.stderr, (
        checked.stderr
    )


@pytest.mark.parametrize("named", ["--nginx-bin", "this machine's nginx"])
def test_nginx_t_failure_puts_everything_back(
    named: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The binary given, or with no --nginx-bin the machine's nginx whose `nginx -V` gave the
    target (issue 44, trial 4: it was read but not asked), runs `nginx -t` before and after; a
    tree it refuses afterwards is put back."""
    build = require_build(provisioned, "trixie")
    stock = Tree("debian-13", build, tmp_path)
    before = snapshot(stock.dir)
    marker = stock.dir / "sites-available" / "a.test.ssl.conf"
    inject = f'if [ -e "{marker}" ]; then echo "nginx: [emerg] injected failure" >&2; exit 1; fi'
    failing = nginx_bin_script(build, stock.dir, tmp_path / "nginx-bin", before=inject)
    ok = nginx_bin_script(build, stock.dir, tmp_path / "nginx-ok")
    chain = stock.certs.leaf("a.test")
    argv = ["generate", "--preset", "intermediate", "--domain", "a.test"]
    argv += ["--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(stock.dir)]

    def run(binary: Path, *more: str) -> subprocess.CompletedProcess[str]:
        if named == "--nginx-bin":
            return nginxgen(*argv, "--nginx-bin", str(binary), *more)
        return nginxgen(*argv, *more, machine=binary)

    # --diff writes nothing for nginx -t to read, and says that nginx has not judged it
    shown = run(failing, "--diff")
    assert shown.returncode == 1 and snapshot(stock.dir) == before, shown.stderr
    assert f"{failing} -t has not judged this diff (--diff writes nothing)" in shown.stderr
    done = run(failing)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "nginxgen: error: nginx -t fails after the change, every file put back: "
        "nginx: [emerg] injected failure"
    )
    assert snapshot(stock.dir) == before
    # and with nginx -t passing, the same run is kept
    kept = run(ok)
    assert kept.returncode == 0 and "nginx -t passes after the change" in kept.stderr
    assert marker.is_file()
    if named != "--nginx-bin":
        # with the target given instead, the machine's nginx is not run: the tree is only linted
        marker.unlink()
        given = run(failing, "--nginx-version", "1.26.3")
        assert given.returncode == 0 and "nginx -t" not in given.stderr, given.stderr


# A tree run as `nginx -p PREFIX -c CONF/nginx.conf`: its pid, logs and temp folders are relative,
# in PREFIX (includes are relative to CONF, the main file's folder), and nothing names /etc/nginx.
RELATIVE_MAIN = """pid run/nginx.pid;
error_log logs/error.log;
events {{}}
http {{
    access_log logs/access.log;
    {temp}
    include conf.d/*.conf;
}}
"""


def relative_tree(build: Build, conf: Path, prefix: Path) -> Path:
    for sub in ("run", "logs", "temp"):
        (prefix / sub).mkdir(parents=True)
    (conf / "conf.d").mkdir(parents=True)
    (conf / "conf.d" / "app.conf").write_text("server { listen 8080; server_name app.test; }\n")
    main = conf / "nginx.conf"
    main.write_text(RELATIVE_MAIN.format(temp="\n    ".join(build.temp_path_directives)))
    return main


def add_site(
    tree: Path, nginx_bin: Path, *extra: str, domain: str = "a.test", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    chain = CertificateFactory(tree.parent / "certs").leaf(domain)
    return nginxgen(
        "generate", "--preset", "intermediate", "--nginx-bin", str(nginx_bin),
        "--domain", domain, "--cert", str(chain.fullchain), "--key", str(chain.key),
        "--into", str(tree), *extra, cwd=cwd or tree.parent,
    )  # fmt: skip


def test_nginx_t_runs_in_the_trees_prefix(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    # Issue 44: Debian's nginx as installed (prefix /usr/share/nginx) ran the check on such a
    # tree in its own prefix: `open() "/usr/share/nginx/run/nginx.pid" failed`, not judged,
    # exit 0. The tree's folder is its prefix, and our log goes beside its relative own.
    build = require_build(provisioned, "bookworm")
    tree = tmp_path / "tree"
    relative_tree(build, tree, tree)
    installed = nginx_bin_script(build, None, tmp_path / "nginx")
    done = add_site(tree, installed)
    assert done.returncode == 0, done.stderr
    assert "not judged" not in done.stderr, done.stderr
    assert f"nginx -t passes after the change ({tree}/nginx.conf, -p {tree})" in done.stderr
    tls = (tree / "nginxgen-tls.conf").read_text()
    assert "access_log logs/nginxgen-tls.log nginxgen_tls;" in tls, tls
    # and a change nginx -t refuses in that prefix is put back
    site = tree / "conf.d" / "b.test.ssl.conf"
    inject = f'if [ -e "{site}" ]; then echo "nginx: [emerg] injected failure" >&2; exit 1; fi'
    before = snapshot(tree)
    refused = add_site(
        tree, nginx_bin_script(build, None, tmp_path / "nginx-b", before=inject), domain="b.test"
    )
    assert refused.returncode == 3, refused.stderr
    assert "every file put back: nginx: [emerg] injected failure" in refused.stderr
    assert snapshot(tree) == before


def test_prefix_names_the_folder_the_tree_means(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    # nginx's own layout, PREFIX/conf/nginx.conf with PREFIX/logs: neither the binary's
    # compiled-in prefix nor the tree's folder is the one. Not judged, and said why; --prefix
    # or the settings file's prefix (the key lint reads) names it.
    build = require_build(provisioned, "bookworm")
    installed = nginx_bin_script(build, None, tmp_path / "nginx")
    prefix = tmp_path / "unknown"
    relative_tree(build, prefix / "conf", prefix)
    done = add_site(prefix / "conf", installed)
    assert done.returncode == 0, done.stderr
    assert (
        "nginx -t failed before the change too, so it was not judged (--prefix DIR names the "
        "folder the tree's relative paths mean): with the binary's own prefix: "
    ) in done.stderr, done.stderr
    assert '"/usr/share/nginx/run/nginx.pid" failed' in done.stderr
    assert f"; with -p {prefix}/conf: " in done.stderr
    assert f'"{prefix}/conf/run/nginx.pid" failed' in done.stderr
    for given in ("flag", "settings"):
        prefix = tmp_path / given
        relative_tree(build, prefix / "conf", prefix)
        if given == "flag":
            done = add_site(prefix / "conf", installed, "--prefix", str(prefix))
        else:
            (prefix / ".nginxgen.toml").write_text(f'prefix = "{prefix}"\n')
            done = add_site(prefix / "conf", installed, cwd=prefix)
        assert done.returncode == 0, done.stderr
        passed = f"nginx -t passes after the change ({prefix}/conf/nginx.conf, -p {prefix})"
        assert passed in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing", "--into: no such folder"),
        ("no-main", "no main file nginx.conf here"),
        ("syntax", 'sites-enabled/broken:2: unexpected "}"'),
        ("served", "sites-enabled/other:3: a.test is already served by this server"),
        ("key", "does not match"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, case: str, expected: str
) -> None:
    stock = Tree("debian-13", require_build(provisioned, "trixie"), tmp_path)
    chain = stock.certs.leaf("a.test")
    key = chain.key
    into = stock.dir
    if case == "missing":
        into = tmp_path / "nowhere"
    elif case == "no-main":
        into = tmp_path / "empty"
        into.mkdir()
    elif case == "syntax":
        (stock.dir / "sites-enabled" / "broken").write_text("server {\n  listen 8080; }}\n")
    elif case == "served":
        (stock.dir / "sites-enabled" / "other").write_text(
            "server {\n    listen 443 ssl;\n    server_name a.test;\n}\n"
        )
    else:
        key = stock.certs.leaf("b.test").key
    before = snapshot(stock.dir)
    done = nginxgen(
        "generate", "--preset", "intermediate", *stock.build.target_flags,
        "--domain", "a.test", "--cert", str(chain.fullchain), "--key", str(key),
        "--into", str(into),
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if "target:" not in line]
    assert len(lines) == 1 and expected in lines[0], done.stderr
    assert snapshot(stock.dir) == before


def test_root_names_another_main_file(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, "trixie")
    stock = Tree("nginx-source", build, tmp_path)
    main = stock.main.rename(stock.dir / "main.conf")
    done = stock.generate("a.test", "--root", str(main))
    assert done.returncode == 0, done.stderr
    assert "include nginxgen.d/*.conf;" in main.read_text()
    assert (stock.dir / "nginxgen.d" / "a.test.ssl.conf").is_file()
    assert nginx_t(build, main) == ""


def _into_beside_one_server(
    tmp_path: Path, flag: str, version: str, library: str
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A tree of one TLS server (`listen 127.0.0.1:8443 ssl{flag}`), and new.test generated
    into it on the same address for that target."""
    certs = CertificateFactory(tmp_path / "certs")
    old, new = certs.leaf("old.test"), certs.leaf("new.test")
    main = tmp_path / "nginx.conf"
    main.write_text(
        "events {}\nhttp {\n    server {\n"
        f"        listen 127.0.0.1:8443 ssl{flag};\n        server_name old.test;\n"
        f"        ssl_certificate {old.fullchain};\n        ssl_certificate_key {old.key};\n"
        "    }\n}\n"
    )
    done = nginxgen(
        "generate", "--preset", "intermediate", "--nginx-version", version,
        "--tls-library", library, "--domain", "new.test", "--cert", str(new.fullchain),
        "--key", str(new.key), "--listen", "127.0.0.1:8443", "--http-listen", "none",
        "--access-log", "off", "--into", str(tmp_path),
    )  # fmt: skip
    return main, done


@pytest.mark.parametrize("address_has_http2", [False, True])
def test_http2_by_listen_is_not_turned_on_for_the_other_servers(
    tmp_path: Path, address_has_http2: bool
) -> None:
    """Before nginx 1.25.1 HTTP/2 is a listen parameter of the address: a new site's
    `listen ... http2` would turn it on for the tree's servers there (found by the live
    differential, tests/fuzzing/live.py check_live_into, on nginx 1.22.1). It is left off, and
    said, unless the address has it already."""
    flag = " http2" if address_has_http2 else ""
    _, done = _into_beside_one_server(tmp_path, flag, "1.22.1", "openssl-3.0")
    assert done.returncode == 0, done.stderr
    site = (tmp_path / "nginxgen.d" / "new.test.ssl.conf").read_text()
    listens = re.findall(r"^\s*listen (.*);", site, re.M)
    assert listens == [f"127.0.0.1:8443 ssl{flag}"], site
    said = "http2 left off on 127.0.0.1:8443" in done.stdout
    assert said != address_has_http2, done.stdout
    if said:
        assert "server old.test" in done.stdout


def test_a_finding_on_the_users_words_of_a_line_nginxgen_changed_is_the_users(
    tmp_path: Path,
) -> None:
    """--into adds `default_server` to the tree's listen; the deprecated `http2` on that line is
    the user's, found there before: it is "left as is", not "in what nginxgen wrote" (found
    trying Nextcloud's manual config as a new user)."""
    main, done = _into_beside_one_server(tmp_path, " http2", "1.26.3", "openssl-3.5")
    assert done.returncode == 0, done.stderr
    assert "listen 127.0.0.1:8443 ssl http2 default_server;" in main.read_text()
    assert "in what nginxgen wrote" not in done.stderr, done.stderr
    left = done.stdout[done.stdout.index("left as is") :]
    assert 'nginx.conf:4: NGX302 "listen ... http2" is deprecated on nginx 1.26.3' in left


@pytest.mark.parametrize("pattern", ["custom/http[.]conf", "custom/site?.conf", "custom/*.conf"])
def test_a_glob_that_matches_nothing_is_read_as_nginx_reads_it(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, pattern: str
) -> None:
    """Any of `*?[` makes an include a glob for nginx (ngx_conf_include's strpbrk), and a glob
    that matches no file is fine (issue 44, trial 5: `include custom/http[.]conf;` stopped
    --into with exit 2). A glob with no `*` reads names fixed in advance: the sites go to a
    folder of their own; one with a `*` gets them."""
    build = require_build(provisioned, "trixie")
    for folder in ("log", "temp"):
        (tmp_path / folder).mkdir()
    main = tmp_path / "nginx.conf"
    temp = "".join(f"    {line}\n" for line in build.temp_path_directives)
    main.write_text(
        # a log of its own: the new TLS log goes beside it (no /var/log/nginx on a fresh machine)
        f"pid nginx.pid;\nevents {{}}\nhttp {{\n{temp}    access_log log/access.log;\n"
        f"    include {pattern};\n"
        "    server { listen 8080; server_name app.test; }\n}\n"
    )
    assert nginx_t(build, main) == ""
    linted = nginxgen("lint", *build.target_flags, str(main))  # the same tree: no finding
    assert linted.returncode == 0 and "NGX002" not in linted.stdout, linted.stdout
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", *build.target_flags, "--domain", "a.test",
        "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = "custom" if "*" in pattern else "nginxgen.d"
    assert (tmp_path / folder / "a.test.ssl.conf").is_file(), done.stderr
    assert nginx_t(build, main) == ""


# tls.conf read by the server on the new site's port and by another block: mail{}, stream{}, a
# server on another port, or http{} itself (then a setting of http{} is the one in it)
SHARED_TLS = {
    "mail": "mail {\n    auth_http 127.0.0.1:9/auth;\n    include tls.conf;\n"
    "    server { listen 8993 ssl; protocol imap; }\n}\n",
    "stream": "stream {\n    include tls.conf;\n    server { listen 8994 ssl; return ok; }\n}\n",
    "server": "    server { listen 9443 ssl; server_name other.test; include tls.conf; }\n",
    "http-level": "    include tls.conf;\n",
}


@pytest.mark.parametrize("other", SHARED_TLS)
def test_a_file_read_in_several_places_is_not_edited_for_one(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, other: str
) -> None:
    """A snippet nginx reads in more than one place is kept: changing it for the default server
    of the new site's port (or for http{}) would change mail{}, stream{} or another server
    too (issue 44, trial 5, Mailu's tls.conf: `ssl_session_tickets off -> on` reached mail{},
    and the report named only the http server). The report says what it means for the new
    sites and where a change for one block alone belongs."""
    build = require_build(provisioned, "trixie")
    assert build.root is not None
    modules = build.root / "usr/lib/nginx/modules"
    for folder in ("log", "temp"):
        (tmp_path / folder).mkdir()
    chain = CertificateFactory(tmp_path / "certs").leaf("old.test")
    setting = "ssl_protocols TLSv1.2" if other == "http-level" else "ssl_session_tickets off"
    tls = tmp_path / "tls.conf"
    tls.write_text(
        f"ssl_certificate {chain.fullchain};\nssl_certificate_key {chain.key};\n{setting};\n"
    )
    inside = other in ("server", "http-level")  # in http{}, else a block of its own
    lines = [
        *(f"load_module {modules}/ngx_{kind}_module.so;" for kind in ("mail", "stream")),
        "pid nginx.pid;", "events {}", "http {",
        *(f"    {line}" for line in build.temp_path_directives),
        "    access_log log/access.log;", "    server {", "        listen 8443 ssl;",
        "        server_name old.test;", "        include tls.conf;", "    }",
    ]  # fmt: skip
    server = lines.index("    server {") + 1
    main = tmp_path / "nginx.conf"
    lines += [SHARED_TLS[other], "}"] if inside else ["}", SHARED_TLS[other]]
    main.write_text("\n".join(lines) + "\n")
    assert nginx_t(build, main) == ""
    before = tls.read_text()
    new = CertificateFactory(tmp_path / "certs").leaf("a.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", *build.target_flags, "--domain", "a.test",
        "--cert", str(new.fullchain), "--key", str(new.key), "--listen", "8443",
        "--http-listen", "none", "--into", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert tls.read_text() == before
    said = done.stdout + done.stderr
    kept = re.findall(rf"^{tls}:3: {setting} kept \(nginxgen would make it .*$", said, re.M)
    assert len(kept) == 1, said
    assert f"server at {main}:{server} and " in kept[0], kept[0]
    assert "a change there would reach all of them" in kept[0]
    meaning = "the new sites inherit it from http{}" if other == "http-level" else "*:8443"
    assert meaning in kept[0], kept[0]
    assert nginx_t(build, main) == ""


def test_a_site_beside_listens_with_http2_writes_its_listen_the_same_way(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A new site's `listen ... ssl;` with `http2 on;` beside two servers whose listens carry
    `http2` made nginx -t (1.23.4 on) warn `protocol options redefined` in the file --into
    wrote, while the report said only that nginx -t passes (found with h5bp's templates as a new
    user). The site's listen now carries the parameter like the address's others, and says why;
    a warning nginx gives only after a change is reported. The tree's servers sit on one line
    each (`server { listen ...; ...}`): their listen and their server were once taken for one
    line read in two blocks, so `default_server` was kept off and the new site, first in
    include order, took the address over (NGX106 in what nginxgen wrote)."""
    build = require_build(provisioned, "trixie")
    tree = tmp_path / "tree"
    relative_tree(build, tree, tree)
    port = free_port()
    certs = CertificateFactory(tmp_path / "old")
    (tree / "conf.d" / "app.conf").write_text(
        "".join(
            f"server {{ listen 127.0.0.1:{port} ssl http2; server_name {name};\n"
            f"    ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key}; }}\n"
            for name, chain in ((n, certs.leaf(n)) for n in ("old.test", "older.test"))
        )
    )
    binary = nginx_bin_script(build, None, tmp_path / "nginx")
    done = add_site(tree, binary, "--listen", f"127.0.0.1:{port}", "--http-listen", "none")
    assert done.returncode == 0, done.stderr
    site = (tree / "conf.d" / "a.test.ssl.conf").read_text()
    assert re.findall(r"^\s*listen (.*);", site, re.M) == [f"127.0.0.1:{port} ssl http2"], site
    assert f"listen ... http2 on 127.0.0.1:{port}, as its other servers write it" in done.stdout
    assert "protocol options redefined" not in done.stderr, done.stderr
    # lint's word on that parameter is the tree's, said as such: not "in what nginxgen wrote"
    # (there should be nothing there), as trial 7 found
    assert "in what nginxgen wrote" not in done.stderr, done.stderr
    followed = "written as your tree does it, and mended with it: "
    assert f'{followed}{tree}/conf.d/a.test.ssl.conf:4: NGX302 "listen ... http2"' in done.stderr
    # the one warning the change brings: the deprecated parameter on the site's own listen
    new = [line for line in done.stderr.splitlines() if "warns after the change" in line]
    assert len(new) == 1 and new[0].endswith("a.test.ssl.conf:4"), new
    # a warning that only the change brings is said (injected: the run above brings none)
    warn = f'echo "nginx: [warn] injected warning in {tree}/conf.d/b.test.ssl.conf:1" >&2'
    injected = f'if [ -e "{tree}/conf.d/b.test.ssl.conf" ]; then {warn}; fi'
    warned = add_site(
        tree,
        nginx_bin_script(build, None, tmp_path / "nginx-b", before=injected),
        "--listen", f"127.0.0.1:{port}", "--http-listen", "none", domain="b.test",
    )  # fmt: skip
    assert warned.returncode == 0, warned.stderr
    said = f"nginx -t warns after the change, not before: injected warning in {tree}/conf.d/"
    assert said in warned.stderr, warned.stderr


def test_a_tree_whose_http_block_closes_on_its_last_servers_line(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """`}}`: the last server's brace and http{}'s on one line, as certbot --nginx leaves
    gunicorn's example. The includes --into adds went after http{}'s brace, nginx -t refused
    them and every file was put back (exit 3); they now go inside http{}."""
    build = require_build(provisioned, "trixie")
    tree = tmp_path / "tree"
    main = relative_tree(build, tree, tree)
    text = main.read_text()
    main.write_text(text[: text.rindex("}")].rstrip() + "\nserver { listen 8080; return 404;\n}}\n")
    done = add_site(tree, nginx_bin_script(build, None, tmp_path / "nginx"))
    assert done.returncode == 0, done.stderr
    assert "nginx -t passes after the change" in done.stderr, done.stderr
    written = main.read_text()
    assert "}}" not in written and written.rstrip().endswith("}"), written
    assert written.index("include nginxgen-tls.conf;") < written.rstrip().rindex("}"), written


def test_a_listen_stream_takes_is_refused(tmp_path: Path) -> None:
    """An http server on the port stream{} listens on keeps nginx from starting though nginx -t
    passes (trial 8, YunoHost's TLS passthrough: --into said the port had no server and wrote
    one there): refused whole, exit 2, naming the stream's listen."""
    tree = tmp_path / "tree"
    tree.mkdir()
    main = tree / "nginx.conf"
    main.write_text(
        "events {}\nstream {\n    server { listen 127.0.0.1:18443; ssl_preread on; "
        "proxy_pass 127.0.0.1:18444; }\n}\nhttp {\n    server { listen 8080; }\n}\n"
    )
    before = snapshot(tree)
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--nginx-version", "1.26.3", "--tls-library",
        "openssl-3.5", "--domain", "a.test", "--cert", str(chain.fullchain), "--key",
        str(chain.key), "--listen", "127.0.0.1:18443", "--http-listen", "none", "--into",
        str(tree),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"error: {main}:3: stream{{}} listens on 127.0.0.1:18443" in done.stderr, done.stderr
    assert done.stderr.count("\n") <= 2 and "Traceback" not in done.stderr
    assert snapshot(tree) == before


def test_a_default_server_of_another_port_too_is_said_to_change_there(tmp_path: Path) -> None:
    """Trial 22 (a Matrix server, the default of *:443 and of its federation port): --into
    changed its ssl_protocols for the new site on *:443, and the report named *:443 alone,
    where *:8448's peers get TLS 1.3 only from then on too."""
    tree = tmp_path / "tree"
    tree.mkdir()
    chain = CertificateFactory(tmp_path / "certs").leaf("matrix.test")
    main = tree / "nginx.conf"
    main.write_text(
        "events {}\nhttp {\n    server {\n        listen 443 ssl;\n"
        "        listen 8448 ssl default_server;\n        server_name matrix.test;\n"
        f"        ssl_certificate {chain.fullchain};\n        ssl_certificate_key {chain.key};\n"
        "        ssl_protocols TLSv1.2 TLSv1.3;\n    }\n}\n"
    )
    new = CertificateFactory(tmp_path / "new").leaf("new.test")
    done = nginxgen(
        "generate", "--preset", "modern", "--nginx-version", "1.26.3", "--tls-library",
        "openssl-3.5", "--domain", "new.test", "--cert", str(new.fullchain), "--key",
        str(new.key), "--http-listen", "none", "--into", str(tree), "--diff",
    )  # fmt: skip
    said = [line for line in done.stderr.splitlines() if f"{main}:9: would change" in line]
    assert len(said) == 1 and "ssl_protocols TLSv1.2 TLSv1.3 -> TLSv1.3" in said[0], done.stderr
    assert "it is also the default server of *:8448" in said[0], said


@pytest.mark.parametrize(
    ("block", "zone"),
    [("mail", "TLSSL"), ("mail", "SSL"), ("stream", "le_nginx_SSL"), ("stream", "SSL")],
)
def test_a_session_zone_of_mail_or_stream_is_not_http_s(
    tmp_path: Path, block: str, zone: str
) -> None:
    """A zone belongs to one module: --into took mail{}'s or stream{}'s ssl_session_cache zone
    for http{} (or its own name, where theirs is the same), and nginx -t failed after the
    change (`already declared for a different use`; trial 9, BlueMind and Signal's TLS
    proxy). http{} gets a zone of its own."""
    tree = tmp_path / "tree"
    tree.mkdir()
    inner = (
        "auth_http 127.0.0.1:9/auth; server { listen 127.0.0.1:19993 ssl; protocol imap; }"
        if block == "mail"
        else "server { listen 127.0.0.1:19994 ssl; return x; }"
    )
    (tree / "nginx.conf").write_text(
        f"events {{}}\n{block} {{\n    ssl_session_cache shared:{zone}:16m;\n    {inner}\n}}\n"
        "http {\n    server { listen 8080; }\n}\n"
    )
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--nginx-version", "1.26.3", "--tls-library",
        "openssl-3.5", "--domain", "a.test", "--cert", str(chain.fullchain), "--key",
        str(chain.key), "--listen", "127.0.0.1:18443", "--http-listen", "none", "--into",
        str(tree), "--diff",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # 1: the diff changes something
    caches = re.findall(r"^\+\s*ssl_session_cache (\S+);", done.stdout, re.M)
    assert caches and all(f":{zone}:" not in c for c in caches), caches
    assert "NGX012" not in done.stdout + done.stderr, done.stderr


def test_a_main_file_without_http_is_said_so(tmp_path: Path) -> None:
    """Trial 10 (a stream{} DNS-over-TLS proxy): `--into` said "no http{} block: is this the
    main nginx.conf?" of a main file; it says the tree has no http{} to add a site to."""
    from tests.pki import CertificateFactory

    chain = CertificateFactory(tmp_path / "ca").leaf("a.example")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "nginx.conf").write_text(
        "events {}\nstream { server { listen 127.0.0.1:8853; proxy_pass 127.0.0.1:53; } }\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "generate", "--preset", "intermediate", "--domain",
         "a.example", "--cert", str(chain.fullchain), "--key", str(chain.key), "--into", str(tree),
         "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = "has no http{} block to add an HTTPS site to (it holds events{}, stream{}):"
    assert said in done.stderr, done.stderr
    assert sorted(p.name for p in tree.iterdir()) == ["nginx.conf"]


def test_the_trees_own_keepalive_stays(tmp_path: Path) -> None:
    """Trial 10 (richarvey, nginx-http3): `--into` changed `keepalive_timeout 2` to 75s and
    `keepalive_requests 100000` to 1000 for every site of the tree; lines that are not TLS
    settings keep the tree's value."""
    from tests.pki import CertificateFactory

    chain = CertificateFactory(tmp_path / "ca").leaf("a.example")
    tree = tmp_path / "tree"
    tree.mkdir()
    main = tree / "nginx.conf"
    main.write_text(
        "events {}\nhttp {\n    keepalive_timeout 2;\n    keepalive_requests 100000;\n"
        "    server { listen 80; return 204; }\n}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "generate", "--preset", "intermediate", "--domain",
         "a.example", "--cert", str(chain.fullchain), "--key", str(chain.key), "--into",
         str(tree), "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = main.read_text()
    assert "keepalive_timeout 2;" in text and "keepalive_requests 100000;" in text, text
    assert "keepalive_timeout 2 ->" not in done.stdout, done.stdout


def test_a_tls_log_in_a_missing_folder_is_put_back_with_a_hint(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Trial 11 (OpenWrt: every log of the tree off, so the TLS log went to /var/log/nginx,
    missing there): nginx -t refused the change, it was put back, and exit 3 said nothing of
    the way out. It names --access-log now."""
    build = require_build(provisioned, "trixie")
    stock = Tree("debian-13", build, tmp_path)
    before = snapshot(stock.dir)
    chain = stock.certs.leaf("a.test")
    binary = nginx_bin_script(build, stock.dir, tmp_path / "nginx-bin")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--domain", "a.test", "--cert",
        str(chain.fullchain), "--key", str(chain.key), "--into", str(stock.dir),
        "--access-log", str(tmp_path / "no-such-folder" / "tls.log"), "--nginx-bin", str(binary),
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--access-log says" in done.stderr.splitlines()[-1], done.stderr
    assert snapshot(stock.dir) == before


@pytest.mark.parametrize("build_name", ["trixie", "bookworm"])
def test_lines_that_agreed_with_the_default_server_change_with_it(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, build_name: str
) -> None:
    """Trial 19, F1: two servers share *:8443 and both say `ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
    ssl_session_timeout 5m;`. --into changes the default server's lines (it decides for every
    name there); the other's, ignored by nginx and agreeing before, change with them: left,
    they were NGX103/NGX102 warnings this run made and reported as the user's own. A third
    server's line of another value is the user's choice and stays, as does its finding."""
    build = require_build(provisioned, build_name)
    for folder in ("log", "temp"):
        (tmp_path / folder).mkdir()
    certs = CertificateFactory(tmp_path / "certs")
    lines = ["pid nginx.pid;", "events {}", "http {", "  access_log off;"]
    lines += [f"  {line}" for line in build.temp_path_directives]
    for name, protocols in (("a", "TLSv1 TLSv1.1 TLSv1.2"), ("b", "TLSv1 TLSv1.1 TLSv1.2"),
                            ("c", "TLSv1.2")):  # fmt: skip
        chain = certs.leaf(f"{name}.test")
        lines += [
            "  server {", "    listen 8443 ssl;", f"    server_name {name}.test;",
            f"    ssl_certificate {chain.fullchain};", f"    ssl_certificate_key {chain.key};",
            f"    ssl_protocols {protocols};", "    ssl_session_timeout 5m;", "  }",
        ]  # fmt: skip
    main = tmp_path / "nginx.conf"
    main.write_text("\n".join([*lines, "}"]) + "\n")
    assert nginx_t(build, main) == ""

    def findings() -> set[str]:
        linted = nginxgen("lint", *build.target_flags, str(main))
        return {
            f"{m[1]} {m[2]}" for m in re.finditer(r"nginx\.conf:(\d+): (NGX10[23]) ", linted.stdout)
        }

    before = findings()
    b_line = lines.index("    server_name b.test;") + 1  # the line before b's ssl_protocols
    c_line = lines.index("    server_name c.test;") + 1
    assert before == {f"{c_line + 3} NGX103"}, before  # c's TLSv1.2 only: b agreed
    new = certs.leaf("new.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", *build.target_flags, "--domain", "new.test",
        "--cert", str(new.fullchain), "--key", str(new.key), "--listen", "8443",
        "--http-listen", "none", "--access-log", "off", "--into", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = main.read_text()
    assert text.count("ssl_protocols TLSv1.2 TLSv1.3;") == 2, text  # a's and b's
    assert text.count("ssl_protocols TLSv1.2;") == 1, text  # c's, another value: kept
    assert text.count("ssl_session_timeout 1d;") == 3, text  # all three said 5m
    for line in (b_line + 3, b_line + 4):
        said = [s for s in done.stdout.splitlines() if s.startswith(f"{main}:{line}: ")]
        assert len(said) == 1 and "as in the default server of *:8443" in said[0], done.stdout
    after = findings()
    assert after <= before, (before, after)
    assert nginx_t(build, main) == ""


def test_a_finding_the_change_made_on_a_line_it_left_is_not_called_the_users(
    tmp_path: Path,
) -> None:
    """A vhost line that agreed with the default server's, in a server that is also the default
    of another TLS address (where the line decides), is not changed with it: it is ignored on
    *:8443 afterwards and NGX103/NGX102 say so. Lint of the tree before had no such finding:
    the report says this run made it, not that it was left as is in the user's lines."""
    certs = CertificateFactory(tmp_path / "certs")
    lines = ["events {}", "http {", "  access_log off;"]
    for name, listens in (("a", ["8443"]), ("b", ["8443", "9443"])):
        chain = certs.leaf(f"{name}.test")
        lines += [
            "  server {", *(f"    listen {port} ssl;" for port in listens),
            f"    server_name {name}.test;", f"    ssl_certificate {chain.fullchain};",
            f"    ssl_certificate_key {chain.key};", "    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;",
            "    ssl_session_timeout 5m;", "  }",
        ]  # fmt: skip
    main = tmp_path / "nginx.conf"
    main.write_text("\n".join([*lines, "}"]) + "\n")
    new = certs.leaf("new.test")
    done = nginxgen(
        "generate", "--preset", "intermediate", "--nginx-version", "1.26.3", "--tls-library",
        "openssl-3.5", "--domain", "new.test", "--cert", str(new.fullchain), "--key",
        str(new.key), "--listen", "8443", "--http-listen", "none", "--access-log", "off",
        "--into", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    b_protocols = lines.index("    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;", 12) + 1
    assert main.read_text().splitlines()[b_protocols - 1] == lines[b_protocols - 1]  # kept
    out = done.stdout
    caused = out[out.index("made by this change (2, ") : out.index("left as is")].splitlines()
    left = out[out.index("left as is") :]
    for line, code in ((b_protocols, "NGX103"), (b_protocols + 1, "NGX102")):
        assert sum(f"{main}:{line}: {code} " in said for said in caused) == 1, out
        assert f"{main}:{line}: {code} " not in left, out


def test_a_symlinked_site_the_change_edits_is_named_by_its_target_in_the_diff(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Debian's layout: a site in sites-available/, enabled by a symlink, the default of :443 by
    order, gets `default_server` from --into. Its --diff named the link (trial 21, Mastodon's
    and Jitsi's sites): patch refused to write through it and left sites-enabled/SITE.rej, which
    `include sites-enabled/*` then read (nginx -t: unexpected "}"). The diff names the target,
    where the write goes, as lint --fix --diff does; each tool leaves what the run writes."""
    require_tools()
    build = require_build(provisioned, "trixie")
    stock = Tree("debian-13", build, tmp_path)
    chain = stock.certs.leaf("office.test")
    (stock.dir / "sites-available" / "office").write_text(
        "server {\n    listen 8443 ssl;\n    server_name office.test;\n"
        f"    ssl_certificate {chain.fullchain};\n    ssl_certificate_key {chain.key};\n"
        '    return 200 "office\\n";\n}\n'
    )
    (stock.dir / "sites-enabled" / "office").symlink_to("../sites-available/office")
    assert nginx_t(build, stock.main) == ""
    shown = stock.generate("new.test", "--listen", "8443", "--http-listen", "8080", "--diff",
                           cwd=stock.dir)  # fmt: skip
    assert shown.returncode == 1, shown.stderr
    assert "+++ sites-available/office\n" in shown.stdout, shown.stdout
    assert "sites-enabled/office" not in shown.stdout, shown.stdout
    trees = copies(stock.dir)
    done = stock.generate("new.test", "--listen", "8443", "--http-listen", "8080")
    assert done.returncode == 0, done.stderr
    assert "default_server" in (stock.dir / "sites-available" / "office").read_text()
    written = state(stock.dir)
    assert apply_to_copies(shown.stdout.encode(), trees) == {tool: written for tool in TOOLS}
