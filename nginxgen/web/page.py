"""What the browser page asks of nginxgen, in JSON both ways (Pyodide hands strings across): the
page's form state (its URL) into a site file and its generated files with their lint, a pasted
config's findings and fixes, and the catalogue the page shows (targets, presets, rules). The
same functions run at build time, in CPython, for what the page shows before Pyodide is ready.
Everything goes through nginxgen.api; nothing is printed."""

from __future__ import annotations

import json
from collections.abc import Callable

from nginxgen import api
from nginxgen.base.errors import NginxgenError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.lint.findings import Finding

# Where the generated files are linted: the folder a user would put them in (its nginx.conf is
# checked with nginx -t -c there).
OUT = "/etc/nginx/nginxgen"

# The form's fields and their values when the URL gives none: one site with an ECDSA pair,
# the preset's site defaults, the current stable nginx with OpenSSL 3.5 (what the command
# assumes without a target).
DEFAULTS: dict[str, str] = {
    "preset": "intermediate",
    "nginx": "",
    "tls": "",
    "domains": "example.com www.example.com",
    "cert": "/etc/ssl/example.com/fullchain.pem",
    "key": "/etc/ssl/example.com/privkey.pem",
    "rsa_cert": "",
    "rsa_key": "",
    "root": "/var/www/example.com",
    "upstream": "",
    "http2": "",  # "" everywhere below: the preset's own choice
    "http3": "",
    "hsts": "",
    "hsts_age": "",
    "hsts_sub": "",
    "hsts_preload": "",
    "redirect": "on",
    "ocsp": "",
    "resolver": "",
    "cache_mb": "",
    "timeout": "",
    "tickets": "",
    "client_ca": "",
    "client_verify": "required",
    "cpu": "",
    "comments": "on",
}


def _words(text: str) -> list[str]:
    return [w for w in text.replace(",", " ").split() if w]


def _switch(value: str) -> bool | None:
    return {"on": True, "off": False}.get(value)


def site_file(state: dict[str, str]) -> str:
    """The site file (YAML) the form describes: what `nginxgen generate --config` takes."""
    s = {**DEFAULTS, **state}
    site: dict[str, Any] = {"domains": _words(s["domains"])}
    pairs = [(s["cert"], s["key"]), (s["rsa_cert"], s["rsa_key"])]
    site["certificates"] = [{"cert": c, "key": k} for c, k in pairs if c or k]
    if s["root"]:
        site["root"] = s["root"]
    for key in ("http2", "http3"):
        if _switch(s[key]) is not None:
            site[key] = _switch(s[key])
    if s["hsts"] == "off":
        site["hsts"] = None
    elif s["hsts"] == "on" or s["hsts_age"] or s["hsts_sub"] or s["hsts_preload"]:
        hsts: dict[str, Any] = {}
        if s["hsts_age"]:
            hsts["max_age"] = int(s["hsts_age"]) if s["hsts_age"].isdigit() else s["hsts_age"]
        for key, field in (("hsts_sub", "include_subdomains"), ("hsts_preload", "preload")):
            if _switch(s[key]) is not None:
                hsts[field] = _switch(s[key])
        site["hsts"] = hsts
    if s["redirect"] == "off":
        site["redirect"] = False
        site["http_listen"] = []
    if s["upstream"]:
        site["upstream"] = {"url": s["upstream"]}
    if s["client_ca"]:
        site["client_certificates"] = {"ca": s["client_ca"], "verify": s["client_verify"]}
    policy: dict[str, Any] = {}
    if _switch(s["ocsp"]) is not None:
        policy["ocsp_stapling"] = _switch(s["ocsp"])
    if s["resolver"]:
        policy["resolver"] = _words(s["resolver"])
    session: dict[str, Any] = {}
    if s["cache_mb"]:
        session["cache_size_mb"] = int(s["cache_mb"]) if s["cache_mb"].isdigit() else s["cache_mb"]
    if s["timeout"]:
        session["timeout"] = s["timeout"]
    if s["tickets"]:
        session["tickets"] = s["tickets"]
    if session:
        policy["session"] = session
    document: dict[str, Any] = {"extends": s["preset"]}
    if policy:
        document["policy"] = policy
    document["sites"] = [site]
    if s["comments"] == "off":
        document["comments"] = False
    return _yaml(document)


def _yaml(value: Any, indent: str = "") -> str:
    """Block YAML for mappings and lists of mappings, flow lists of scalars, JSON scalars (a
    JSON string is a YAML string): readable, and read back exactly."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict) and item:
                lines.append(f"{indent}{key}:\n{_yaml(item, indent + '  ')}")
            elif isinstance(item, list) and item and isinstance(item[0], dict):
                lines.append(f"{indent}{key}:")
                for entry in item:
                    block = _yaml(entry, indent + "    ")
                    lines.append(f"{indent}  - {block[len(indent) + 4 :]}")
            else:
                lines.append(f"{indent}{key}: {json.dumps(item)}")
        return "\n".join(lines) + ("\n" if not indent else "")
    return json.dumps(value)


def _target(state: dict[str, str]) -> api.TargetChoice:
    choices = api.targets()
    nginx = state.get("nginx") or choices.default_nginx
    tls = state.get("tls") or choices.default_library
    return api.TargetChoice(nginx, tls)


def _findings(findings: tuple[Finding, ...]) -> list[dict[str, object]]:
    return [f.as_dict() for f in findings]


def _answer(work: Callable[[], dict[str, object]]) -> str:
    """The work's result as JSON, or `{"error": line}`: a refusal is one line naming the field
    or the line, as the command prints it; anything else is an internal error, said as one."""
    try:
        return json.dumps(work())
    except NginxgenError as exc:
        return json.dumps({"error": str(exc)})
    except Exception as exc:  # the page shows it; a traceback would help nobody there
        return json.dumps({"error": f"internal error: {type(exc).__name__}: {exc}"})


def generate(state_json: str) -> str:
    """The form state (JSON object of strings) -> site file, files, notes and their lint."""
    state: dict[str, str] = json.loads(state_json)
    site = site_file(state)

    def work() -> dict[str, object]:
        choice = _target(state)
        request = api.GenerateRequest(site=site, target=choice, cpu=state.get("cpu") or None)
        made = api.generate(request)
        texts = {f"{OUT}/{name}": text for name, text in made.files.items()}
        linted = api.lint_files(texts, f"{OUT}/nginx.conf", choice)
        return {
            "target": made.target.describe(),
            "files": made.files,
            "notes": list(made.notes),
            "lint": _findings(linted.findings),
        }

    answer: dict[str, object] = json.loads(_answer(work))
    return json.dumps({"site": site, **answer})


def lint(text: str, name: str, nginx: str, tls: str) -> str:
    """A pasted config's findings, and its fixes as diffs: the safe ones, then with the unsafe."""

    def work() -> dict[str, object]:
        choice = _target({"nginx": nginx, "tls": tls})
        found = api.lint_text(text, name, choice)
        fixes = {}
        for kind, unsafe in (("safe", False), ("unsafe", True)):
            fixed = api.fix_text(text, name, choice, unsafe=unsafe)
            fixes[kind] = {"diff": fixed.diff, "changed": fixed.changed, "fixed": fixed.fixed}
        return {
            "target": found.target.describe(),
            "json": found.as_json(),
            "findings": _findings(found.findings),
            "files": list(found.files),
            "fixes": fixes,
        }

    return _answer(work)


def catalogue() -> dict[str, object]:
    """What the page shows without running anything: the targets, the presets (with the site
    defaults each gives the form) and every rule's page."""
    from nginxgen.generate.presets import load_preset

    choices = api.targets()
    return {
        "version": _version(),
        "defaults": DEFAULTS,
        "targets": {
            "nginx": list(choices.nginx),
            "default_nginx": choices.default_nginx,
            "default_library": choices.default_library,
            "libraries": [
                {"kind": lib.kind, "display": lib.display, "versions": list(lib.versions)}
                for lib in choices.libraries
            ],
            "systems": [
                {
                    "name": system.name,
                    "nginx": system.target.nginx_version,
                    "tls": system.target.tls_library,
                    "source": system.source,
                }
                for system in choices.systems
            ],
        },
        "presets": [
            {
                "name": p.name,
                "summary": p.summary,
                "description": p.description,
                "source": p.source,
                "extends": p.extends,
                "text": p.text,
                "site": load_preset(p.name).get("site", {}),
            }
            for p in api.presets()
        ],
        "rules": [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity,
                "summary": r.summary,
                "autofix": r.autofix,
                "page": r.page,
            }
            for r in api.rules()
        ],
    }


def _version() -> str:
    from nginxgen import __version__

    return __version__
