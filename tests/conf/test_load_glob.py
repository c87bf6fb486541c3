"""The loader's own listing of an include's folder (PassCache.glob) finds what glob.glob finds,
and real paths made from it are os.path.realpath's."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from nginxgen.conf.load import PassCache, load_path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    sites = tmp_path / "sites"
    sites.mkdir()
    for name in ("a.conf", "b.conf", ".hidden.conf", "c.txt", "[x].conf"):
        (sites / name).write_text("")
    (sites / "sub.conf").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "real.conf").write_text("")
    (sites / "link.conf").symlink_to(elsewhere / "real.conf")
    (sites / "broken.conf").symlink_to(tmp_path / "nowhere.conf")
    return sites


@pytest.mark.parametrize(
    "pattern", ["*.conf", ".*.conf", "*", "?.conf", "[ab].conf", "*.txt", "none*", "[[]x].conf"]
)
def test_the_listing_is_globs(folder: Path, pattern: str) -> None:
    full = str(folder / pattern)
    cache = PassCache()
    assert sorted(cache.glob(full)) == sorted(glob.glob(full))
    for path in cache.glob(full):
        assert cache.real_path(path) == os.path.realpath(path)


def test_a_folder_that_is_not_there_or_not_one(folder: Path) -> None:
    for pattern in (folder / "missing" / "*.conf", folder / "a.conf" / "*.conf"):
        assert PassCache().glob(str(pattern)) == glob.glob(str(pattern)) == []


def test_wildcards_in_the_folder_take_glob(folder: Path) -> None:
    pattern = str(folder.parent / "*" / "*.conf")
    assert sorted(PassCache().glob(pattern)) == sorted(glob.glob(pattern))


def test_a_tree_through_a_symlinked_include(folder: Path) -> None:
    main = folder.parent / "nginx.conf"
    (folder.parent / "elsewhere" / "real.conf").write_text("server_tokens off;\n")
    main.write_text(f"events {{}}\nhttp {{\n    include {folder}/l*.conf;\n}}\n")
    loaded = load_path(str(main))
    assert loaded.real[str(folder / "link.conf")] == str(folder.parent / "elsewhere" / "real.conf")
