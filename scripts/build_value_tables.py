"""Write nginxgen/knowledge/nginx_values.json: what nginx's own setters accept as a directive's
value, per release from 1.18.0 on, read from nginx's sources (issue 36).

    python scripts/build_value_tables.py --repo CLONE_OF_nginx/nginx   # read the release tags
    python scripts/build_value_tables.py                               # from the excerpts only

Two steps, so that the table can be rebuilt where no clone of nginx is (a test does, byte for
byte). First, with --repo, each release tag's sources are cut down to the lines this script
reads, verbatim: the `ngx_command_t` entries whose setter takes a table or a bound, the tables
themselves (`ngx_conf_enum_t`, `ngx_conf_bitmask_t`, `ngx_conf_num_bounds_t`), the
`ngx_conf_set_off_slot` entries, and each module's `listen` and upstream `server` handler. Identical excerpts of
consecutive releases are stored once in tests/data/nginx_value_sources.txt (nginx is
BSD-2-Clause). Second, the excerpts are parsed into the table:

- enum (ngx_conf_set_enum_slot) and bitmask (ngx_conf_set_bitmask_slot): the names the table
  holds; both setters compare with ngx_strcasecmp, so any letter case is read;
- bounds: the post handler ngx_conf_check_num_bounds' low and high (high None: no upper bound);
- offset: ngx_conf_set_off_slot reads ngx_parse_offset (k, m and g), unlike the size slot;
- listen, and an upstream block's server: the parameters the module's handler compares with
  ngx_strcmp (words) and ngx_strncmp (prefixes such as `backlog=`, `weight=`). Which ones a platform lacks (`#if`) is not
  evaluated here; the knowledge's grammar of listen (nginx_values.toml) says what each reads.

Consecutive releases with the same entry are folded into ranges of indexes into `releases`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_directive_tables import ARRAY, MODULE, Git, fold
from source_excerpts import collect, main, sections

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "nginxgen" / "knowledge" / "nginx_values.json"
EXCERPTS = ROOT / "tests" / "data" / "nginx_value_sources.txt"

# one ngx_command_t entry: name, flags, setter, conf offset, field offset, post
COMMAND = re.compile(
    r'\{\s*ngx_string\("(?P<name>[^"]+)"\),\s*(?P<flags>[^,]+),\s*(?P<setter>\w+),'
    r"\s*(?P<conf>[^,]+),\s*(?P<offset>offsetof\([^)]*\)|\w+),\s*(?P<post>&?\w+|NULL)\s*\}",
    re.S,
)
TABLE = re.compile(
    r"^(?:static\s+)?ngx_conf_(?P<kind>enum|bitmask)_t\s+(?P<table>\w+)\[\]\s*=\s*\{.*?^\};",
    re.S | re.M,
)
BOUNDS = re.compile(
    r"^static\s+ngx_conf_num_bounds_t\s+(?P<table>\w+)\s*=\s*\{\s*ngx_conf_check_num_bounds,"
    r"\s*(?P<low>-?\d+),\s*(?P<high>-?\d+)\s*\};",
    re.M,
)
NAME = re.compile(r'\{\s*ngx_string\("([^"]*)"\)')
WORD = re.compile(r'ngx_strcmp\(value\[[in]\]\.data, "([^"]+)"\)')
PREFIX = re.compile(r'ngx_strncmp\(value\[[in]\]\.data, "([^"]+)", \d+\)')
TABLE_SETTERS = ("ngx_conf_set_enum_slot", "ngx_conf_set_bitmask_slot")
# the handlers whose parameters are read like listen's: listen itself, and an upstream block's
# `server` (ngx_http_upstream_server, ngx_stream_upstream_server: weight=, backup, resolve...)
UPSTREAM_SERVER = re.compile(r"ngx_\w+_upstream_server")


def _parameters_handler(name: str, setter: str) -> bool:
    return name == "listen" or (name == "server" and UPSTREAM_SERVER.fullmatch(setter) is not None)


def _function(text: str, name: str) -> str:
    found = re.search(rf"^static char \*\n{name}\(ngx_conf_t.*?^\}}\n", text, re.S | re.M)
    return found.group(0) if found else ""


def excerpt(text: str, shared: dict[str, str]) -> str:
    """The verbatim parts of one source file that `parse` reads ("" when none); `shared`: the
    release's tables that are not static, by name (ngx_http_upstream.c's, used by the
    proxy, fastcgi, uwsgi, scgi and grpc modules)."""
    parts: list[str] = []
    wanted: set[str] = set()
    for array in ARRAY.findall(text):
        for command in COMMAND.finditer(array):
            setter, post = command["setter"], command["post"]
            if _parameters_handler(command["name"], setter):
                parts.append(command.group(0))
                parts.append(_function(text, setter))
            elif setter in TABLE_SETTERS or setter == "ngx_conf_set_off_slot" or post != "NULL":
                parts.append(command.group(0))
                wanted.add(post.lstrip("&"))
    if not parts:
        return ""
    local = {m["table"]: m.group(0) for m in TABLE.finditer(text)}
    tables = [
        local.get(name) or shared[name]
        for name in sorted(wanted)
        if name in local or name in shared
    ]
    bounds = [m.group(0) for m in BOUNDS.finditer(text) if m["table"] in wanted]
    module = MODULE.search(text)
    head = [module.group(0)] if module else []
    return "\n\n".join([*head, *tables, *bounds, *parts]) + "\n"


def parse(text: str) -> list[dict[str, object]]:
    """The value grammar of each directive an excerpt describes."""
    module = MODULE.search(text)
    owner = module.group(1) if module else "?"
    tables = {m["table"]: NAME.findall(m.group(0)) for m in TABLE.finditer(text)}
    bounds = {
        m["table"]: [int(m["low"]), None if m["high"] == "-1" else int(m["high"])]
        for m in BOUNDS.finditer(text)
    }
    out: list[dict[str, object]] = []
    for command in COMMAND.finditer(text):
        name, setter, post = command["name"], command["setter"], command["post"].lstrip("&")
        entry: dict[str, object] = {"name": name, "module": owner}
        if _parameters_handler(name, setter):
            body = _function(text, setter)
            entry["words"] = sorted(set(WORD.findall(body)))
            entry["prefixes"] = sorted(set(PREFIX.findall(body)))
        elif setter in TABLE_SETTERS:
            kind = "enum" if setter == "ngx_conf_set_enum_slot" else "bitmask"
            entry[kind] = [n for n in tables.get(post, []) if n]
        elif post in bounds:
            entry["bounds"] = bounds[post]
        elif setter == "ngx_conf_set_off_slot":
            entry["offset"] = True
        else:
            continue  # another post handler (a deprecation, a module's own check)
        out.append(entry)
    return out


def extract(git: Git) -> str:
    """The excerpts file's text, from every release tag of the clone."""

    def cut(texts: dict[str, str]) -> dict[str, str]:
        shared = {
            m["table"]: m.group(0)
            for text in texts.values()
            for m in TABLE.finditer(text)
            if not m.group(0).startswith("static")
        }
        return {path: excerpt(text, shared) for path, text in texts.items()}

    return collect(git, cut, "build_value_tables.py")


def build(text: str) -> str:
    """The table's text, from the excerpts file's text."""
    commits, excerpts = sections(text)
    releases = list(commits)
    per_version: list[list[dict[str, object]]] = [[] for _ in releases]
    for _, body, indexes in excerpts:
        entries = parse(body)
        for index in indexes:
            per_version[index].extend(entries)
    for found in per_version:
        found.sort(key=lambda e: (str(e["name"]), str(e["module"])))
    document = {
        "about": "What nginx's own setters read as a directive's value, per release "
        "(scripts/build_value_tables.py, from tests/data/nginx_value_sources.txt): enum and "
        "bitmask names (read in any letter case), num bounds [low, high or null], offset "
        "(ngx_parse_offset: k, m, g), and the parameters of each listen and upstream server "
        "handler (words and prefixes); ranges of releases [first, end) as indexes into `releases`.",
        "source": "github.com/nginx/nginx release tags; src/core/ngx_conf_file.c "
        "ngx_conf_set_enum_slot, ngx_conf_set_bitmask_slot, ngx_conf_check_num_bounds",
        "releases": releases,
        "commits": commits,
        "directives": fold(list(zip(releases, per_version, strict=True))),
    }
    return json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    main(__doc__.splitlines()[0], EXCERPTS, OUT, extract, build)
