"""Where a tree keeps its sites, read from its own http{}-level include globs.

Not from a distribution's name: `include .../sites-enabled/*;` with a `sites-available/` beside
it means "the file in sites-available, a relative symlink in sites-enabled" (Debian's way);
any other glob (`conf.d/*.conf`, `http.d/*.conf`, `site-confs/*.conf`) means "a file there,
named so that the glob matches it". A tree with no glob (nginx's source default: one file) gets
a folder of its own, `nginxgen.d/`, and one `include nginxgen.d/*.conf;` line, so that a later
site is a new file and nothing else.
"""

from __future__ import annotations

import fnmatch
import os

from nginxgen.base.records import record
from nginxgen.conf.config import Config
from nginxgen.conf.load import Stmt
from nginxgen.conf.tree import is_glob

OWN_FOLDER = "nginxgen.d"


@record(frozen=True)
class Place:
    folder: str  # where the files go (absolute)
    pattern: str  # the glob's file pattern
    enabled: str | None = None  # with an -available folder: the -enabled folder for the symlinks
    include: Stmt | None = None  # the include statement that reads them; None: one is needed

    def name_for(self, stem: str) -> str:
        """A file name for `stem` that this place's glob reads (`*.conf` -> `stem.conf`)."""
        name = file_name(self.pattern, stem)
        if name is None:
            raise ValueError(f"no file name matches {self.pattern!r}")
        return name

    def paths(self, stem: str) -> tuple[str, str | None]:
        """(the file to write, the symlink that enables it or None)."""
        name = self.name_for(stem)
        file = os.path.join(self.folder, name)
        link = os.path.join(self.enabled, name) if self.enabled else None
        return file, link


def file_name(pattern: str, stem: str) -> str | None:
    """A file name for `stem` that `pattern` matches (`*.conf` -> `stem.conf`), or None: a
    glob with no `*` (`http[.]conf`, `site?.conf`) reads names fixed in advance, not new ones."""
    if fnmatch.fnmatchcase(stem + ".conf", pattern):
        return stem + ".conf"
    if pattern.count("*") == 1 and not is_glob(pattern.replace("*", "")):
        return pattern.replace("*", stem)
    return None


def glob_includes(config: Config, stems: list[str]) -> list[tuple[Stmt, str]]:
    """http{}-level includes whose file name is a glob (as nginx counts one) that reads a new
    file of each of `stems`, with their pattern here (absolute)."""
    out = []
    for stmt in config.http.get("include", []):
        if not stmt.args:
            continue
        pattern = config.loaded.here(stmt.args[0])
        folder, name = os.path.split(pattern)
        if (
            is_glob(name)
            and not is_glob(folder)
            and all(file_name(name, stem) is not None for stem in stems)
        ):
            out.append((stmt, pattern))
    return out


def find_place(config: Config, main: str, stems: list[str]) -> Place:
    """Where the files of `stems` go: beside the tree's own sites, as its include globs read
    them; a tree with no glob that takes them gets a folder of its own."""
    includes = glob_includes(config, stems)
    for stmt, pattern in includes:
        folder, name = os.path.split(pattern)
        if folder.endswith("-enabled"):
            available = folder.removesuffix("-enabled") + "-available"
            if os.path.isdir(available):
                return Place(available, name, folder, stmt)
    if includes:
        stmt, pattern = includes[-1]  # sites come after shared snippets
        folder, name = os.path.split(pattern)
        return Place(folder, name, None, stmt)
    return Place(os.path.join(os.path.dirname(os.path.abspath(main)), OWN_FOLDER), "*.conf")
