"""Every `Fail:` / `Fix:` example in a rule's documentation runs (issue 24): the rule reports
the Fail example and not the Fix one, on the target the example names (nginx 1.26.3 with
OpenSSL 3.5 unless it says otherwise). The docs users read are the docs that are tested.

How an example is read: a block indented under `Fail:`/`Fix:` (or the rest of that line) is
nginx config. With an `http {` (or a `stream {`) it is the whole http{} (or stream{}) part; with a `server {` it is the content
of http{}; otherwise it is the content of a TLS server that is the default of *:443. `...`
stands for a server's certificate lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.paths import REPO

RULES = sorted((REPO / "nginxgen" / "lint" / "rules").glob("ngx*.py"))
HEADER = re.compile(r"^(Fail|Fix)(?: \(([^)]*)\))?:[ \t]*(.*)$")
CERTIFICATE = "ssl_certificate c.pem; ssl_certificate_key c.key;"
SERVER = (
    "server {{ listen 443 ssl default_server; server_name a.example; " + CERTIFICATE + "\n"
    "{body}\n}}\n"
)


def examples(doc: str) -> dict[str, tuple[str, str]]:
    """{"Fail": (target note, config), "Fix": (...)} from a docstring."""
    lines = doc.splitlines()
    found: dict[str, tuple[str, str]] = {}
    for at, line in enumerate(lines):
        match = HEADER.match(line)
        if not match:
            continue
        kind, note, rest = match.groups()
        body = [rest] if rest.strip() else []
        for following in lines[at + 1 :]:
            if not following.startswith("    "):
                break
            body.append(following[4:])
        found[kind] = (note or "", "\n".join(body).strip())
    return found


def target_of(note: str) -> tuple[str, str]:
    nginx = re.search(r"nginx (\d+\.\d+\.\d+)", note)
    library = re.search(r"(OpenSSL|BoringSSL|AWS-LC|LibreSSL) ?([\d.]*)", note)
    tls = "openssl-3.5.7"
    if library:
        name = library.group(1).lower()
        tls = f"{name}-{library.group(2)}" if library.group(2) else name
    return (nginx.group(1) if nginx else "1.26.3"), tls


def config(example: str) -> str:
    text = example.replace("...", CERTIFICATE)
    if re.match(r"(user|worker_processes|pid|load_module)\b", text):
        return text + "\n"  # a whole main file, as written
    if re.search(r"^\s*(http|stream)\s*\{", text, re.M):
        return "events {}\n" + text + "\n"
    if re.search(r"^\s*server\s*\{", text, re.M):
        return "events {}\nhttp {\n" + text + "\n}\n"
    return "events {}\nhttp {\n" + SERVER.format(body=text) + "}\n"


def codes(text: str, target: tuple[str, str], folder: Path) -> set[str]:
    path = folder / "nginx.conf"
    path.write_text(text)
    return {f.code for f in lint(load_path(str(path)), resolve(*target), Selection())}


def documented() -> list[tuple[str, str, str, str]]:
    out = []
    for path in RULES:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        found = examples(doc)
        if found:
            code = "NGX" + path.name[3:6]
            assert set(found) == {"Fail", "Fix"}, f"{path.name}: a Fail example needs a Fix"
            out.append((code, found["Fail"][0], found["Fail"][1], found["Fix"][1]))
    return out


@pytest.mark.parametrize(("code", "note", "fail", "fix"), documented(), ids=lambda v: str(v)[:8])
def test_the_documented_examples(code: str, note: str, fail: str, fix: str, tmp_path: Path) -> None:
    target = target_of(note)
    assert code in codes(config(fail), target, tmp_path), f"{code} does not report its Fail:"
    assert code not in codes(config(fix), target, tmp_path), f"{code} reports its own Fix:"


def test_the_examples_are_found() -> None:
    assert len(documented()) >= 20
