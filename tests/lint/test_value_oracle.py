"""Values as real nginx reads them (issue 36): one TLS-relevant directive with a drawn value or
near miss, in a config otherwise valid on the build, through `nginx -t` on every provisioned
build and through lint with that build's target. scripts/fuzz.py values runs it for as many
cases as asked; docs/fuzzing.md has the runs and the disagreement classes."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing import values
from tests.helpers import missing_real_part
from tests.paths import REPO
from tests.real_parts import reach

CASES = int(os.environ.get("NGINXGEN_VALUE_CASES", "300"))


def every_build(provisioned: tuple[dict[str, Build], dict[str, str]]) -> list[Build]:
    """Every build, the newest included (a missing one fails CI), and any other provisioned one."""
    required = [require_build(provisioned, n) for n in ALL_BUILD_NAMES]
    extra = [b for name, b in sorted(provisioned[0].items()) if b not in required]
    return required + extra


def test_values_agree_with_nginx(provisioned: tuple[dict[str, Build], dict[str, str]]) -> None:
    builds = every_build(provisioned)
    report = values.run(builds, CASES, seed=36)
    summary = report.summary()
    assert not report.disagreements, json.dumps(
        {"classes": summary["classes"], "examples": summary["examples"]}, indent=1
    )
    # both sides of the comparison met, on every build
    assert report.nginx["refused"] > CASES // 5 and report.nginx["accepted"] > CASES // 5
    assert set(report.by_build) == {b.name for b in builds}


def test_the_harness_decides_on_both_sides(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    """In the default run: the skeleton passes `nginx -t` and lint on every build (Checker
    raises otherwise), and a small sample meets both verdicts; a value nginx refuses that lint
    names and one it accepts agree."""
    builds = every_build(provisioned)
    report = values.run(builds, 5 * len(builds), seed=1)
    assert report.nginx["refused"] and report.nginx["accepted"]
    checker = values.Checker(builds[0])
    refused = checker.check(values.Case("ssl_session_tickets", ("maybe",), "server", "junk"))
    accepted = checker.check(values.Case("ssl_session_tickets", ("off",), "server", "valid"))
    assert refused.nginx == "refused" and refused.agrees, refused
    assert accepted.nginx == "accepted" and accepted.agrees, accepted


# The vocabulary's sources as CI has them: scripts/pins.json's "vocabulary" group (nginx's release
# tarballs as Debian ships them, the nginx-src, openssl-src and aws-lc-sys crates, 23 MB),
# fetched once into the checkout's cache
SOURCES = REPO / ".cache" / "vocabulary"


@pytest.mark.live
def test_the_vocabulary_regenerates_byte_for_byte(tmp_path: Path) -> None:
    """From the pinned sources; the binaries' lists are kept from the committed file (--builds
    asks the provisioned builds again), and so is nginx 1.31.3's part: that release is in no
    registry CI reaches (nginx.org and GitHub only), so the script names it as kept and nothing
    else may be."""
    reach("the vocabulary's pinned sources")
    sys.path.insert(0, str(REPO / "scripts"))
    from downloads import DownloadError, fetch_group

    try:
        fetch_group("vocabulary", SOURCES)
    except DownloadError as error:
        missing_real_part(f"the vocabulary's sources: {error}")
    out = tmp_path / "value_vocabulary.json"
    out.write_bytes(values.VOCABULARY.read_bytes())
    script = REPO / "scripts" / "build_value_vocabulary.py"
    done = subprocess.run(
        [sys.executable, str(script), f"--downloads={SOURCES}", "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "kept from value_vocabulary.json: nginx 1.31.3, binaries\n"
    committed, regenerated = values.VOCABULARY.read_text(), out.read_text()
    diff = difflib.unified_diff(
        committed.splitlines(keepends=True), regenerated.splitlines(keepends=True),
        "committed", "regenerated", n=1,
    )  # fmt: skip
    assert regenerated == committed, "".join(list(diff)[:40])
    assert out.read_bytes() == values.VOCABULARY.read_bytes()  # and the line ends too
