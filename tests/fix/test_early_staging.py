"""Staging fixed files while the fix loop's last pass runs (output.EarlyStaging): only texts that
still match are used, a file changed meanwhile stops everything, and no staged file is left."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.errors import NginxgenError
from nginxgen.files.writer import EarlyStaging, replace_all


def files(tmp_path: Path) -> tuple[dict[str, str | None], Path, Path]:
    a, b = tmp_path / "a.conf", tmp_path / "b.conf"
    a.write_text("a old\n")
    b.write_text("b old\n")
    b.chmod(0o640)
    return {str(a): "a old\n", str(b): "b old\n"}, a, b


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_staged_texts_are_used_and_a_text_changed_later_is_staged_again(tmp_path: Path) -> None:
    originals, a, b = files(tmp_path)
    staging = EarlyStaging(originals, {str(a): "a new\n", str(b): "b first\n"})
    changes, ready = staging.take(originals, {str(a): "a new\n", str(b): "b second\n"})
    assert set(ready) == {a}  # b's staged text is out of date: removed, staged again below
    assert leftovers(tmp_path) == [ready[a].name]
    replace_all(changes, ready)
    assert (a.read_text(), b.read_text()) == ("a new\n", "b second\n")
    assert b.stat().st_mode & 0o777 == 0o640
    assert leftovers(tmp_path) == []


def test_a_file_changed_before_the_write_stops_everything(tmp_path: Path) -> None:
    originals, a, b = files(tmp_path)
    texts = {str(a): "a new\n", str(b): "b new\n"}
    staging = EarlyStaging(originals, texts)
    changes, ready = staging.take(originals, texts)
    b.write_text("b edited by someone else\n")
    with pytest.raises(NginxgenError, match="changed while nginxgen was running"):
        replace_all(changes, ready)
    assert (a.read_text(), b.read_text()) == ("a old\n", "b edited by someone else\n")
    assert leftovers(tmp_path) == []


def test_a_file_changed_before_staging_is_refused_when_taken(tmp_path: Path) -> None:
    originals, a, b = files(tmp_path)
    b.write_text("b edited\n")
    texts = {str(a): "a new\n", str(b): "b new\n"}
    staging = EarlyStaging(originals, texts)
    with pytest.raises(NginxgenError, match="changed while nginxgen was running"):
        staging.take(originals, texts)
    assert leftovers(tmp_path) == []
    assert a.read_text() == "a old\n"


def test_discard_removes_what_was_staged(tmp_path: Path) -> None:
    originals, a, b = files(tmp_path)
    staging = EarlyStaging(originals, {str(a): "a new\n", str(b): "b new\n"})
    staging.discard()
    assert leftovers(tmp_path) == []
    assert (a.read_text(), b.read_text()) == ("a old\n", "b old\n")


def test_without_a_process_to_spare_the_write_stages_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    originals, a, b = files(tmp_path)
    texts = {str(a): "a new\n", str(b): "b new\n"}
    monkeypatch.setattr("os.fork", no_fork)
    staging = EarlyStaging(originals, texts)
    changes, ready = staging.take(originals, texts)
    assert ready == {}
    replace_all(changes, ready)
    assert (a.read_text(), b.read_text()) == ("a new\n", "b new\n")
    assert leftovers(tmp_path) == []
