"""The excerpts files the table scripts read (tests/data/nginx_*_sources.txt): for each nginx
release tag, the verbatim lines of its sources a script parses, with identical excerpts of
consecutive releases stored once, so that a table can be rebuilt (by a test, byte for byte)
where no clone of nginx is.

    release 1.18.0 <commit>           one line per release tag, oldest first
    === src/http/x.c @ 1.18.0..1.19.2, 1.20.0..1.31.4
    <the excerpt of that file, the same in those releases>
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from build_directive_tables import Git, tags

HEADER = "=== "  # starts each excerpt: `=== path @ first..last, first..last`


def _spans(indexes: list[int], releases: list[str]) -> str:
    spans, start = [], indexes[0]
    for previous, current in zip(indexes, [*indexes[1:], None], strict=True):
        if current != previous + 1:
            spans.append(f"{releases[start]}..{releases[previous]}")
            if current is not None:
                start = current
    return ", ".join(spans)


def collect(git: Git, cut: Callable[[dict[str, str]], dict[str, str]], script: str) -> str:
    """The excerpts file's text from every release tag of the clone: `cut` takes a release's
    C sources under src/ (path -> text) and returns each file's excerpt ("" or absent: none);
    `script`: the file name of the script that reads them."""
    releases: list[str] = []
    commits: list[str] = []
    held: dict[tuple[str, str], list[int]] = {}  # (path, excerpt) -> release indexes
    for index, (version, tag) in enumerate(tags(git)):
        releases.append(".".join(map(str, version)))
        commits.append(git.run("rev-list", "-n", "1", tag).strip())
        listed = git.run("ls-tree", "-r", "--name-only", tag, "src/").split()
        texts = {path: git.read(tag, path) for path in listed if path.endswith(".c")}
        for path, excerpt in cut(texts).items():
            if excerpt:
                held.setdefault((path, excerpt), []).append(index)
    title = [
        "# Excerpts of nginx's sources (github.com/nginx/nginx release tags, BSD-2-Clause) that",
        f"# scripts/{script} reads; written by it with --repo, do not edit.",
    ]
    lines = [*title, *(f"release {r} {c}" for r, c in zip(releases, commits, strict=True))]
    for (path, excerpt), indexes in sorted(held.items(), key=lambda i: (i[0][0], i[1][0])):
        lines.append(f"{HEADER}{path} @ {_spans(indexes, releases)}")
        lines.append(excerpt)
    return "\n".join(lines)


def sections(text: str) -> tuple[dict[str, str], list[tuple[str, str, list[int]]]]:
    """The releases (version -> commit, oldest first) of an excerpts file, and each excerpt:
    (path, text, the indexes of the releases that hold it)."""
    commits: dict[str, str] = {}
    parts = text.split("\n" + HEADER)
    for line in parts[0].splitlines():
        if line.startswith("release "):
            _, version, commit = line.split()
            commits[version] = commit
    releases = list(commits)
    out = []
    for part in parts[1:]:
        header, _, body = part.partition("\n")
        path, _, spans = header.partition(" @ ")
        indexes = []
        for span in spans.split(", "):
            first, _, last = span.partition("..")
            indexes.extend(range(releases.index(first), releases.index(last) + 1))
        out.append((path, body, indexes))
    return commits, out


def main(
    description: str,
    excerpts: Path,
    out: Path,
    extract: Callable[[Git], str],
    build: Callable[[str], str],
) -> None:
    """A table script's command line: with --repo, write the excerpts from the clone's release
    tags first; then the table, from the excerpts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repo", type=Path, help="a clone of nginx/nginx with its tags")
    args = parser.parse_args()
    if args.repo is not None:
        excerpts.write_text(extract(Git(args.repo)))
        print(f"wrote {excerpts}")
    out.write_text(build(excerpts.read_text()))
    print(f"wrote {out}")
