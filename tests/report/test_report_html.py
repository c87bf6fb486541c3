"""`nginxgen report --html` in real headless Chromium: the page renders without a console
error, every number it shows equals the JSON report, and the screenshot is not blank."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser import Chromium, Page, chromium_binary, png_pixel_bytes
from tests.cli_process import nginxgen as run_nginxgen
from tests.helpers import missing_real_part
from tests.report.test_report import MIX, line

# every element with data-key, as {JSON pointer: text shown}
SHOWN = (
    "Object.fromEntries([...document.querySelectorAll('[data-key]')]"
    ".map(e => [e.dataset.key, e.textContent]))"
)


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = chromium_binary()
    if binary is None:
        missing_real_part("chromium is not installed (python scripts/provision.py installs it)")
    return binary


def resolve(report: dict[str, Any], pointer: str) -> Any:
    value: Any = report
    for part in pointer.lstrip("/").split("/"):
        value = value[part.replace("~1", "/").replace("~0", "~")]
    return value


def shown_as(value: Any, pointer: str) -> str:
    if pointer.endswith("/share"):
        return f"{value * 100:.1f}%"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@pytest.mark.browser
def test_html_page_matches_the_json_in_chromium(chromium: str, tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    later = [
        line(connection=str(10 + i), time=f"2026-11-23T{7 + i:02d}:00:00+00:00") for i in range(3)
    ]
    log.write_text("\n".join(MIX + later) + "\n")
    page_file = tmp_path / "report.html"
    done = run_nginxgen(
        "report", str(log), "--by", "hour", "--format", "json", "--html", str(page_file), timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # self-contained: nothing for the browser to fetch
    assert not re.search(r"\b(src|href)=|url\(|@import", page_file.read_text())
    with Chromium(chromium) as browser:
        blank = Page(browser)
        blank.load("about:blank")
        blank_png = blank.screenshot()
        page = Page(browser)
        page.load(page_file.as_uri())
        shown: dict[str, str] = page.evaluate(SHOWN)
        bars = page.evaluate("document.querySelectorAll('svg rect').length")
        errors = page.console_errors()
        png = page.screenshot()
    assert errors == []
    assert len(shown) >= 30, shown
    for pointer, text in shown.items():
        assert text == shown_as(resolve(report, pointer), pointer), pointer
    for pointer in ("/overall/pq/share", "/overall/pq_offered_not_used/share",
                    "/sites/b.example/connections", "/overall/groups/X25519MLKEM768/count"):  # fmt: skip
        assert pointer in shown
    # one stacked bar per period and category present, three per site
    assert bars >= len(report["periods"]) + 3 * len(report["sites"])
    assert len(set(png_pixel_bytes(blank_png))) < 10  # the blankness check can fail
    assert len(set(png_pixel_bytes(png))) > 50
