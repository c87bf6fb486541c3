"""The repository holds everything its tests read (issue 23): no code reaches outside the clone,
and every third-party data file is listed with where it came from and under which licence."""

from __future__ import annotations

import re

from tests.paths import DATA, PROVENANCE, REPO

# A path that climbs out of the repository to a sibling folder (the sibling `shared`), Path(...).parent
# three times from a file one level down, or a join of "shared" onto a parent.
OUTSIDE = re.compile(
    r"""\.\./shared|parent\.parent\.parent|\.parent\s*/\s*["']shared["']|ROOT\.parent\b"""
)
SCANNED = ("tests", "scripts", "bench", "nginxgen")
OWN_FILES = {"README.md", "PROVENANCE.tsv"}  # ours, not third-party


def test_no_code_reads_outside_the_repository() -> None:
    offenders = []
    for folder in SCANNED:
        for path in sorted((REPO / folder).rglob("*")):
            if (
                path.suffix not in {".py", ".sh", ".toml", ""}
                or not path.is_file()
                or DATA in path.parents
            ):
                continue
            text = path.read_text(errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if OUTSIDE.search(line) and path.name != "test_self_contained.py":
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_scan_sees_a_path_outside() -> None:
    for line in (
        "ROOT.parent / " + '"' + "shared" + '"',
        "x = '" + ".." + "/shared/corpus'",
        "Path(f).parent.parent.parent",
    ):
        assert OUTSIDE.search(line), line


def test_every_data_file_has_its_provenance() -> None:
    lines = PROVENANCE.read_text().splitlines()
    header = lines[0].split("\t")
    assert header == ["repo", "commit", "path", "license", "kind", "local_path"]
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    listed = {row["local_path"] for row in rows}
    assert all(row["repo"] and row["commit"] and row["path"] and row["license"] for row in rows)
    present = {
        str(path.relative_to(DATA))
        for path in DATA.rglob("*")
        if path.is_file() and path.name not in OWN_FILES and not path.name.startswith("_LICENSE")
    }
    assert present - listed == set(), "files without provenance"
    assert listed - present == set(), "provenance of files that are not here"


def test_every_data_repository_keeps_its_licence() -> None:
    groups = [*sorted((DATA / "corpus").iterdir()), DATA / "layouts" / "nginx-org-packages"]
    for group in [*groups, DATA / "mozilla", DATA / "certbot"]:
        assert sorted(group.glob("_LICENSE*")), f"{group.relative_to(DATA)} has no licence text"


# What users read (rule pages, presets, the knowledge base, docs) cites public sources: the
# project's private reading notes and folders beside the clone are no source a user can open.
PRIVATE_CITATION = re.compile(r"nginx-tls-facts|\bfacts (§|P\d)|\.\./shared|\bshared/(docs|data)/")
READ_BY_USERS = ("docs", "presets", "nginxgen/knowledge", "examples", "README.md")


def test_user_facing_text_cites_only_public_sources() -> None:
    offenders = []
    for name in READ_BY_USERS:
        root = REPO / name
        for path in sorted([root] if root.is_file() else root.rglob("*")):
            if not path.is_file() or path.suffix not in {".md", ".yaml", ".toml", ".conf", ".json"}:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if PRIVATE_CITATION.search(line):
                    offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:100]}")
    for path in sorted((REPO / "nginxgen").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PRIVATE_CITATION.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:100]}")
    assert offenders == []


def test_the_citation_scan_sees_a_private_note() -> None:
    assert PRIVATE_CITATION.search("Sources: nginx-tls-facts §2, P5")
    assert PRIVATE_CITATION.search("source: facts §1.8")
    assert not PRIVATE_CITATION.search("ssl_session_cache shared:SSL:10m;")
