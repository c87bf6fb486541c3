"""The in-process API (nginxgen.api) gives what the commands give: lint JSON, fix diffs and
generated files byte for byte, with the command run as a user runs it (its own process); and the
optional parts (cryptography, crossplane, orjson) degrade to a note or a finding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen import api
from nginxgen.base.errors import NginxgenError
from tests.helpers import make_cert
from tests.paths import REPO

CORPUS = REPO / "tests" / "data" / "corpus"
TARGET = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
CHOICE = api.TargetChoice("1.26.3", "openssl-3.5.7")


def nginxgen(*args: str, cwd: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=check,
        env={**os.environ, "NGINXGEN_NGINX": "/nonexistent"},
    )


def corpus_sample() -> list[Path]:
    """Every seventh corpus file, in a fixed order: each of its folders' kinds of config."""
    files = sorted(p for p in CORPUS.rglob("*.conf") if p.is_file())
    return files[::7]


@pytest.mark.parametrize("path", corpus_sample(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_lint_json_is_the_commands(path: Path, tmp_path: Path) -> None:
    command = nginxgen("lint", "--format", "json", *TARGET, str(path), cwd=tmp_path)
    assert command.returncode in (0, 1), command.stderr
    by_path = api.lint_path(str(path), CHOICE)
    assert by_path.as_json() == command.stdout
    by_text = api.lint_text(path.read_text(encoding="utf-8"), str(path), CHOICE)
    assert by_text.as_json() == command.stdout
    said = [line.removeprefix("nginxgen: ") for line in command.stderr.splitlines()]
    assert [*by_path.notes, f"target: {by_path.target.describe()}"] == said


def test_lint_of_a_dump_is_the_commands(tmp_path: Path) -> None:
    dump = (
        "# configuration file /etc/nginx/nginx.conf:\n"
        "events {}\nhttp {\n    ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;\n"
        "    include /etc/nginx/conf.d/*.conf;\n}\n\n"
        "# configuration file /etc/nginx/conf.d/site.conf:\n"
        "server {\n    listen 443 ssl;\n    server_name example.com;\n"
        "    ssl_protocols TLSv1 TLSv1.2;\n    ssl_session_tickets on;\n"
        "    ssl_certificate /etc/ssl/a.pem;\n    ssl_certificate_key /etc/ssl/a.key;\n}\n"
    )
    (tmp_path / "dump.txt").write_text(dump)
    command = nginxgen("lint", "--format", "json", *TARGET, "dump.txt", cwd=tmp_path)
    found = api.lint_text(dump, "dump.txt", CHOICE)
    assert found.as_json() == command.stdout
    assert {f.file for f in found.findings} == {"/etc/nginx/conf.d/site.conf"}


def test_fix_diff_is_the_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "http {\n    server {\n        listen 443 ssl;\n        ssl_protocols TLSv1 TLSv1.2;\n"
        "        ssl_ecdh_curve X25519:prime256v1;\n"
        "        ssl_certificate a.pem;\n        ssl_certificate_key a.key;\n    }\n}\n"
    )
    (tmp_path / "nginx.conf").write_text(text)
    monkeypatch.chdir(tmp_path)
    for flag, unsafe in (("--fix", False), ("--unsafe-fixes", True)):
        command = nginxgen("lint", flag, "--diff", *TARGET, "nginx.conf", cwd=tmp_path)
        fixed = api.fix_text(text, "nginx.conf", CHOICE, unsafe=unsafe)
        assert fixed.diff == command.stdout
        assert (command.returncode == 1) == bool(fixed.diff)
    assert fixed.diff and fixed.fixed  # the unsafe run changes something
    assert (tmp_path / "nginx.conf").read_text() == text  # --diff and the API wrote nothing


def test_fix_of_a_dump_edits_each_file_in_it() -> None:
    dump = (
        "# configuration file /etc/nginx/nginx.conf:\n"
        "events {}\nhttp {\n    ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;\n"
        "    include /etc/nginx/site.conf;\n}\n\n"
        "# configuration file /etc/nginx/site.conf:\n"
        "server {\n    listen 443 ssl;\n    ssl_protocols TLSv1 TLSv1.2;\n"
        "    ssl_certificate /etc/ssl/a.pem;\n    ssl_certificate_key /etc/ssl/a.key;\n}\n"
    )
    fixed = api.fix_text(dump, "dump.txt", CHOICE, unsafe=True)
    assert list(fixed.changed) == ["/etc/nginx/site.conf"]
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in fixed.changed["/etc/nginx/site.conf"]
    assert "+    ssl_protocols TLSv1.2 TLSv1.3;\n" in fixed.diff
    assert "NGX401" not in {f.code for f in fixed.remaining}


SITE = """extends: {preset}
sites:
  - domains: [example.com, www.example.com]
    certificates:
      - cert: {cert}
        key: {key}
"""


@pytest.mark.parametrize(
    ("preset", "target"),
    [
        ("intermediate", ["1.22.1", "openssl-3.0"]),
        ("pq", ["1.26.3", "openssl-3.5.7"]),
        ("modern", ["1.28.3", "boringssl"]),
    ],
)
def test_generate_is_the_commands(preset: str, target: list[str], tmp_path: Path) -> None:
    pair = make_cert(tmp_path / "certs")
    site = SITE.format(preset=preset, cert=pair.cert, key=pair.key)
    (tmp_path / "site.yaml").write_text(site)
    flags = ["--nginx-version", target[0], "--tls-library", target[1]]
    command = nginxgen(
        "generate", "--config", "site.yaml", *flags, "--out", "out", cwd=tmp_path, check=True
    )
    made = api.generate(api.GenerateRequest(site=site, target=api.TargetChoice(*target)))
    written = {p.name: p.read_text() for p in (tmp_path / "out").iterdir()}
    assert made.files == written
    assert next(iter(made.files)) == "nginx.conf"
    assert made.notes == ()  # the certificates were read: nothing to say
    assert f"target: {made.target.describe()}" in command.stderr


def test_generate_without_cryptography_notes_certificates_not_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "cryptography", None)  # as in a browser: no build of it
    site = SITE.format(preset="intermediate", cert="/etc/ssl/a.pem", key="/etc/ssl/a.key")
    made = api.generate(api.GenerateRequest(site=site, target=CHOICE))
    assert "ssl_certificate /etc/ssl/a.pem;" in made.files["example.com.ssl.conf"]
    (note,) = made.notes
    assert "certificate contents not checked here" in note


def test_generate_with_cryptography_refuses_a_missing_certificate() -> None:
    site = SITE.format(preset="intermediate", cert="/nonexistent/a.pem", key="/nonexistent/a.key")
    with pytest.raises(NginxgenError, match="certificate file not found"):
        api.generate(api.GenerateRequest(site=site, target=CHOICE))


def test_a_bad_site_file_names_its_line() -> None:
    with pytest.raises(NginxgenError) as raised:
        api.generate(api.GenerateRequest(site="extends: modern\nsites:\n  - domainz: [a]\n"))
    assert str(raised.value).startswith("site.yaml:3: sites.0.domainz: unknown key 'domainz'")


def test_explain_and_rules_are_the_commands(tmp_path: Path) -> None:
    page = nginxgen("explain", "ngx203", cwd=tmp_path, check=True).stdout
    assert api.explain("ngx203").page == page
    assert api.explain("pq-not-enforced").code == "NGX203"
    listed = nginxgen("rules", cwd=tmp_path, check=True).stdout.splitlines()
    assert [d.code for d in api.rules()] == [line.split()[0] for line in listed]
    with pytest.raises(NginxgenError, match="unknown rule"):
        api.explain("NGX999")


def test_presets_and_targets_come_from_the_knowledge(tmp_path: Path) -> None:
    listed = nginxgen("presets", cwd=tmp_path, check=True).stdout.splitlines()
    assert [p.name for p in api.presets()] == [line.split()[0] for line in listed]
    pq = next(p for p in api.presets() if p.name == "pq")
    assert pq.extends == "modern" and "OpenSSL" in pq.source
    choices = api.targets()
    releases = json.loads((REPO / "nginxgen/knowledge/releases.json").read_text())
    newest_branch = max(releases["nginx"]["branches"], key=lambda b: tuple(map(int, b.split("."))))
    assert choices.nginx[0].startswith(newest_branch + ".")
    assert "1.22.1" in choices.nginx and "1.2.9" in choices.nginx
    kinds = {lib.kind: lib for lib in choices.libraries}
    assert kinds["boringssl"].versions == () and "3.0.2" in kinds["openssl"].versions


def _without(module: str, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Python code run with `module` unimportable, as an install that left it out."""
    program = f"import sys; sys.modules[{module!r}] = None\n{code}"
    return subprocess.run(
        [sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_lua_blocks_are_read_without_crossplane(tmp_path: Path) -> None:
    """nginxgen's lexer reads Lua blocks itself (issue 45): an install without crossplane (the
    browser page) lints a config with one as an install with it does, with no NGX001."""
    (tmp_path / "lua.conf").write_text(
        "http {\n    server {\n        listen 80;\n"
        "        content_by_lua_block {\n            ngx.say('}')\n        }\n    }\n}\n"
    )
    run = "from nginxgen.shell.cli import main; sys.exit(main(['lint', '--format', 'json', 'lua.conf']))"
    outputs = []
    for module in ("crossplane", "unused"):
        done = _without(module, run, tmp_path)
        assert done.returncode in (0, 1), done.stderr  # never 3, an internal error
        findings = json.loads(done.stdout)["findings"]
        assert "NGX001" not in {f["code"] for f in findings}
        outputs.append(findings)
    assert outputs[0] == outputs[1]


def test_report_without_orjson_reads_the_same(tmp_path: Path) -> None:
    log = REPO / "tests" / "logs" / "ech-nginx-1.30.4.log"
    shutil.copy(log, tmp_path / "access.log")
    run = "from nginxgen.shell.cli import main; sys.exit(main(['report', '--format', 'json', 'access.log']))"
    plain = _without("unused", run, tmp_path)
    without = _without("orjson", run, tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert without.stdout == plain.stdout and json.loads(plain.stdout)
