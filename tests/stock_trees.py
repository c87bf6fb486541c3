"""Stock nginx trees as distributions and packages ship them (tests/data/layouts/README.md), copied
to a test folder with their absolute paths rewritten there - the test data of `generate --into`.

Only what a test machine needs changes: absolute paths point into the copy, `user` is one that
exists, and the build's compiled-in temp folders move into the copy (Debian's are in /var/lib).
Every other byte stays as shipped.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.builds import Build
from tests.paths import CORPUS, LAYOUTS

USER = re.compile(r"^(\s*)user\s+[^;]+;", re.M)


def _copy_debian(build: Build, dest: Path) -> None:
    assert build.root is not None
    shutil.copytree(build.root / "etc" / "nginx", dest, symlinks=True)
    # nginx's postinst enables the default site
    (dest / "sites-enabled" / "default").symlink_to("../sites-available/default")


def _copy_folder(source: Path) -> Callable[[Build, Path], None]:
    def copy(build: Build, dest: Path) -> None:
        shutil.copytree(source, dest, symlinks=True)

    return copy


def _copy_h5bp(build: Build, dest: Path) -> None:
    source = CORPUS / "h5bp__server-configs-nginx"
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns("test", "_LICENSE*"))


def _copy_linuxserver(site: Path) -> Callable[[Build, Path], None]:
    """The files linuxserver's init puts in /config/nginx from the image's defaults (`.sample`),
    the two it writes at start (worker_processes.conf, resolver.conf), the nginx files the
    image's package has in /etc/nginx, and the key pair and DH file the init makes."""
    base = CORPUS / "linuxserver__docker-baseimage-alpine-nginx" / "root" / "defaults" / "nginx"

    def copy(build: Build, dest: Path) -> None:
        from tests.fuzzing.generate_check import real_files
        from tests.pki import CertificateFactory

        (dest / "site-confs").mkdir(parents=True)
        shutil.copy(base / "nginx.conf.sample", dest / "nginx.conf")
        shutil.copy(base / "ssl.conf.sample", dest / "ssl.conf")
        shutil.copy(site, dest / "site-confs" / "default.conf")
        (dest / "worker_processes.conf").write_text("worker_processes 2;\n")
        (dest / "resolver.conf").write_text("resolver 127.0.0.1 valid=30s;\n")
        for name in ("mime.types", "fastcgi_params"):
            shutil.copy(CORPUS / "nginx__nginx" / "conf" / name, dest / name)
        for folder in ("modules", "conf.d", "http.d", "proxy-confs", "keys", "www"):
            (dest / folder).mkdir(exist_ok=True)
        chain = CertificateFactory(dest / "keys" / "ca").leaf("localhost")
        shutil.copy(chain.fullchain, dest / "keys" / "cert.crt")
        shutil.copy(chain.key, dest / "keys" / "cert.key")
        shutil.copy(real_files().dhparam, dest / "dhparams.pem")

    return copy


SWAG = CORPUS / "linuxserver__docker-swag" / "root" / "defaults" / "nginx"
ALPINE = CORPUS / "linuxserver__docker-baseimage-alpine-nginx" / "root" / "defaults" / "nginx"
TREES: dict[str, tuple[str | None, Callable[[Build, Path], None]]] = {
    # name: (the build it ships with, or None: any build; how to copy it)
    "debian-12": ("bookworm", _copy_debian),
    "debian-13": ("trixie", _copy_debian),
    "nginx-org": (None, _copy_folder(LAYOUTS / "nginx-org-packages" / "etc" / "nginx")),
    "nginx-source": (None, _copy_folder(CORPUS / "nginx__nginx" / "conf")),
    "h5bp": (None, _copy_h5bp),
    # http3 on / listen ... quic: only the build with the HTTP/3 module loads them as shipped
    "linuxserver-alpine": (
        "trixie",
        _copy_linuxserver(ALPINE / "site-confs" / "default.conf.sample"),
    ),
    "swag": ("trixie", _copy_linuxserver(SWAG / "site-confs" / "default.conf.sample")),
}


def stock_tree(name: str, build: Build, dest: Path) -> Path:
    """The tree copied to `dest` and made to run there; returns its nginx.conf."""
    _, copy = TREES[name]
    copy(build, dest)
    for folder in ("log", "logs", "run", "temp"):  # logs/: a compiled build's default pid path
        (dest / folder).mkdir(exist_ok=True)
    rewrites = {  # longest first
        "/config/nginx": str(dest),
        "/config/log/nginx": str(dest / "log"),
        "/config/keys": str(dest / "keys"),
        "/config/www": str(dest / "www"),
        "/etc/nginx": str(dest),
        "/var/log/nginx": str(dest / "log"),
        "/var/run/": f"{dest}/run/",
        "/run/": f"{dest}/run/",
    }
    for path in dest.rglob("*"):
        if path.is_symlink():
            continue
        path.chmod(path.stat().st_mode | 0o200)  # the shared copies are read-only; /etc is not
        if not path.is_file():
            continue
        text = path.read_text(errors="surrogateescape")
        new = text
        for old, here in rewrites.items():
            new = re.sub(rf"(?<![\w/.]){re.escape(old)}", here, new)
        if new != text:
            path.write_text(new, errors="surrogateescape")
    main = dest / "nginx.conf"
    text = main.read_text()
    user = "user root;" if os.geteuid() == 0 else ""
    text, users = USER.subn(lambda m: m.group(1) + user, text)
    if not users and user:  # workers would run as nobody, who cannot read a 0700 test folder
        text = user + "\n" + text
    temp = [
        d.replace(" temp/", f" {dest}/temp/")
        for d in build.temp_path_directives
        if not re.search(rf"^\s*{d.split()[0]}\s", text, re.M)  # set by the tree: kept
    ]
    temp.append(f"access_log {dest}/log/access.log;")  # where a tree has none: the compiled one
    text = re.sub(r"^(\s*http\s*\{[^\n]*\n)", lambda m: m.group(1) + "".join(f"    {t}\n" for t in temp),
                  text, count=1, flags=re.M)  # fmt: skip
    main.write_text(text)
    return main
