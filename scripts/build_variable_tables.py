"""Write nginxgen/knowledge/nginx_variables.json: the variables nginx's own modules define, in
http{} and stream{}, per release from 1.18.0 on, read from nginx's sources (issue 44).

    python scripts/build_variable_tables.py --repo CLONE_OF_nginx/nginx   # read the release tags
    python scripts/build_variable_tables.py                               # from the excerpts only

Two steps, as scripts/build_value_tables.py: with --repo, each release tag's sources under
src/http and src/stream are cut down to the lines this script reads, verbatim, and stored in
tests/data/nginx_variable_sources.txt (nginx is BSD-2-Clause); then the excerpts are parsed
into the table. The lines read:

- every `ngx_http_variable_t NAME[]` and `ngx_stream_variable_t NAME[]` array (the core
  variables, and each module's, which its preconfiguration adds with ngx_http_add_variable):
  each entry's name, and whether its flags hold NGX_HTTP_VAR_PREFIX (NGX_STREAM_VAR_PREFIX),
  a family of names: `http_` stands for every `$http_NAME` (ngx_http_variables_init_vars
  takes the longest prefix of an unknown name);
- each single variable a module adds by a name of its own (`static ngx_str_t
  ngx_http_gzip_ratio = ngx_string("gzip_ratio")`, then `ngx_http_add_variable(cf,
  &ngx_http_gzip_ratio, ...)`).

The module is the file's `ngx_module_t`; the core variables' files have none and count as the
core module's. Preprocessor conditions inside an array (`#if (NGX_HAVE_TCP_INFO)`) are not
evaluated: such variables count as present (Linux has them), except under `#if 0`
(proxy_add_via). Variables a config defines itself (set, map, geo, split_clients, perl_set,
auth_request_set, regex captures) are not here: nginxgen/knowledge/nginx_values.toml,
[variables], says where a config defines them.
Consecutive releases with the same entry are folded into ranges of indexes into `releases`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_directive_tables import MODULE, Git, fold
from source_excerpts import collect, main, sections

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "nginxgen" / "knowledge" / "nginx_variables.json"
EXCERPTS = ROOT / "tests" / "data" / "nginx_variable_sources.txt"
FAMILIES = ("http", "stream")

ARRAY = re.compile(
    r"^(?:static\s+)?ngx_(?:http|stream)_variable_t\s+\w+\[\]\s*=\s*\{.*?^\};", re.S | re.M
)
ENTRY = re.compile(r'\{\s*ngx_string\("([^"]+)"\)(.*?)\}', re.S)
ADDED = re.compile(r"ngx_(?:http|stream)_add_variable\(cf,\s*&(\w+)\s*,")
NAMED = r'^(?:static\s+)?ngx_str_t\s+{}\s*=\s*ngx_string\("([^"]+)"\);'
NEVER = re.compile(r"^#if 0\n.*?^#endif\n?", re.S | re.M)  # compiled out in every build


def excerpt(text: str) -> str:
    """The verbatim parts of one source file that `parse` reads ("" when none)."""
    parts = [m.group(0) for m in ARRAY.finditer(text)]
    for name in dict.fromkeys(ADDED.findall(text)):
        declared = re.search(NAMED.format(re.escape(name)), text, re.M)
        if declared:
            parts.append(declared.group(0))
            call = re.search(
                rf"^.*ngx_(?:http|stream)_add_variable\(cf,\s*&{name}\s*,.*$", text, re.M
            )
            parts.append(call.group(0).strip() if call else "")
    if not parts:
        return ""
    module = MODULE.search(text)
    return "\n\n".join([*([module.group(0)] if module else []), *parts]) + "\n"


def parse(path: str, text: str) -> tuple[str, list[dict[str, object]]]:
    """The family (http or stream) of an excerpt's file and the variables it defines."""
    family = path.split("/")[1]
    module = MODULE.search(text)
    owner = module.group(1) if module else f"ngx_{family}_core_module"
    found: list[dict[str, object]] = []
    for array in ARRAY.finditer(text):
        for name, rest in ENTRY.findall(NEVER.sub("", array.group(0))):
            entry: dict[str, object] = {"name": name, "module": owner}
            if "_VAR_PREFIX" in rest:
                entry["prefix"] = True
            found.append(entry)
    for name in ADDED.findall(text):
        declared = re.search(NAMED.format(re.escape(name)), text, re.M)
        if declared:
            found.append({"name": declared.group(1), "module": owner})
    return family, found


def extract(git: Git) -> str:
    """The excerpts file's text, from every release tag of the clone."""

    def cut(texts: dict[str, str]) -> dict[str, str]:
        return {
            path: excerpt(text) for path, text in texts.items() if path.split("/")[1] in FAMILIES
        }

    return collect(git, cut, "build_variable_tables.py")


def build(text: str) -> str:
    """The table's text, from the excerpts file's text."""
    commits, excerpts = sections(text)
    releases = list(commits)
    per_version = {family: [[] for _ in releases] for family in FAMILIES}
    for path, body, indexes in excerpts:
        family, entries = parse(path, body)
        for index in indexes:
            per_version[family][index].extend(entries)
    tables = {}
    for family, found in per_version.items():
        for entries in found:
            entries.sort(key=lambda e: (str(e["name"]), str(e["module"])))
        tables[family] = fold(list(zip(releases, found, strict=True)))
    document = {
        "about": "Variables nginx's own modules define in http{} and stream{}, per release "
        "(scripts/build_variable_tables.py, from tests/data/nginx_variable_sources.txt): the "
        "module that defines each, and `prefix` for a family of names (`http_` stands for "
        "every $http_NAME); ranges of releases [first, end) as indexes into `releases`.",
        "source": "github.com/nginx/nginx release tags; src/http/ngx_http_variables.c "
        'ngx_http_variables_init_vars (unknown "NAME" variable), src/stream/'
        "ngx_stream_variables.c ngx_stream_variables_init_vars",
        "releases": releases,
        "commits": commits,
        **tables,
    }
    return json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    main(__doc__.splitlines()[0], EXCERPTS, OUT, extract, build)
