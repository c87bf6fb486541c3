"""Real builds compiled here. Issue 15: nginx from Debian's source package against AWS-LC and
BoringSSL, each library built by its Rust `-sys` crate as that crate intends. Issue 36: nginx
1.28.3 (the stable line) against OpenSSL 3.6.3 and 4.0.3, both source trees from crates.io
(`nginx-src`, `openssl-src`); openssl-src builds only OpenSSL's libraries (`make build_libs`),
and the live tests also need its `openssl` program, so OpenSSL is compiled here once from the
crate's tree, libraries and program together, with the options openssl-src turns off left at
OpenSSL's defaults (a distribution's set of ciphers and groups, not a trimmed one).

Registry packages only, each pinned: the crates from crates.io (a throwaway cargo project per
library in scripts/cargo/, its Cargo.lock pinning every crate by checksum, gives the static
`libssl.a`/`libcrypto.a`; the headers are the crate's own copy of the library's), libclang for
the crates' bindgen as a PyPI wheel, nginx's release source (Debian's orig tarball) and a static
PCRE2 from Debian's archive, the last three in scripts/pins.json. Where nginx needs a change to
build against a library, the change is a patch file in scripts/patches/ that says why.
Everything lands under the cache: a second run finds the binary and needs neither network nor
compiler.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

from downloads import fetch_group

HERE = Path(__file__).resolve().parent
PATCHES = HERE / "patches"
CARGO_PROJECTS = HERE / "cargo"

# nginx 1.28's modules that TLS configurations use. HTTP/3 with OpenSSL goes through nginx's
# QUIC compatibility layer (no 0-RTT): nginx uses OpenSSL 3.5's own QUIC API only from 1.29.x
# (https://nginx.org/en/docs/quic.html, "Building from sources"; nginx.org/en/CHANGES, 1.29.1).
STABLE_MODULES = [
    "--with-http_ssl_module",
    "--with-http_v2_module",
    "--with-http_v3_module",
    "--with-http_realip_module",
    "--with-http_stub_status_module",
    "--with-stream",
    "--with-stream_ssl_module",
    "--with-stream_ssl_preread_module",
    "--with-stream_realip_module",
]
# OpenSSL compiled from openssl-src's tree: static (nginx and the program carry their library),
# providers built in, no test programs (they are half the compile), and -O0 over OpenSSL's -O3
# (as its own --debug builds): the same library (algorithms, groups, suites and defaults are not
# options of the optimizer) compiled in a fraction of the time (OpenSSL 3.6.3, two cores: 154 s
# at -O1 against about 320 s at -O3), which a fresh machine's CI pays twice; the assembly of
# its ciphers, bignums and hashes is not compiled by gcc at all, so handshakes barely slow.
OPENSSL_OPTIONS = ["no-shared", "no-module", "no-tests", "-O0"]

# The -sys crates' libssl needs the C++ runtime, which nginx's link line names before -lssl:
# --no-as-needed keeps it (gcc's default --as-needed drops a library nothing before it used).
CXX_RUNTIME = "-Wl,--no-as-needed -lstdc++ -lpthread -Wl,--as-needed"

SOURCE_BUILDS: dict[str, dict[str, object]] = {
    "awslc": {
        "crate": "aws-lc-sys",  # its version: scripts/cargo/awslc
        "env": {"AWS_LC_SYS_NO_PREFIX": "1"},  # nginx links against the plain SSL_* names
        "include": "aws-lc/include",
        "ld_opt": CXX_RUNTIME,
        # nginx's QUIC code knows BoringSSL's and OpenSSL's APIs, not AWS-LC's: no HTTP/3
        "modules": ["--with-http_ssl_module", "--with-http_v2_module"],
        "patches": ["nginx-1.26-aws-lc.patch"],
    },
    "boringssl": {
        "crate": "boring-sys",  # its version: scripts/cargo/boringssl
        # its CMake build's Release flags at -O0 (scripts/cmake/release-o0.cmake), as OPENSSL_OPTIONS
        "env": {"CMAKE_TOOLCHAIN_FILE": str(HERE / "cmake" / "release-o0.cmake")},
        "include": "deps/boringssl/include",
        "ld_opt": CXX_RUNTIME,
        "modules": ["--with-http_ssl_module", "--with-http_v2_module", "--with-http_v3_module"],
        "patches": [],
    },
    # nginx and OpenSSL from the crates of scripts/cargo/<name>; no -sys crate builds anything
    "openssl36": {"crate": None, "modules": STABLE_MODULES, "patches": []},
    "openssl40": {
        "crate": None,
        "modules": STABLE_MODULES,
        # OpenSSL 4.0's opaque ASN1_STRING and const X509_NAME getters
        "patches": ["nginx-1.28-openssl-4.0.patch"],
    },
}


class BuildError(Exception):
    pass


def run(
    argv: list[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdout_only: bool = False,
    timeout: float = 600,
) -> str:
    """Run a build or fetch step; BuildError with the end of its output when it fails."""
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BuildError(f"{argv[0]}: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-4:]
        raise BuildError(f"{' '.join(argv[:3])} failed: {' | '.join(tail)}")
    return done.stdout if stdout_only else done.stdout + done.stderr


def _libclang(cache: Path) -> Path:
    """The folder holding libclang.so, unpacked from the pinned PyPI wheel."""
    target = cache / "tools" / "libclang"
    found = sorted(target.glob("*/platlib/clang/native/libclang*.so*"))
    if not found:
        (wheel,) = fetch_group("libclang", cache / "downloads" / "libclang")
        shutil.rmtree(target, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
        found = sorted(target.glob("*/platlib/clang/native/libclang*.so*"))
    if not found:
        raise BuildError(f"{target}: the libclang wheel has no libclang.so")
    return found[0].parent


def _gcc_include() -> str:
    """bindgen's libclang has no builtin headers of its own (stddef.h): gcc's serve."""
    return str(Path(run(["gcc", "-print-file-name=include/stddef.h"]).strip()).parent)


def _host() -> str:
    """Rust's name of this machine, so that cargo fetches and resolves only its crates."""
    return next(
        line.split()[1] for line in run(["rustc", "-vV"]).splitlines() if line.startswith("host:")
    )


def _crate_dirs(project: Path) -> dict[str, Path]:
    """The unpacked source folder of each crate the project's Cargo.lock names."""
    argv = ["cargo", "metadata", "--format-version", "1", "--locked", "--filter-platform"]
    metadata = json.loads(run([*argv, _host()], cwd=project, stdout_only=True))
    return {p["name"]: Path(p["manifest_path"]).parent for p in metadata["packages"]}


@functools.cache
def _fetched_crates(name: str, cache: Path) -> dict[str, Path]:
    """scripts/cargo/<name>'s crates downloaded (checked against Cargo.lock) and unpacked by
    cargo, nothing compiled: the source trees of the builds that take only sources from
    crates.io."""
    project = cache / name / "crate"
    shutil.copytree(CARGO_PROJECTS / name, project, dirs_exist_ok=True)
    run(["cargo", "fetch", "--locked", "--target", _host()], cwd=project, timeout=1800)
    return _crate_dirs(project)


def _install_libs(out: Path, libs: dict[str, Path], include: Path) -> None:
    """out/lib (the static libraries) and out/include, replaced whole."""
    staging = out.with_name(out.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib").mkdir(parents=True)
    for lib, path in libs.items():
        shutil.copy(path, staging / "lib" / lib)
    shutil.copytree(include, staging / "include")
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)


def build_library(name: str, cache: Path) -> Path:
    """The library's static libs and headers under cache/name/ssl (lib/, include/)."""
    spec = SOURCE_BUILDS[name]
    if spec["crate"] is None:
        return build_openssl(name, cache)
    out = cache / name / "ssl"
    if (out / "lib" / "libssl.a").is_file():
        return out
    project = cache / name / "crate"
    shutil.copytree(CARGO_PROJECTS / name, project, dirs_exist_ok=True)
    crate = str(spec["crate"])
    env = {
        "LIBCLANG_PATH": str(_libclang(cache)),
        "BINDGEN_EXTRA_CLANG_ARGS": f"-I{_gcc_include()}",
        **spec["env"],  # type: ignore[dict-item]
    }
    run(["cargo", "build", "--release", "--quiet", "--locked"], cwd=project, env=env, timeout=1800)
    libs = {}
    for lib in ("libssl.a", "libcrypto.a"):
        candidates = sorted(
            (project / "target" / "release" / "build").glob(f"{crate}-*/out/**/{lib}"),
            key=lambda p: p.stat().st_mtime,
        )
        if not candidates:
            raise BuildError(f"{crate} built no {lib}")
        libs[lib] = candidates[-1]
    # The crate's own copy of the library's headers: the include folder it writes into its
    # build output belongs to its prefixed build (BORINGSSL_PREFIX), not to these libraries.
    _install_libs(out, libs, _crate_dirs(project)[crate] / str(spec["include"]))
    return out


def build_openssl(name: str, cache: Path) -> Path:
    """OpenSSL from the openssl-src crate's tree, compiled once into cache/name/ssl: lib/ (static
    libssl.a, libcrypto.a), include/ and bin/openssl. Its configuration folder is an empty one
    of its own (the crate carries no openssl.cnf), so the program runs on OpenSSL's built-in
    defaults and reads no configuration of this machine's."""
    out = cache / name / "ssl"
    if (out / "bin" / "openssl").is_file():  # install_sw installs the program last
        return out
    source = _fetched_crates(name, cache)["openssl-src"] / "openssl"
    work = cache / name / "openssl-build"
    for folder in (work, out):
        shutil.rmtree(folder, ignore_errors=True)
    work.mkdir(parents=True)
    # built outside the crate's tree, which stays as cargo unpacked it
    run(
        [
            "perl",
            str(source / "Configure"),
            f"--prefix={out}",
            "--libdir=lib",
            f"--openssldir={out / 'etc'}",
            *OPENSSL_OPTIONS,
        ],
        cwd=work,
    )
    run(["make", f"-j{os.cpu_count() or 2}", "build_sw"], cwd=work, timeout=3600)
    run(["make", "install_sw"], cwd=work, timeout=600)
    shutil.rmtree(work)
    return out


def _nginx_source(name: str, cache: Path) -> Path:
    """nginx's release source, unpacked and patched for the library: the pinned orig tarball
    (the same for every Debian revision of the release), or the nginx-src crate's tree."""
    folder = cache / name / "nginx-src"
    marker = folder / ".ready"
    if marker.exists():
        return next(p for p in folder.iterdir() if p.is_dir())
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    if SOURCE_BUILDS[name]["crate"] is None:
        shutil.copytree(_fetched_crates(name, cache)["nginx-src"] / "nginx", folder / "nginx")
    else:
        (tarball,) = fetch_group("nginx-source", cache / "downloads" / "nginx-source")
        with tarfile.open(tarball) as archive:
            archive.extractall(folder, filter="data")
    tree = next(p for p in folder.iterdir() if p.is_dir())
    for patch in SOURCE_BUILDS[name]["patches"]:  # type: ignore[attr-defined]
        run(["patch", "-p1", "-i", str(PATCHES / patch)], cwd=tree)
    marker.touch()
    return tree


def build_nginx(name: str, cache: Path, pcre: Path) -> tuple[Path, dict[str, float]]:
    """cache/name/nginx, compiled against the library (seconds per step, when it was built)."""
    binary = cache / name / "nginx"
    if binary.is_file():
        return binary, {}
    spec = SOURCE_BUILDS[name]
    seconds: dict[str, float] = {}
    started = time.monotonic()
    ssl = build_library(name, cache)
    seconds["library"] = round(time.monotonic() - started, 1)
    started = time.monotonic()
    tree = _nginx_source(name, cache)
    prefix = cache / name / "prefix"
    run(
        [
            # the crate carries nginx's repository layout, where configure is auto/configure
            "./configure" if (tree / "configure").is_file() else "auto/configure",
            f"--prefix={prefix}",
            *spec["modules"],  # type: ignore[misc]
            # -g0 after nginx's own -g: debug information nothing here reads (nginx 1.28.3's
            # make -j2 on two idle cores: 42 s against 45 s); -O0 after its -O: the same
            # server compiled in two thirds of the CPU time (47.6 s user against 70.6 s)
            f"--with-cc-opt=-g0 -O0 -I{ssl / 'include'} -I{pcre / 'include'}",
            # static libraries only in these folders
            f"--with-ld-opt=-L{ssl / 'lib'} -L{pcre / 'lib'} {spec.get('ld_opt', '')}".strip(),
        ],
        cwd=tree,
    )
    run(["make", f"-j{os.cpu_count() or 2}"], cwd=tree, timeout=1800)
    seconds["nginx"] = round(time.monotonic() - started, 1)
    staged = binary.with_suffix(".tmp")
    shutil.copy(tree / "objs" / "nginx", staged)
    staged.replace(binary)
    return binary, seconds
