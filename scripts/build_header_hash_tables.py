"""Write nginxgen/knowledge/nginx_header_hashes.json: what nginx puts in the proxy and grpc
modules' header hashes (`proxy_headers_hash`, `grpc_headers_hash`) and with which sizes, per
release from 1.18.0 on, read from nginx's sources (issue 44).

    python scripts/build_header_hash_tables.py --repo CLONE_OF_nginx/nginx   # read the tags
    python scripts/build_header_hash_tables.py                               # from the excerpts

Two steps, as scripts/build_value_tables.py: with --repo, each release tag's sources are cut
down to the lines this script reads, verbatim, and stored in
tests/data/nginx_header_hash_sources.txt (nginx is BSD-2-Clause); then the excerpts are parsed
into the table. The lines read:

- ngx_http_proxy_module.c and ngx_http_grpc_module.c: the default headers each sends
  (`ngx_http_proxy_headers[]`, the cache variant `ngx_http_proxy_cache_headers[]`,
  `ngx_http_grpc_headers[]`), the headers each hides (`ngx_http_*_hide_headers[]`), the sizes
  the merge gives both hashes (`ngx_conf_merge_uint_value(conf->headers_hash_max_size, ..., 512)`
  where a directive sets them, `hash.max_size = 512;` where none does), and the init_headers
  function, whose `Host` lines (from 1.31.4) are kept out of the hash, and how the merge
  inherits a level's list (`source_unset`: from 1.19.4, a level without lines under one
  without lines, a server under http{}, gets NULL, not the outer level's unset list, so it
  builds a hash of its own rather than sharing the first server's);
- src/http/ngx_http_upstream.c's ngx_http_upstream_hide_headers_hash, src/core/ngx_hash.c's
  ngx_hash_init and NGX_HASH_ELT_SIZE: these are emulated by
  nginxgen/knowledge/header_hashes.py, not parsed; the script checks that each release's text
  still has the shape that code emulates (and stops where it does not), and records the one
  difference among them: before 1.21.4 ngx_hash_init's first check (a name too long for a
  bucket) also measured the names proxy_pass_header took out of the hidden list.

ngx_cacheline_size is taken as 64 (x86-64's NGX_CPU_CACHE_LINE, and what ngx_cpuinfo sets for
any AMD and any Intel Core CPU): `ngx_align(64, ngx_cacheline_size)` is 64.
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
OUT = ROOT / "nginxgen" / "knowledge" / "nginx_header_hashes.json"
EXCERPTS = ROOT / "tests" / "data" / "nginx_header_hash_sources.txt"
MODULES = ("proxy", "grpc")
CACHELINE = 64  # ngx_cacheline_size (see the docstring)
HASH_C = "src/core/ngx_hash.c"
UPSTREAM_C = "src/http/ngx_http_upstream.c"

ELT_SIZE = re.compile(r"^#define NGX_HASH_ELT_SIZE\(name\)\s*\\\n.*$", re.M)
KNOWN_ELT_SIZE = (
    "#define NGX_HASH_ELT_SIZE(name)                                               \\\n"
    "    (sizeof(void *) + ngx_align((name)->key.len + 2, sizeof(void *)))"
)
# what nginxgen/knowledge/header_hashes.py emulates, in each release's ngx_hash_init
HASH_INIT_SHAPE = (
    "if (hinit->max_size == 0)",
    "if (hinit->bucket_size > 65536 - ngx_cacheline_size)",
    "if (hinit->bucket_size < NGX_HASH_ELT_SIZE(&names[n]) + sizeof(void *))",
    "bucket_size = hinit->bucket_size - sizeof(void *);",
    "start = nelts / (bucket_size / (2 * sizeof(void *)));",
    "start = start ? start : 1;",
    "if (hinit->max_size > 10000 && nelts && hinit->max_size / nelts < 100) {",
    "start = hinit->max_size - 1000;",
    "for (size = start; size <= hinit->max_size; size++) {",
    "key = names[n].key_hash % size;",
    "len = test[key] + NGX_HASH_ELT_SIZE(&names[n]);",
    "if (len > bucket_size) {",
    "size = hinit->max_size;",
    '"could not build optimal %s, you should increase "',
    "if (len > 65536 - ngx_cacheline_size) {",
)
HIDE_SHAPE = (
    "if (conf->hide_headers == NGX_CONF_UNSET_PTR\n        && conf->pass_headers == NGX_CONF_UNSET_PTR)",
    "conf->hide_headers_hash = prev->hide_headers_hash;",
    "if (ngx_strcasecmp(h[i].data, hk[j].key.data) == 0) {\n                    goto exist;",
    "hk[j].key.data = NULL;",
    "if (prev->hide_headers_hash.buckets == NULL\n        && conf->hide_headers == prev->hide_headers\n        && conf->pass_headers == prev->pass_headers)",
)
INIT_HEADERS_SHAPE = (
    "if (headers->hash.buckets) {\n        return NGX_OK;",
    "if (ngx_strcasecmp(h->key.data, src[i].key.data) == 0) {\n                goto next;",
    "hk->key_hash = ngx_hash_key_lc(src[i].key.data, src[i].key.len);",
    "return ngx_hash_init(&hash, headers_names.elts, headers_names.nelts);",
)
# the merge's inheritance of the header lists and their hashes (ngx_http_*_merge_loc_conf)
MERGE_SHAPE = (
    "prev->headers.hash.buckets == NULL",
    "conf->headers = prev->headers;",
    "prev->headers = conf->headers;",
)


# the command entries kept: the lists' and the sizes' directives
WANTED = r"{module}_(?:set_header|hide_header|pass_header|headers_hash_\w+)"


# the command entries kept: the lists' and the sizes' directives
WANTED = r"{module}_(?:set_header|hide_header|pass_header|headers_hash_\w+)"


def _function(text: str, name: str) -> str:
    found = re.search(rf"^{name}\(.*?^\}}\n", text, re.S | re.M)
    return found.group(0) if found else ""


def _array(text: str, kind: str, name: str) -> str:
    found = re.search(rf"^static {kind}\s+{name}\[\] = \{{\n.*?^\}};\n", text, re.S | re.M)
    return found.group(0) if found else ""


def _names(array: str) -> list[str]:
    """The names of an ngx_keyval_t array (each entry's first string) or an ngx_str_t one."""
    if "ngx_keyval_t" in array.partition("\n")[0]:
        return re.findall(r'\{\s*ngx_string\("([^"]+)"\)', array)
    return re.findall(r'^\s*ngx_string\("([^"]+)"\),$', array, re.M)


def _module_excerpt(text: str, module: str) -> str:
    prefix = f"ngx_http_{module}"
    merge = _function(text, f"{prefix}_merge_loc_conf")
    kept = re.compile(
        r"headers_hash|hash\.(?:max_size|bucket_size|name) =|ngx_cacheline_size|headers_source"
        r"|headers(?:_cache)? = |hash\.buckets == NULL"
    )
    sizes = [line + "\n" for line in merge.splitlines() if kept.search(line)]
    commands = [
        command.group(0)
        for array in ARRAY.findall(text)
        for command in re.finditer(r'\{ ngx_string\("(\w+)"\),.*?\}', array, re.S)
        if re.fullmatch(WANTED.format(module=module), command.group(1))
    ]
    parts = [
        *(m.group(0) for m in [MODULE.search(text)] if m),
        *commands,
        _array(text, "ngx_keyval_t", f"{prefix}_headers"),
        _array(text, "ngx_keyval_t", f"{prefix}_cache_headers"),
        _array(text, "ngx_str_t", f"{prefix}_hide_headers"),
        "".join(sizes),
        _function(text, f"{prefix}_init_headers"),
    ]
    return "\n".join(p for p in parts if p)


def excerpt(path: str, text: str) -> str:
    """The verbatim parts of one source file that `parse` reads ("" when none)."""
    if path == HASH_C:
        found = ELT_SIZE.search(text)
        return (found.group(0) + "\n\n" if found else "") + _function(text, "ngx_hash_init")
    if path == UPSTREAM_C:
        return _function(text, "ngx_http_upstream_hide_headers_hash")
    for module in MODULES:
        if path == f"src/http/modules/ngx_http_{module}_module.c":
            return _module_excerpt(text, module)
    return ""


def _require(text: str, shape: tuple[str, ...], what: str) -> None:
    """Stop where a release's code no longer has the shape the emulation follows."""
    missing = [line for line in shape if line not in text]
    if missing:
        raise SystemExit(f"{what} changed: {missing[0]!r} is gone; update header_hashes.py")


def _size(expression: str, default: dict[str, int]) -> int:
    """A hash size the merge gives: a number, ngx_align(number, ngx_cacheline_size), or the
    merged directive value (its default)."""
    number = re.fullmatch(r"(\d+)", expression)
    if number:
        return int(number.group(1))
    aligned = re.fullmatch(r"ngx_align\((\d+), ngx_cacheline_size\)", expression)
    if aligned:
        return -(-int(aligned.group(1)) // CACHELINE) * CACHELINE
    field = re.fullmatch(r"conf->(headers_hash_\w+)", expression)
    if field and field.group(1) in default:
        return default[field.group(1)]
    raise SystemExit(f"unknown hash size {expression!r}")


def parse_module(module: str, text: str) -> dict[str, object]:
    """The hash facts of one module's excerpt."""
    prefix = f"ngx_http_{module}"
    init = _function(text, f"{prefix}_init_headers")
    _require(init, INIT_HEADERS_SHAPE, f"{prefix}_init_headers")
    _require(text, MERGE_SHAPE, f"{prefix}_merge_loc_conf")
    defaults = {
        field: int(value)
        for field, value in re.findall(
            r"ngx_conf_merge_uint_value\(conf->(headers_hash_\w+),\s*prev->\w+, (\d+)\);", text
        )
    }
    hashes = re.findall(
        r"hash\.max_size = ([^;]+);\s*hash\.bucket_size = ([^;]+);\s*hash\.name = \"(\w+)\";",
        text,
    )
    sizes = {(_size(m, defaults), _size(b, defaults)) for m, b, _ in hashes}
    names = {name for _, _, name in hashes}
    if len(hashes) != 2 or len(sizes) != 1 or len(names) != 1:
        raise SystemExit(f"{prefix}: expected one size and name for both hashes: {hashes}")
    max_size, bucket_size = sizes.pop()
    directives = set(re.findall(rf'ngx_string\("({module}_\w+)"\)', text))
    sized = {f"{module}_headers_hash_max_size", f"{module}_headers_hash_bucket_size"}
    if sized & directives and not sized <= directives:
        raise SystemExit(f"{prefix}: only one of {sorted(sized)}")
    # a `Host` line that the loop over the config's lines `continue`s past is not hashed
    if "ngx_conf_merge_ptr_value(conf->headers_source, prev->headers_source, NULL);" in text:
        unset = True  # from 1.19.4: NGX_CONF_UNSET_PTR where a level has no lines of its own
    elif "if (conf->headers_source == NULL) {" in text:
        unset = False  # NULL where a level has none; then it takes the outer level's
    else:
        raise SystemExit(f"{prefix}_merge_loc_conf: unknown merge of headers_source")
    host = re.search(r'"Host", 4\) == 0\)(.*?)s = ngx_array_push\(&headers_merged\)', init, re.S)
    entry: dict[str, object] = {
        "name": module,
        "hash": names.pop(),
        "headers": _names(_array(text, "ngx_keyval_t", f"{prefix}_headers")),
        "hide_headers": _names(_array(text, "ngx_str_t", f"{prefix}_hide_headers")),
        "max_size": max_size,
        "bucket_size": bucket_size,
        "sizes_directives": sized <= directives,
        "host_skipped": bool(host and "continue;" in host.group(1)),
        "source_unset": unset,
    }
    cache = _names(_array(text, "ngx_keyval_t", f"{prefix}_cache_headers"))
    if cache:
        entry["cache_headers"] = cache
    return entry


def parse(path: str, text: str) -> tuple[str, dict[str, object]]:
    """The table (`modules` or `hash_init`) and entry an excerpt gives."""
    if path == HASH_C:
        _require(text, (KNOWN_ELT_SIZE, *HASH_INIT_SHAPE), "ngx_hash_init")
        # the first loop, over the names before `test` is allocated: does it skip removed ones?
        checks = text[: text.index("test = ngx_alloc")]
        return "hash_init", {"name": "hash_init", "sizes_removed": "key.data == NULL" not in checks}
    if path == UPSTREAM_C:
        _require(text, HIDE_SHAPE, "ngx_http_upstream_hide_headers_hash")
        return "hide", {"name": "hide"}
    module = path.rsplit("/", 1)[1].removeprefix("ngx_http_").removesuffix("_module.c")
    return "modules", parse_module(module, text)


def extract(git: Git) -> str:
    """The excerpts file's text, from every release tag of the clone."""

    def cut(texts: dict[str, str]) -> dict[str, str]:
        return {path: excerpt(path, text) for path, text in texts.items()}

    return collect(git, cut, "build_header_hash_tables.py")


def build(text: str) -> str:
    """The table's text, from the excerpts file's text."""
    commits, excerpts = sections(text)
    releases = list(commits)
    per_version: dict[str, list[list[dict[str, object]]]] = {}
    for path, body, indexes in excerpts:
        table, entry = parse(path, body)
        for index in indexes:
            per_version.setdefault(table, [[] for _ in releases])[index].append(entry)
    for table in ("hash_init", "hide"):
        if any(not found for found in per_version[table]):
            raise SystemExit(f"a release lacks the excerpt for {table}")
    del per_version["hide"]  # checked, nothing to keep
    document = {
        "about": "The proxy and grpc modules' header hashes per release "
        "(scripts/build_header_hash_tables.py, from tests/data/nginx_header_hash_sources.txt): "
        "each module's hash name, default headers (and the proxy cache's), hidden headers, "
        "default max and bucket sizes (after ngx_align to a 64-byte cache line), whether "
        "directives set them, whether `Host` lines stay out of the hash; hash_init: whether "
        "ngx_hash_init's too-long check measures names proxy_pass_header removed. Ranges of "
        "releases [first, end) as indexes into `releases`.",
        "source": "github.com/nginx/nginx release tags; src/core/ngx_hash.c ngx_hash_init, "
        "src/http/ngx_http_upstream.c ngx_http_upstream_hide_headers_hash, "
        "src/http/modules/ngx_http_proxy_module.c and ngx_http_grpc_module.c "
        "(merge_loc_conf, init_headers)",
        "releases": releases,
        "commits": commits,
        **{
            table: fold(list(zip(releases, found, strict=True)))
            for table, found in sorted(per_version.items())
        },
    }
    return json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    main(__doc__.splitlines()[0], EXCERPTS, OUT, extract, build)
