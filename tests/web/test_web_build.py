"""What the browser page is built from, without a browser: its pins, the wheels made here (the
same bytes on every build; pure markupsafe and pyyaml that import and work without their C
parts), and the site file its form writes."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from nginxgen.files.pinned import DownloadError, fetch_pinned, sha256_of
from nginxgen.web import page
from nginxgen.web.build import PINS
from nginxgen.web.wheels import nginxgen_wheel, pure_wheel
from tests.builds import Build, provisioned_downloads
from tests.conftest import require_build
from tests.helpers import missing_real_part
from tests.paths import REPO


def test_every_page_pin_names_its_bytes() -> None:
    document = json.loads(PINS.read_text())
    names = [pin["name"] for pin in document["files"]]
    assert names[0] == "pyodide-314.0.7.tgz"
    assert "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl" in names
    for pin in document["files"]:
        assert len(pin["sha256"]) == 64 and pin["size"] > 0 and pin["urls"], pin["name"]
        assert pin["urls"][0].startswith("https://"), pin["name"]


def test_nginxgens_wheel_is_the_same_bytes_each_time(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = nginxgen_wheel(tmp_path / "a"), nginxgen_wheel(tmp_path / "b")
    assert sha256_of(first) == sha256_of(second)
    with zipfile.ZipFile(first) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert {
        "nginxgen/api/__init__.py",
        "nginxgen/templates/tls.conf.j2",
        "nginxgen/presets/pq.yaml",
    } <= names
    assert not any("__pycache__" in n for n in names)
    sources = {
        f"nginxgen/{p.relative_to(REPO / 'nginxgen')}" for p in (REPO / "nginxgen").rglob("*.py")
    }
    assert sources <= names
    assert b"Requires-Dist: typer" in metadata and b"sys_platform != 'emscripten'" in metadata


@pytest.mark.live  # the sources provisioning fetched
@pytest.mark.parametrize(
    ("project", "check"),
    [
        ("markupsafe", "import markupsafe; assert str(markupsafe.escape('<a>')) == '&lt;a&gt;'"),
        (
            "pyyaml",
            "import yaml; assert yaml.safe_load('a: [1, b]') == {'a': [1, 'b']}; assert not yaml.__with_libyaml__",
        ),
    ],
)
def test_pure_wheels_from_the_pinned_sources(project: str, check: str, tmp_path: Path) -> None:
    (pin,) = [p for p in json.loads(PINS.read_text())["files"] if p["name"].startswith(project)]
    try:
        sdist = fetch_pinned(pin, provisioned_downloads("web"), offline=True)
    except DownloadError as exc:
        missing_real_part(f"the page's downloads are not provisioned (scripts/provision.py): {exc}")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    wheel = pure_wheel(sdist, project, tmp_path / "a")
    assert sha256_of(wheel) == sha256_of(pure_wheel(sdist, project, tmp_path / "b"))
    with zipfile.ZipFile(wheel) as archive:
        assert all(
            n.endswith((".py", ".typed", "METADATA", "WHEEL", "RECORD")) for n in archive.namelist()
        )
        archive.extractall(tmp_path / "site")
    # -S: none of this venv's site-packages (its compiled markupsafe and yaml) is seen
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); {check}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_the_forms_site_file_reads_back_as_written() -> None:
    state = {
        "domains": "a.example, b.example",
        "hsts": "on",
        "hsts_age": "31536000",
        "hsts_sub": "off",
        "redirect": "off",
        "upstream": "https://backend.example:8443/",
        "client_ca": "/etc/ssl/clients.pem",
        "cache_mb": "20",
        "tickets": "off",
        "comments": "off",
    }
    read = yaml.safe_load(page.site_file(state))
    assert read == {
        "extends": "intermediate",
        "policy": {"session": {"cache_size_mb": 20, "tickets": "off"}},
        "sites": [
            {
                "domains": ["a.example", "b.example"],
                "certificates": [{"cert": page.DEFAULTS["cert"], "key": page.DEFAULTS["key"]}],
                "root": page.DEFAULTS["root"],
                "hsts": {"max_age": 31536000, "include_subdomains": False},
                "redirect": False,
                "http_listen": [],
                "upstream": {"url": "https://backend.example:8443/"},
                "client_certificates": {"ca": "/etc/ssl/clients.pem", "verify": "required"},
            }
        ],
        "comments": False,
    }


def test_a_refusal_is_one_line_for_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cryptography", None)  # as in the page
    answer = json.loads(
        page.generate(json.dumps({"preset": "pq", "nginx": "1.22.1", "tls": "openssl-3.0"}))
    )
    assert "files" not in answer and "\n" not in answer["error"]
    assert "X25519MLKEM768" in answer["error"] and answer["site"].startswith('extends: "pq"')
    linted = json.loads(page.lint("server {\n", "nginx.conf", "1.26.3", "openssl-3.5.7"))
    assert [f["code"] for f in linted["findings"]] == ["NGX001"]


@pytest.mark.parametrize(
    ("system", "build_name"), [("Debian 12", "bookworm"), ("Debian 13", "trixie")]
)
def test_a_systems_target_is_what_its_packages_run(
    system: str, build_name: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    """The page's "my system" targets (knowledge/nginx.toml) against nginx -V of the build
    provisioned from that release's own packages."""
    from nginxgen import api

    build = require_build(provisioned, build_name)
    (choice,) = [s for s in api.targets().systems if s.name.startswith(system)]
    assert choice.target.nginx_version == build.nginx_version
    said, read = choice.target.resolve().library, build.library
    assert said.kind == read.kind and read.version is not None and said.version is not None
    assert str(read.version).startswith(f"{said.version}.")
