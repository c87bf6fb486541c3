"""Where a config tree lives: the folders its absolute paths name, where they are found here, the
folder a command may write in, and what it read outside that folder.

A tree is often not where nginx reads it: a copy of /etc/nginx in a repository or a temporary
folder keeps `include /etc/nginx/conf.d/*.conf;` as it was. Followed as written, such an include
reads the host's files instead of the copy's, and a command that adds files next to them writes
into the host's /etc/nginx. Every command that reads a tree takes its map from here: given
(`--map /etc/nginx=DIR`, a settings file, an editor setting), from the binary's `nginx -V`
(`--conf-path`), or inferred when the main file lies outside the folder its absolute includes
name (said in one line).
"""

from __future__ import annotations

import os

from nginxgen.base.errors import NginxgenError

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Iterable

PathMap = list[tuple[str, str]]  # (folder as the config names it, folder where it is here)


def is_glob(name: str) -> bool:
    """Whether nginx reads `include name` as a glob: ngx_conf_include asks strpbrk(name, "*?[")
    (any of the three, wherever it is; a glob that matches no file is fine, a plain name must be
    there). Every part of nginxgen that asks "is this include a glob" asks here."""
    return any(char in name for char in "*?[")


def map_path(path: str, path_map: PathMap) -> str:
    """Where a path the config names is found here: a repository that mirrors /etc/nginx keeps
    /etc/nginx/snippets/ssl.conf as nginx/snippets/ssl.conf (`--map /etc/nginx=nginx`)."""
    for source, here in path_map:
        if path == source or path.startswith(source + "/"):
            return here + path[len(source) :]
    return path


def parse_map(entries: list[str], base: str, where: str = "--map") -> PathMap:
    """`FOLDER=HERE` items -> (FOLDER, absolute HERE) pairs, longest FOLDER first; a relative
    HERE is taken from `base` (the working folder, or a settings file's folder)."""
    pairs = []
    for entry in entries:
        source, sep, here = entry.partition("=")
        if not sep or not source.startswith("/") or not here:
            raise NginxgenError(
                f"{entry!r}: expected FOLDER=HERE with an absolute FOLDER, e.g. /etc/nginx=nginx",
                where=where,
            )
        pairs.append((source, here))
    return sorted_map((s, os.path.abspath(os.path.join(base, h))) for s, h in pairs)


def sorted_map(pairs: Iterable[tuple[str, str]]) -> PathMap:
    """Normalised pairs, the longest folder first (the most specific one wins)."""
    out = [(s.rstrip("/") or "/", h.rstrip("/") or "/") for s, h in pairs]
    return sorted(out, key=lambda pair: -len(pair[0]))


class TreeMapping:
    """What the user said of where a tree's folders are, resolved once per command: the pairs
    given (`--map`, a settings file, an editor setting), and the main file the nginx binary
    reads (`nginx -V`), if a binary was given."""

    __slots__ = ("conf_path", "given")

    def __init__(self, given: PathMap | None = None, conf_path: str | None = None) -> None:
        self.given = given or []
        self.conf_path = conf_path

    def for_main(self, main: str) -> tuple[PathMap, bool]:
        """The map to load `main` with, and whether to infer the folders it leaves out: a given
        map is the whole answer; the binary's folder is one, and inference adds the others."""
        if self.given:
            return self.given, False
        return conf_path_map(self.conf_path, main), True


def flag_mapping(entries: list[str] | None, conf_path: str | None) -> TreeMapping:
    """The mapping a command's `--map FOLDER=HERE` flags give (HERE relative to the working
    folder), with the main file its nginx binary reads (`nginx -V`'s --conf-path), if any."""
    return TreeMapping(parse_map(entries or [], os.getcwd()), conf_path)


def conf_path_map(conf_path: str | None, main: str) -> PathMap:
    """The map `nginx -V` gives: the binary reads its main file at `--conf-path`; when the main
    file given lies elsewhere, it is a copy, and the folder of --conf-path is found there."""
    if not conf_path:
        return []
    named, here = os.path.dirname(conf_path), os.path.dirname(os.path.abspath(main))
    if _same_path(named, here):
        return []
    return [(named, here)]


def _same_path(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _named_root(pattern: str, here: str) -> str | None:
    """The folder an absolute include names that `here` stands for: the longest ancestor A of
    `pattern` whose next part (a plain name, not a glob) exists in `here`, so /A/conf.d/*.conf
    read from here is here/conf.d/*.conf."""

    parts = pattern.strip("/").split("/")
    for cut in range(len(parts) - 1, 0, -1):
        first = parts[cut]
        if is_glob(first) or first in ("", ".", ".."):
            continue
        if os.path.lexists(os.path.join(here, first)):
            return "/" + "/".join(parts[:cut])
    return None


def infer_map(main: str, absolute_includes: list[str], given: PathMap | None = None) -> PathMap:
    """The folders the main file's absolute includes name, mapped to the main file's folder
    when it is not that folder itself (a copy of the tree), and when the `given` map says
    nothing of them. Where two folders are named and one holds the other, the one more includes
    name wins."""
    here = os.path.dirname(os.path.abspath(main))
    given = given or []
    votes: dict[str, int] = {}
    for pattern in absolute_includes:
        if map_path(pattern, given) != pattern:
            continue
        root = _named_root(pattern, here)
        if root is None or _same_path(root, here):
            continue
        # mapped, the include would read the main file itself: the main file is not a copy of
        # that folder but a stub that includes it (linuxserver's images: /etc/nginx/nginx.conf
        # is `include /config/nginx/nginx.conf;`), and nginx reads the path as written
        if _same_path(map_path(pattern, [(root, here)]), main):
            continue
        votes[root] = votes.get(root, 0) + 1
    chosen: list[str] = [source for source, _ in given]
    for root in sorted(votes, key=lambda r: (-votes[r], len(r))):
        if not any(_nested(root, other) or _nested(other, root) for other in chosen):
            chosen.append(root)
    return sorted_map((root, here) for root in chosen[len(given) :])


def _nested(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def inside(path: str, folder: str) -> bool:
    """Whether `path` (followed through symlinks, as a write would be) lies in `folder`."""
    return _nested(os.path.realpath(path), os.path.realpath(folder))


def describe_inferred(inferred: PathMap) -> str | None:
    """The one line that says an inferred map is in use, and how to state or undo it."""
    if not inferred:
        return None
    named = " and ".join(source for source, _ in inferred)
    pairs = ", ".join(f"{source} from {here}" for source, here in inferred)
    given = " ".join(f"--map {source}={here}" for source, here in inferred)
    undo = " ".join(f"--map {source}={source}" for source, _ in inferred)
    return (
        f"reading {pairs}: the main file's includes name {named}, and the tree given is a "
        f"copy of it ({given} says so; {undo} reads the host's files instead)"
    )


def describe_conf_path(pairs: PathMap, conf_path: str | None) -> str | None:
    """The one line that says the binary's folder is read from the tree given (conf_path_map):
    the main file given is not the one the binary reads, so the tree is taken for a copy of the
    binary's folder. As silent as it is sure, it surprised a user whose machine has nginx (the
    target's default binary), where an inferred map would have been said."""
    if not pairs or not conf_path:
        return None
    source, here = pairs[0]
    return (
        f"reading {source} from {here}: the nginx binary reads {conf_path} (its --conf-path), "
        f"and the tree given is taken for a copy of {source} (--map {source}={source} reads "
        "the host's files instead)"
    )


def notes(
    inferred: PathMap,
    read: dict[str, str],
    folder: str,
    binary: PathMap | None = None,
    conf_path: str | None = None,
) -> list[str]:
    """What a command says of where it read a tree (one line each, none when nothing is to be
    said): the binary's folder read from the tree (`binary`, of the binary that reads
    `conf_path`), the inferred map, and the files it read outside `folder`."""
    lines = (
        describe_conf_path(binary or [], conf_path),
        describe_inferred(inferred),
        describe_outside(read, folder),
    )
    return [line for line in lines if line]


def describe_outside(paths: dict[str, str], folder: str) -> str | None:
    """The one line that names the files read outside the tree's folder, with their count
    (`paths`: each file as named here -> its real path, which decides)."""
    real_folder = os.path.realpath(folder)
    outside = sorted(shown for shown, real in paths.items() if not _nested(real, real_folder))
    if not outside:
        return None
    shown = ", ".join(outside[:5]) + (f" and {len(outside) - 5} more" if len(outside) > 5 else "")
    noun = "file" if len(outside) == 1 else "files"
    return f"read {len(outside)} {noun} outside {folder}: {shown}"


def suggested_map(path: str, folder: str, path_map: PathMap) -> str:
    """The --map that would have placed `path` (where a write would go here) inside `folder`:
    for the folder the config names it by (undoing `path_map`)."""
    named = path
    for source, here in path_map:
        if path == here or path.startswith(here.rstrip("/") + "/"):
            named = source + path[len(here) :]
            break
    here = os.path.abspath(folder)
    root = _named_root(named, here) or os.path.dirname(named)
    return f"--map {root}={here} would place it inside, if {here} is a copy of {root}"


def refuse_outside(
    paths: list[str], folders: list[str], what: str, path_map: PathMap | None = None
) -> None:
    """A write planned outside the folder the user gave stops the whole command (exit 2):
    nothing is written, and the line names the file and the map that would place it inside."""
    for path in paths:
        if folders and not any(inside(path, folder) for folder in folders):
            raise NginxgenError(
                f"outside {folders[0]}, {what}; nothing written "
                f"({suggested_map(path, folders[0], path_map or [])}; else give the folder "
                "that holds it)",
                where=path,
            )
