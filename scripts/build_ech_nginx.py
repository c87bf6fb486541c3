"""Build nginx with Encrypted Client Hello: a release >= 1.29.4 against OpenSSL 4.0.

    python scripts/build_ech_nginx.py --nginx-repo NGINX_GIT --tag release-1.30.4 \\
        --ssl OPENSSL_PREFIX --pcre PCRE2_PREFIX --out DIR [--jobs 2]
    python scripts/build_ech_nginx.py --nginx-source nginx-1.30.4.tar.gz ...

nginx has the `ssl_ech_file` directive and the `$ssl_ech_status` and
`$ssl_ech_outer_server_name` variables from 1.29.4 (https://nginx.org/en/CHANGES, 1.29.4), and
they work only when the TLS library has OpenSSL's ECH API (`OSSL_ECHSTORE`, OpenSSL 4.0);
built against any other library nginx warns "ssl_ech_file is not supported on this platform,
ignored" (src/event/ngx_event_openssl.c, ngx_ssl_ech_files). No registry reachable here serves
such a build, so this script makes one from sources at hand:

- nginx from a git checkout of nginx's repository (`git archive` of a release tag) or from a
  release tarball;
- OpenSSL 4.0 as an installed prefix with the static `lib/libssl.a`, `lib/libcrypto.a` and
  `include/` (scripts/provision.py's `openssl40` build keeps one in
  `.cache/builds/openssl40/ssl`, compiled from the pinned `openssl-src` crate with
  `no-shared no-module no-tests`);
- PCRE2 as a prefix with the static `lib/libpcre2-8.a` and `include/` (provision's
  `.cache/builds/pcre2`).

The binary is DIR/nginx; `DIR/nginx -V` names the version and the library. The proofs this
build serves are recorded in docs/live-verification.md ("Encrypted Client Hello on nginx") and
the facts in nginxgen/knowledge/ech.toml, each with the command that reproduces it
(scripts/ech_nginx_proof.py). The tests never need this build: it is the live proof.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

MODULES = [
    "--with-http_ssl_module",
    "--with-http_v2_module",
    "--with-http_v3_module",
    "--with-http_realip_module",
    "--with-stream",
    "--with-stream_ssl_module",
    "--with-stream_ssl_preread_module",
]


def fail(message: str) -> None:
    print(f"build_ech_nginx: {message}", file=sys.stderr)
    raise SystemExit(1)


def run(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        fail(f"{' '.join(argv[:3])} failed: {tail}")


def unpack(args: argparse.Namespace, work: Path) -> Path:
    """The nginx source tree under work, from the tag of a git repository or a tarball."""
    if args.nginx_repo:
        archive = work / "nginx.tar"
        with archive.open("wb") as out:
            done = subprocess.run(
                ["git", "-C", str(args.nginx_repo), "archive", "--prefix=nginx/", args.tag],
                stdout=out,
                stderr=subprocess.PIPE,
                check=False,
            )
        if done.returncode != 0:
            fail(f"git archive {args.tag} in {args.nginx_repo}: {done.stderr.decode().strip()}")
    else:
        archive = args.nginx_source
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    return next(p for p in work.iterdir() if p.is_dir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--nginx-repo", type=Path, help="a git clone of nginx's repository")
    source.add_argument("--nginx-source", type=Path, help="an nginx release tarball")
    parser.add_argument("--tag", default="release-1.30.4", help="with --nginx-repo")
    parser.add_argument("--ssl", type=Path, required=True, help="OpenSSL 4.0 install prefix")
    parser.add_argument("--pcre", type=Path, required=True, help="PCRE2 prefix (static lib)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    for needed in (args.ssl / "lib" / "libssl.a", args.ssl / "include" / "openssl" / "ech.h"):
        if not needed.is_file():
            fail(f"{needed} is missing: --ssl must be an OpenSSL 4.0 prefix (static libraries)")
    if not (args.pcre / "lib" / "libpcre2-8.a").is_file():
        fail(f"{args.pcre / 'lib' / 'libpcre2-8.a'} is missing")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=args.out) as scratch:
        tree = unpack(args, Path(scratch))
        configure = "./configure" if (tree / "configure").is_file() else "auto/configure"
        run(
            [
                configure,
                f"--prefix={args.out / 'prefix'}",
                *MODULES,
                f"--with-cc-opt=-I{args.ssl / 'include'} -I{args.pcre / 'include'}",
                f"--with-ld-opt=-L{args.ssl / 'lib'} -L{args.pcre / 'lib'}",
            ],
            cwd=tree,
        )
        run(["nice", "make", f"-j{args.jobs}"], cwd=tree)
        staged = args.out / "nginx.tmp"
        shutil.copy(tree / "objs" / "nginx", staged)
        staged.replace(args.out / "nginx")
    (args.out / "prefix" / "logs").mkdir(parents=True, exist_ok=True)
    seconds = round(time.monotonic() - started)
    version = subprocess.run(
        [str(args.out / "nginx"), "-V"], capture_output=True, text=True, check=False
    ).stderr.splitlines()
    named = [line for line in version if "version" in line or "built with" in line]
    print(f"build_ech_nginx: {args.out / 'nginx'} in {seconds} s: {' / '.join(named)}")
    os.sync()


if __name__ == "__main__":
    main()
