"""Write nginxgen/knowledge/releases.json: the releases of nginx and of the TLS libraries, per
branch, from the release tags of their git repositories (issue 35).

    python scripts/build_releases.py                 # from the committed lists (what CI checks)
    python scripts/build_releases.py --refresh \\
        --repo nginx/nginx=CLONE --repo quictls/openssl=CLONE --repo libressl/portable=CLONE \\
        --repo aws/aws-lc=CLONE --repo openssl/release-metadata=CLONE

A clone's facts are kept in tests/data/releases/ in a compact form, one file per repository, so
that a clone of this repository is all the build (and its test, tests/knowledge/test_releases.py) needs:
- a tag repository: its `git tag` list, one tag a line, under a header naming the commit of its
  default branch and that commit's date;
- github.com/openssl/release-metadata (OpenSSL's own release announcements, for the releases
  after the newest OpenSSL tag this machine has): the X.Y.0 of each branch whose release date
  (data.json) is past, the versions its security advisories tell users to upgrade to (secadv/*.txt, "users should upgrade to OpenSSL X", leaving out those
  announced "once it is released") and the ones its news says are available (newsflash.md).
`--refresh` rewrites those lists (and their rows in tests/data/PROVENANCE.tsv) from the clones
given, then builds; `--repo` without `--refresh` builds from the clones and leaves the lists.

Releases that none of these repositories show (a tag that was never pushed, a release newer than
the clones) are listed with their public source in scripts/releases_extra.tsv.

A branch is MAJOR.MINOR; its releases are numbered without gaps, so the first and newest patch
number stand for all of them (OpenSSL 1.x letter releases, 1.1.1w, count as their number).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "nginxgen" / "knowledge" / "releases.json"
LISTS = REPO / "tests" / "data" / "releases"
PROVENANCE = REPO / "tests" / "data" / "PROVENANCE.tsv"
EXTRA = Path(__file__).resolve().parent / "releases_extra.tsv"

Branches = dict[tuple[int, int], tuple[int, int]]

ABOUT = (
    "The releases of nginx and of the TLS libraries, per branch (MAJOR.MINOR): the newest patch "
    "release, or [first, newest] when the branch did not start at 0. Each project numbers a "
    "branch's releases without gaps (checked against the sources below), so every number in "
    "between is a release too. OpenSSL 1.x letter releases (1.1.1w) count as their number. "
    "`maintained`: how many of the newest branches still get releases (nginx: stable and "
    "mainline); without it every branch may. `minors_ahead`: how many minor numbers past the "
    "newest known a new release may plausibly be (nginx: a stable and a mainline a year); without "
    "it any minor of the newest major. Read by nginxgen/knowledge/target.py: a version outside these is "
    "refused, a plausible newer one is taken with a warning. Written by scripts/build_releases.py."
)

# An OpenSSL release tag: OpenSSL_1_1_1w (letters count as their number), openssl-3.3.2. Betas,
# FIPS-module and engine tags have other shapes and do not match.
_OPENSSL = r"(?:OpenSSL_(\d+)_(\d+)_(\d+)[a-z]{0,2}|openssl-(\d+)\.(\d+)\.(\d+))"


@dataclass(frozen=True)
class Product:
    key: str  # the name in releases.json (nginx, or a library kind of nginxgen/knowledge)
    display: str
    repo: str  # owner/name on GitHub whose tags it is read from
    tag: re.Pattern[str]  # a release tag; its groups are the version's numbers
    maintained: int | None = None
    minors_ahead: int | None = None


PRODUCTS = (
    # nginx: a stable and a mainline branch get releases, and at most one of each a year
    Product("nginx", "nginx", "nginx/nginx", re.compile(r"^release-(\d+)\.(\d+)\.(\d+)$"), 2, 2),
    # OpenSSL's own repository is too big to mirror here; QuicTLS's fork carries its tags
    Product("openssl", "OpenSSL", "quictls/openssl", re.compile(rf"^{_OPENSSL}$")),
    # a QuicTLS release is named after the OpenSSL release it patches
    Product("quictls", "QuicTLS", "quictls/openssl", re.compile(rf"^{_OPENSSL}[+-]quic\d*$")),
    Product("libressl", "LibreSSL", "libressl/portable", re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")),
    # AWS-LC-FIPS-* tags are the FIPS module's own numbering, not AWS-LC releases
    Product("aws-lc", "AWS-LC", "aws/aws-lc", re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")),
)
METADATA = "openssl/release-metadata"
ADVISED = re.compile(
    r"users should upgrade to OpenSSL (\d+\.\d+\.\d+)[a-z]{0,2}(\.? once it is released)?"
)
ANNOUNCED = re.compile(r"OpenSSL (\d+\.\d+\.\d+)[a-z]{0,2} is now available")


# --- the committed lists ------------------------------------------------------------------------


@dataclass(frozen=True)
class RepoList:
    """One repository's facts: its tags, or (release-metadata) `file version` lines."""

    repo: str
    commit: str
    date: str  # the commit's date, YYYY-MM-DD
    lines: tuple[str, ...]

    def header(self) -> str:
        what = "git tag list" if self.repo != METADATA else "OpenSSL versions released, per file,"
        return f"# {what} of github.com/{self.repo} at commit {self.commit} ({self.date})"


def list_path(repo: str) -> Path:
    return LISTS / f"{repo.replace('/', '+')}.txt"


def read_list(repo: str) -> RepoList:
    text = list_path(repo).read_text(encoding="utf-8").splitlines()
    match = re.match(r"# .* of github\.com/(\S+) at commit ([0-9a-f]{40}) \((\S+)\)$", text[0])
    if not match or match[1] != repo:
        raise SystemExit(f"{list_path(repo)}: no header naming github.com/{repo} and a commit")
    return RepoList(repo, match[2], match[3], tuple(text[1:]))


def write_list(facts: RepoList) -> None:
    LISTS.mkdir(parents=True, exist_ok=True)
    body = "\n".join((facts.header(), *facts.lines)) + "\n"
    list_path(facts.repo).write_text(body, encoding="utf-8")


def write_provenance(lists: Iterable[RepoList]) -> None:
    """Each list's row in tests/data/PROVENANCE.tsv (every file under tests/data has one)."""
    rows = PROVENANCE.read_text(encoding="utf-8").splitlines()
    kept = [row for row in rows if not row.split("\t")[-1].startswith("releases/")]
    for facts in lists:
        path = "refs/tags" if facts.repo != METADATA else "secadv/*.txt newsflash.md"
        kind = "tag-list" if facts.repo != METADATA else "release-list"
        local = list_path(facts.repo).relative_to(PROVENANCE.parent)
        # names and version numbers only: facts, no licensed text
        kept.append("\t".join((facts.repo, facts.commit, path, "n/a (facts)", kind, str(local))))
    PROVENANCE.write_text("\n".join(kept) + "\n", encoding="utf-8")


# --- reading a clone ----------------------------------------------------------------------------


def git(clone: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(clone), *args], capture_output=True, text=True, check=True
    ).stdout


def git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").is_dir() else path


def from_clone(repo: str, path: Path) -> RepoList:
    clone = git_dir(path)
    commit, date = git(clone, "log", "-1", "--format=%H %cs", "HEAD").split()
    if repo != METADATA:
        tags = sorted(git(clone, "tag", "--list").split())
        return RepoList(repo, commit, date, tuple(tags))
    lines: list[str] = []
    # data.json: each branch's release date ("14 Apr 2026"; a planned one is "Oct 2026")
    for branch, dates in json.loads(git(clone, "show", "HEAD:data.json")).items():
        day = str(dates.get("release", ""))
        if re.fullmatch(r"\d{1,2} \w{3} \d{4}", day) and time.strptime(
            day, "%d %b %Y"
        ) <= time.strptime(date, "%Y-%m-%d"):
            lines.append(f"data.json {branch}.0")
    for name in git(clone, "ls-tree", "--name-only", "HEAD", "secadv/", "newsflash.md").split():
        # one sentence may be wrapped over two lines: read each file as one line
        text = " ".join(git(clone, "show", f"HEAD:{name}").split())
        released = {m[1] for m in ADVISED.finditer(text) if not m[2]} | {
            m[1] for m in ANNOUNCED.finditer(text)
        }
        lines += [f"{name} {version}" for version in sorted(released, key=_version)]
    return RepoList(repo, commit, date, tuple(lines))


# --- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Extra:
    product: str
    version: tuple[int, int, int]
    source: str


def read_extra() -> list[Extra]:
    extras = []
    for line in EXTRA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        product, version, source = line.split("\t")
        extras.append(Extra(product, _version(version), source))
    return extras


def tag_versions(product: Product, tags: Iterable[str]) -> dict[tuple[int, int, int], str]:
    """Each release version the tags show, with the tag that shows it."""
    found: dict[tuple[int, int, int], str] = {}
    for tag in tags:
        match = product.tag.match(tag)
        if match:
            major, minor, patch = (int(g) for g in match.groups() if g is not None)
            found.setdefault((major, minor, patch), tag)
    return found


def branches_of(versions: Iterable[tuple[int, int, int]]) -> Branches:
    branches: Branches = {}
    for major, minor, patch in versions:
        first, last = branches.get((major, minor), (patch, patch))
        branches[(major, minor)] = (min(first, patch), max(last, patch))
    return dict(sorted(branches.items()))


def _version(text: str) -> tuple[int, int, int]:
    major, minor, patch = (int(p) for p in text.split("."))
    return major, minor, patch


def _name(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def entry(product: Product, lists: dict[str, RepoList], extras: list[Extra]) -> dict[str, object]:
    facts = lists[product.repo]
    found = tag_versions(product, facts.lines)
    first, last = min(found), max(found)
    sources = [
        f"github.com/{product.repo} tags {found[first]} to {found[last]} "
        f"(at commit {facts.commit[:12]}, {facts.date})"
    ]
    versions: set[tuple[int, int, int]] = set(found)
    if product.key == "openssl":
        meta = lists[METADATA]
        advised = {_version(line.split()[1]) for line in meta.lines}
        new = sorted(advised - versions)
        versions |= advised
        sources.append(
            f"github.com/{METADATA} at commit {meta.commit[:12]} ({meta.date}): data.json "
            f"(a branch's release date, for its .0), secadv/*.txt (\"users should upgrade "
            f'to") and newsflash.md ("is now available"), of which not tagged above: '
            f"{', '.join(_name(v) for v in new)}"
        )
    own = [e for e in extras if e.product == product.key]
    versions |= {e.version for e in own}
    sources += [f"{_name(e.version)}: {e.source}" for e in own]
    result: dict[str, object] = {"display": product.display}
    if product.maintained is not None:
        result["maintained"] = product.maintained
    if product.minors_ahead is not None:
        result["minors_ahead"] = product.minors_ahead
    result["source"] = "; ".join(sources)
    result["branches"] = branches_of(versions)
    return result


def render(table: dict[str, dict[str, object]]) -> str:
    """releases.json as committed: one key a line, each product's branches on one line."""
    out = ["{", f" {json.dumps('about')}: {json.dumps(ABOUT)},"]
    for number, (key, fields) in enumerate(table.items()):
        out.append(f" {json.dumps(key)}: {{")
        items = list(fields.items())
        for index, (name, value) in enumerate(items):
            comma = "," if index < len(items) - 1 else ""
            if name == "branches":
                assert isinstance(value, dict)
                text = ", ".join(
                    f'"{b[0]}.{b[1]}": ' + (str(last) if first == 0 else f"[ {first}, {last} ]")
                    for b, (first, last) in value.items()
                )
                out.append(f'  "branches": {{{text}}}{comma}')
            else:
                out.append(f"  {json.dumps(name)}: {json.dumps(value)}{comma}")
        out.append(" }" + ("," if number < len(table) - 1 else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def build(lists: dict[str, RepoList], extras: list[Extra]) -> str:
    return render({p.key: entry(p, lists, extras) for p in PRODUCTS})


REPOS = sorted({p.repo for p in PRODUCTS} | {METADATA})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME=CLONE")
    parser.add_argument("--refresh", action="store_true", help="rewrite the committed lists")
    parser.add_argument("--check", action="store_true", help="exit 1 if releases.json differs")
    args = parser.parse_args(argv)
    clones = dict(item.split("=", 1) for item in args.repo)
    unknown = set(clones) - set(REPOS)
    if unknown or (args.refresh and set(clones) != set(REPOS)):
        parser.error(f"--repo takes each of {', '.join(REPOS)} (--refresh needs all)")
    lists = {
        repo: from_clone(repo, Path(clones[repo])) if repo in clones else read_list(repo)
        for repo in REPOS
    }
    if args.refresh:
        for facts in lists.values():
            write_list(facts)
        write_provenance(lists.values())
    text = build(lists, read_extra())
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("releases.json is current" if same else "releases.json differs", file=sys.stderr)
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
