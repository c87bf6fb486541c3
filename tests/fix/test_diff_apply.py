"""Every `--diff` nginxgen prints applies with the real `patch -p0` and the real `git apply -p0`
(issue 35) and leaves, byte for byte (and mode for mode), what the same run without `--diff`
writes: a file without a final newline (the issue's repro), CRLF files (the lines a fix writes
keep CRLF), new files and folders, a symlink replaced by a file, several files in one diff, names
given relative and absolute, files outside the working folder. `generate --diff` exits 1 when it
shows a change and 0 when there is none, as `lint --diff`. A property test sends random edits of
random texts through the one diff writer."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nginxgen.files.diff import FileDiff, unified
from tests.helpers import CertPair
from tests.patching import TOOLS, apply_to_copies, copies, require_tools, state

LINT = ("lint", "--nginx-version", "1.26.3", "--tls-library", "openssl-3.0", "--unsafe-fixes")
ISSUE = ("lint", "--nginx-version", "1.22.1", "--tls-library", "openssl-3.0", "--unsafe-fixes")
TARGET = ("--nginx-version", "1.26.3", "--tls-library", "openssl-3.0")
pytestmark = pytest.mark.live  # every test applies its diff with the real patch and git apply


@pytest.fixture(autouse=True)
def tools() -> None:
    require_tools()


def nginxgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    # a strict stdout, as under a UTF-8 locale: bytes that are not UTF-8 must still go out
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", *args],
        cwd=cwd,
        capture_output=True,
        check=False,
        env=env,
    )


def shown_then_written(
    args: tuple[str, ...], tree: Path, cwd: Path, inside: str = "."
) -> tuple[bytes, dict[str, object]]:
    """Run with --diff (exit 1), copy the tree, run for real, apply the diff to the copies with
    each tool: the diff, and each copy's state beside the real run's as "written"."""
    before = state(tree)
    shown = nginxgen(*args, "--diff", cwd=cwd)
    assert shown.returncode == 1, shown.stderr.decode()
    assert state(tree) == before  # --diff writes nothing
    trees = copies(tree)
    real = nginxgen(*args, cwd=cwd)
    assert real.returncode in (0, 1), real.stderr.decode()  # 1: findings remain
    written = state(tree)
    assert written != before
    return shown.stdout, {"written": written, **apply_to_copies(shown.stdout, trees, inside)}


def same(states: dict[str, object]) -> dict[str, object]:
    return {tool: states["written"] for tool in ("written", *TOOLS)}


@pytest.mark.parametrize("form", ["relative", "absolute"])
def test_file_without_final_newline(tmp_path: Path, form: str) -> None:
    # issue 35's repro: the diff lacked "\ No newline at end of file", patch said "malformed"
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "ssl.conf").write_bytes(b"ssl_protocols TLSv1 TLSv1.2;")
    path = "ssl.conf" if form == "relative" else str(tree / "ssl.conf")
    diff, states = shown_then_written((*ISSUE, path), tree, tree)
    assert diff.startswith(b"diff --git ssl.conf ssl.conf\n--- ssl.conf\n+++ ssl.conf\n")
    assert diff.count(b"\n\\ No newline at end of file\n") == 2  # the old and the new last line
    assert states == same(states)
    assert states["written"] == {"ssl.conf": ("file", b"ssl_protocols TLSv1.2 TLSv1.3;", 0o644)}


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "latin1.conf").write_bytes(b"# caf\xe9\nssl_protocols TLSv1 TLSv1.2;\n")
    diff, states = shown_then_written((*ISSUE, "latin1.conf"), tree, tree)
    assert b" # caf\xe9\n" in diff  # the context line, byte for byte
    assert states == same(states)


def test_crlf_several_files_and_a_symlinked_one(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    (tree / "sub").mkdir(parents=True)
    (tree / "avail").mkdir()
    # CRLF and no final newline; NGX302's fix writes a new line (http2 on;) after the listen
    (tree / "site.conf").write_bytes(
        b"server {\r\n    listen 443 ssl http2;\r\n    ssl_protocols TLSv1 TLSv1.2;\r\n}"
    )
    (tree / "sub" / "ssl.conf").write_bytes(b"# LF\nssl_protocols TLSv1 TLSv1.2;\n")
    (tree / "avail" / "x.conf").write_bytes(b"ssl_protocols SSLv3 TLSv1.2;\n")
    (tree / "enabled.conf").symlink_to("avail/x.conf")
    paths = ("site.conf", str(tree / "sub" / "ssl.conf"), "enabled.conf")
    diff, states = shown_then_written((*LINT, *paths), tree, tree)
    assert states == same(states)
    written = states["written"]
    assert isinstance(written, dict)
    assert written["site.conf"][1] == (
        b"server {\r\n    listen 443 ssl;\r\n    http2 on;\r\n"
        b"    ssl_protocols TLSv1.2 TLSv1.3;\r\n}"
    )
    assert written["enabled.conf"] == ("link", "avail/x.conf", 0)  # edited at its target
    assert b"diff --git avail/x.conf avail/x.conf\n" in diff
    assert diff.count(b"diff --git ") == 3


def test_files_outside_the_working_folder(tmp_path: Path) -> None:
    # both tools refuse absolute names and "..": the names are relative to the folder holding
    # every file, which the first line names with the commands to run there
    root = tmp_path / "root"
    (root / "work").mkdir(parents=True)
    (root / "conf" / "sub").mkdir(parents=True)
    (root / "conf" / "a.conf").write_bytes(b"ssl_protocols TLSv1 TLSv1.2;\n")
    (root / "conf" / "sub" / "b.conf").write_bytes(b"ssl_protocols TLSv1.1 TLSv1.2;")
    paths = ("../conf/a.conf", str(root / "conf" / "sub" / "b.conf"))
    diff, states = shown_then_written((*LINT, *paths), root, root / "work", inside="conf")
    base = os.path.realpath(root / "conf")
    first = diff.split(b"\n", 1)[0].decode()
    assert first.startswith(f"# nginxgen: the names below are relative to {base};"), first
    assert f"patch -p0 -d {base} < FILE, or git -C {base} apply -p0 FILE" in first
    assert b"diff --git a.conf a.conf\n" in diff and b"diff --git sub/b.conf sub/b.conf\n" in diff
    assert states == same(states)


def generate(pair: CertPair, out: str, *extra: str) -> tuple[str, ...]:
    return (
        "generate", "--preset", "intermediate", *TARGET, "--domain", "example.com",
        "--cert", str(pair.cert), "--key", str(pair.key), "--out", out, *extra,
    )  # fmt: skip


def test_generate_out_new_folder_and_exit_codes(tmp_path: Path, ecdsa_pair: CertPair) -> None:
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "keep.txt").write_bytes(b"unrelated\n")
    diff, states = shown_then_written(generate(ecdsa_pair, "out"), tree, tree)
    assert diff.count(b"new file mode 100644\n--- /dev/null\n+++ out/") >= 4
    assert states == same(states)
    again = nginxgen(*generate(ecdsa_pair, "out", "--diff"), cwd=tree)
    assert (again.returncode, again.stdout) == (0, b"")  # nothing to change: exit 0


def test_generate_out_replaces_edits_and_a_symlink(tmp_path: Path, ecdsa_pair: CertPair) -> None:
    tree = tmp_path / "t"
    tree.mkdir()
    assert nginxgen(*generate(ecdsa_pair, str(tree / "out")), cwd=tree).returncode == 0
    (tree / "out" / "tls.conf").write_bytes(b"# my edits, CRLF\r\nssl_protocols TLSv1;")
    (tree / "outside.conf").write_bytes(b"precious\n")
    redirect = tree / "out" / "http-redirect.conf"
    redirect.unlink()
    redirect.symlink_to("../outside.conf")  # --force replaces it, never writes through it
    args = generate(ecdsa_pair, str(tree / "out"), "--force")
    diff, states = shown_then_written(args, tree, tree)
    assert b"deleted file mode 120000\n" in diff and b"-../outside.conf\n" in diff
    assert states == same(states)
    written = states["written"]
    assert isinstance(written, dict)
    assert written["outside.conf"] == ("file", b"precious\n", 0o644)
    assert written["out/http-redirect.conf"][0] == "file"


def test_generate_into_crlf_tree(tmp_path: Path, ecdsa_pair: CertPair) -> None:
    tree = tmp_path / "t"
    (tree / "nginx" / "conf.d").mkdir(parents=True)
    (tree / "nginx" / "nginx.conf").write_bytes(
        b"events {}\r\nhttp {\r\n    include conf.d/*.conf;\r\n}"
    )
    args = (
        "generate", "--preset", "intermediate", *TARGET, "--domain", "example.com",
        "--cert", str(ecdsa_pair.cert), "--key", str(ecdsa_pair.key), "--into", "nginx",
    )  # fmt: skip
    diff, states = shown_then_written(args, tree, tree)
    assert b"\n+    include nginxgen-tls.conf;\r\n" in diff  # the line it adds keeps CRLF
    assert states == same(states)
    written = states["written"]
    assert isinstance(written, dict)
    main = written["nginx/nginx.conf"][1]
    assert isinstance(main, bytes) and main.count(b"\r\n") == main.count(b"\n"), main
    again = nginxgen(*args, "--diff", cwd=tree)
    assert (again.returncode, again.stdout) == (0, b""), again.stderr


# --- the diff writer alone, on random texts and edits ----------------------------------------

LINE = st.text(alphabet="ab \t\r;{}#\x0c\x85é", max_size=6)


@st.composite
def text_and_edit(draw: st.DrawFn) -> tuple[str | None, str]:
    """A text (None: no file yet) and the text after random line edits; each with LF, CRLF or
    mixed ends, with or without a final newline, or empty."""
    lines = draw(st.lists(LINE, max_size=8))
    old_end = draw(st.sampled_from(["\n", "\r\n"]))
    old = old_end.join(lines) + draw(st.sampled_from(["", old_end]))
    new_lines = list(lines)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(new_lines)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        if what == "insert" or at == len(new_lines):
            new_lines.insert(at, draw(LINE))
        elif what == "delete":
            del new_lines[at]
        else:
            new_lines[at] = draw(LINE)
    new_end = draw(st.sampled_from([old_end, "\n", "\r\n"]))
    new = new_end.join(new_lines) + draw(st.sampled_from(["", new_end]))
    return (None if draw(st.booleans()) and not lines else old), new


NAMES = ["a.conf", "sub/b c.conf", "new/deeper/n.conf", 'q"uote\\.conf']


@settings(max_examples=60, deadline=None, database=None)
@given(changes=st.lists(text_and_edit(), min_size=1, max_size=len(NAMES)))
def test_random_edits_apply_with_both_tools(
    tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[str | None, str]]
) -> None:
    tree = tmp_path_factory.mktemp("random") / "t"
    tree.mkdir()
    expected = {}
    for name, (old, new) in zip(NAMES, changes, strict=False):
        if old is not None:
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            (tree / name).write_bytes(old.encode())
        expected[name] = ("file", new.encode(), 0o644)
    with contextlib.chdir(tree):  # names relative to the working folder, as a run gives them
        diff = unified(
            FileDiff(str(tree / name), old, new)
            for name, (old, new) in zip(NAMES, changes, strict=False)
        )
    assert (diff == "") == all(old == new for old, new in changes)
    if diff:
        assert apply_to_copies(diff.encode(), copies(tree)) == {tool: expected for tool in TOOLS}
