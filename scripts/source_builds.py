"""Two real builds compiled here (issue 15): nginx from Debian's source package against AWS-LC
and BoringSSL, each library built by its Rust `-sys` crate as that crate intends.

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

SOURCE_BUILDS: dict[str, dict[str, object]] = {
    "awslc": {
        "crate": "aws-lc-sys",  # its version: scripts/cargo/awslc
        "env": {"AWS_LC_SYS_NO_PREFIX": "1"},  # nginx links against the plain SSL_* names
        "include": "aws-lc/include",
        # nginx's QUIC code knows BoringSSL's and OpenSSL's APIs, not AWS-LC's: no HTTP/3
        "modules": ["--with-http_ssl_module", "--with-http_v2_module"],
        "patches": ["nginx-1.26-aws-lc.patch"],
    },
    "boringssl": {
        "crate": "boring-sys",  # its version: scripts/cargo/boringssl
        "env": {},
        "include": "deps/boringssl/include",
        "modules": ["--with-http_ssl_module", "--with-http_v2_module", "--with-http_v3_module"],
        "patches": [],
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


def build_library(name: str, cache: Path) -> Path:
    """The library's static libs and headers under cache/name/ssl (lib/, include/)."""
    spec = SOURCE_BUILDS[name]
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
    metadata = json.loads(
        run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            cwd=project,
            stdout_only=True,
        )
    )
    manifest = next(p["manifest_path"] for p in metadata["packages"] if p["name"] == crate)
    include = Path(manifest).parent / str(spec["include"])
    staging = out.with_name("ssl.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib").mkdir(parents=True)
    for lib, path in libs.items():
        shutil.copy(path, staging / "lib" / lib)
    # The crate's own copy of the library's headers: the include folder it writes into its
    # build output belongs to its prefixed build (BORINGSSL_PREFIX), not to these libraries.
    shutil.copytree(include, staging / "include")
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)
    return out


def _nginx_source(name: str, cache: Path) -> Path:
    """nginx's release source (the pinned orig tarball, the same for every Debian revision of
    the release), unpacked and patched for the library."""
    folder = cache / name / "nginx-src"
    marker = folder / ".ready"
    if marker.exists():
        return next(p for p in folder.iterdir() if p.is_dir())
    shutil.rmtree(folder, ignore_errors=True)
    (tarball,) = fetch_group("nginx-source", cache / "downloads" / "nginx-source")
    folder.mkdir(parents=True)
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
            "./configure",
            f"--prefix={prefix}",
            *spec["modules"],  # type: ignore[misc]
            f"--with-cc-opt=-I{ssl / 'include'} -I{pcre / 'include'}",
            # static libraries only in these folders; libssl needs the C++ runtime, which
            # nginx's link line names before -lssl: --no-as-needed keeps it (gcc's default
            # --as-needed drops a library nothing before it used)
            f"--with-ld-opt=-L{ssl / 'lib'} -L{pcre / 'lib'} "
            "-Wl,--no-as-needed -lstdc++ -lpthread -Wl,--as-needed",
        ],
        cwd=tree,
    )
    run(["make", f"-j{os.cpu_count() or 2}"], cwd=tree, timeout=1800)
    seconds["nginx"] = round(time.monotonic() - started, 1)
    staged = binary.with_suffix(".tmp")
    shutil.copy(tree / "objs" / "nginx", staged)
    staged.replace(binary)
    return binary, seconds
