"""Write nginxgen/knowledge/nginx_directives.json: every directive of every nginx release from
1.18.0 on, read from nginx's own sources (issue 27).

    python scripts/build_directive_tables.py --repo CLONE_OF_nginx/nginx \
        [--third-party OWNER/NAME=CLONE ...]

For each release tag, every `ngx_command_t` array under src/ gives the directive's name, the
contexts it is allowed in, its argument count and whether it takes a block (the flags
ngx_conf_handler() checks), and the module it belongs to; auto/options and auto/modules say
whether that module is built by default or needs a configure option. Consecutive releases with
the same entry are folded into version ranges. Each `--third-party` repository (its default
branch's newest commit) adds the directives of a common third-party module, tagged with it,
and the variables its code registers (without --repo, only that table is written: the
repositories given replace their entries, the others stay). Preprocessor conditions inside a
command array
(`#if (NGX_HAVE_FILE_AIO)`) are not evaluated: such directives count as present.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

from nginxgen.knowledge.data import dumps_by_line

KNOWLEDGE = Path(__file__).resolve().parent.parent / "nginxgen" / "knowledge"
OUT = KNOWLEDGE / "nginx_directives.json"
THIRD_PARTY = KNOWLEDGE / "third_party_directives.json"
FIRST = (1, 18, 0)

# ngx_conf_file.h and the modules' headers: which block a context flag means
CONTEXT_FLAGS = {
    "NGX_MAIN_CONF": "main",
    "NGX_DIRECT_CONF": None,  # how the handler gets its conf, not a context
    "NGX_ANY_CONF": "any",
    "NGX_EVENT_CONF": "events",
    "NGX_HTTP_MAIN_CONF": "http",
    "NGX_HTTP_SRV_CONF": "server",
    "NGX_HTTP_LOC_CONF": "location",
    "NGX_HTTP_UPS_CONF": "upstream",
    "NGX_HTTP_SIF_CONF": "if_server",
    "NGX_HTTP_LIF_CONF": "if_location",
    "NGX_HTTP_LMT_CONF": "limit_except",
    "NGX_STREAM_MAIN_CONF": "stream",
    "NGX_STREAM_SRV_CONF": "stream_server",
    "NGX_STREAM_UPS_CONF": "stream_upstream",
    "NGX_MAIL_MAIN_CONF": "mail",
    "NGX_MAIL_SRV_CONF": "mail_server",
}
ARG_FLAGS = {f"NGX_CONF_TAKE{n}": [n] for n in range(1, 8)} | {"NGX_CONF_NOARGS": [0]}
ARG_FLAGS |= {
    "NGX_CONF_TAKE12": [1, 2], "NGX_CONF_TAKE13": [1, 3], "NGX_CONF_TAKE23": [2, 3],
    "NGX_CONF_TAKE123": [1, 2, 3], "NGX_CONF_TAKE1234": [1, 2, 3, 4],
}  # fmt: skip
SPECIAL = {"NGX_CONF_FLAG": "flag", "NGX_CONF_ANY": "any", "NGX_CONF_1MORE": "1more",
           "NGX_CONF_2MORE": "2more"}  # fmt: skip

ARRAY = re.compile(r"ngx_command_t\s+\w+\[\]\s*=\s*\{(.*?)ngx_null_command", re.S)
ENTRY = re.compile(r'\{\s*ngx_string\s*\("([^"]+)"\)\s*,\s*([^,]+),\s*(\w+)', re.S)
# nginx's own value setters (ngx_conf_file.c): a value they cannot read is an error at `nginx -t`
VALUE_SETTERS = {
    "ngx_conf_set_flag_slot": "flag", "ngx_conf_set_size_slot": "size",
    "ngx_conf_set_off_slot": "size", "ngx_conf_set_msec_slot": "msec",
    "ngx_conf_set_sec_slot": "sec", "ngx_conf_set_num_slot": "num",
}  # fmt: skip
MODULE = re.compile(r"^ngx_module_t\s+(\w+)\s*=", re.M)


class Git:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.batch = subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.repo), *args], capture_output=True, text=True, check=True
        ).stdout

    def read(self, tag: str, path: str) -> str:
        assert self.batch.stdin is not None and self.batch.stdout is not None
        self.batch.stdin.write(f"{tag}:{path}\n".encode())
        self.batch.stdin.flush()
        header = self.batch.stdout.readline().split()
        if len(header) < 3:
            return ""
        data = self.batch.stdout.read(int(header[2]))
        self.batch.stdout.read(1)
        return data.decode("utf-8", "replace")


def parse_flags(expression: str) -> dict[str, object]:
    words = re.findall(r"NGX_\w+", expression)
    contexts = sorted({CONTEXT_FLAGS[w] for w in words if CONTEXT_FLAGS.get(w)})
    counts = sorted({n for w in words for n in ARG_FLAGS.get(w, [])})
    special = [SPECIAL[w] for w in words if w in SPECIAL]
    return {
        "contexts": contexts,
        "args": special[0] if special else counts,
        "block": "NGX_CONF_BLOCK" in words,
    }


# Event modules auto/os/* adds for other systems: their directives exist on those only.
PLATFORM = {
    "ngx_kqueue_module": "FreeBSD, macOS", "ngx_devpoll_module": "Solaris",
    "ngx_eventport_module": "Solaris", "ngx_iocp_module": "Windows",
}  # fmt: skip


# Modules auto/modules adds outside an `ngx_module_name=` line: the thread pool (added to the
# module list when USE_THREADS is set by --with-threads) and QUIC's eBPF helper (built with
# HTTP/3 where the system has SO_COOKIE).
SET_ELSEWHERE = {
    "ngx_thread_pool_module": {"option": "--with-threads", "default": False},
    "ngx_quic_bpf_module": {"option": "--with-http_v3_module", "default": False},
}
LIBRARY_SWITCHES = {"USE_PCRE", "USE_OPENSSL", "USE_OPENSSL_QUIC", "USE_ZLIB"}


def options(git: Git, tag: str) -> dict[str, dict[str, object]]:
    """Module name -> the configure option that builds it and whether it is built without one.
    Each `ngx_module_name=` line of auto/modules belongs to its innermost `if [ $VAR ...`;
    the variable's switch and default come from auto/options. Library switches (USE_PCRE,
    USE_OPENSSL) follow from other choices: their modules count as always built."""
    opts = git.read(tag, "auto/options")
    defaults = dict(re.findall(r"^([A-Z0-9_]+)=(YES|NO)\s*$", opts, re.M))
    switches = re.findall(r"^\s+(--with(?:out)?-[\w-]+)\)\s+([A-Z0-9_]+)=(YES|NO)\s*;;", opts, re.M)
    option_of = {var: opt for opt, var, _ in switches}
    out: dict[str, dict[str, object]] = {}
    stack: list[tuple[int, str]] = []  # (indent, variable) of the open ifs
    lines = git.read(tag, "auto/modules").splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        indent = len(line) - len(line.lstrip())
        opened = re.match(r"\s*if \[ \$(\w+) ", line)
        if opened:
            stack = [s for s in stack if s[0] < indent] + [(indent, opened.group(1))]
        elif re.match(r"\s*fi\s*$", line):
            stack = [s for s in stack if s[0] < indent]
        named = re.match(r"\s*ngx_module_name=(.*)$", line)
        if named and stack:
            text = named.group(1)
            while text.endswith("\\") and at + 1 < len(lines):
                at += 1
                text = text[:-1] + " " + lines[at]
            var = stack[-1][1]
            chosen = None if var in LIBRARY_SWITCHES else option_of.get(var)
            for module in re.findall(r"\bngx_\w+", text.replace('"', " ")):
                out.setdefault(
                    module, {"option": chosen, "default": defaults.get(var, "YES") == "YES"}
                )
        at += 1
    for module, system in PLATFORM.items():
        out[module] = {"option": None, "default": False, "platform": system}
    out.update(SET_ELSEWHERE)
    return out


def tags(git: Git) -> list[tuple[tuple[int, ...], str]]:
    found = []
    for tag in git.run("tag", "--list", "release-*").split():
        version = tuple(int(p) for p in tag.removeprefix("release-").split("."))
        if version >= FIRST:
            found.append((version, tag))
    return sorted(found)


# A directive's setter: its name and body (nginx's style puts the return type on a line of its
# own), and the setters it hands its line to (`return ngx_conf_set_flag_slot(cf, cmd, conf);`).
SETTER = re.compile(r"^(?:static\s+)?char\s*\*\n(\w+)\(ngx_conf_t\s*\*cf,.*?^\}\n", re.S | re.M)
HANDS_ON = re.compile(r"\b(\w+)\(cf, cmd, conf\)")
REFUSES = 'return "is duplicate";'


def refuses_when_set(body: str) -> bool:
    """Whether a setter refuses its line only because the value is already set: a `return "is
    duplicate";` whose outermost enclosing statement is an `if` testing that the field is set
    (`if (clcf->resolver)`, `!= NGX_CONF_UNSET`). Refusals that depend on the value are not
    counted: inside a loop over the zones given (limit_req: only the same zone twice), after a
    test of the arguments (`proxy_redirect off` then another), or of a value turned off (`==
    NULL`, `== 0`: `mirror` after `mirror off`)."""
    lines = body.splitlines()
    for at, line in enumerate(lines):
        if REFUSES not in line:
            continue
        depth = len(line) - len(line.lstrip())
        outer = line
        for above in reversed(lines[:at]):
            indent = len(above) - len(above.lstrip())
            if above.strip() and indent < depth and not above.lstrip().startswith("}"):
                outer, depth = above, indent
                if depth <= 4:
                    break
        test = outer.strip()
        if not test.startswith("if (") or any(
            word in test for word in ("== NULL", "== 0", "ngx_str", "cf->args", "value[")
        ):
            return False
    return REFUSES in body


def refusing_setters(texts: list[str]) -> set[str]:
    """The setters that refuse a second line of their directive in one block: those that
    `return "is duplicate";` when the value is already set (ngx_conf_file.c's flag, str, num,
    size, off, msec, sec, bufs, enum and path slots; handlers such as try_files', root's and
    proxy_pass'), and handlers that hand their line to one of them (`ssl`'s
    ngx_http_ssl_enable to ngx_conf_set_flag_slot)."""
    calls: dict[str, set[str]] = {}
    found: set[str] = set()
    for text in texts:
        for setter in SETTER.finditer(text):
            name, body = setter.group(1), setter.group(0)
            calls.setdefault(name, set()).update(HANDS_ON.findall(body))
            if refuses_when_set(body):
                found.add(name)
    grown = True
    while grown:
        more = {name for name, called in calls.items() if name not in found and called & found}
        found |= more
        grown = bool(more)
    return found


# `static ngx_conf_deprecated_t  NAME = { ngx_conf_deprecated, "old", "new" };`: a command whose
# post is one warns that its name is deprecated (ngx_conf_deprecated) and names the new one
DEPRECATED = re.compile(
    r'ngx_conf_deprecated_t\s+(\w+)\s*=\s*\{\s*ngx_conf_deprecated\s*,\s*"[^"]*"\s*,\s*"([^"]*)"'
)
COMMAND = re.compile(r'\{\s*ngx_string\s*\("([^"]+)"\)(.*?)\}', re.S)
OBSOLETE = "directive is obsolete"


def obsolete_setters(texts: list[str]) -> set[str]:
    """The handlers that accept a line and only warn that the directive is obsolete
    (ngx_http_v2_obsolete: `the "http2_push" directive is obsolete, ignored`, or with its post
    `..., use the "keepalive_timeout" directive instead`)."""
    return {
        setter.group(1)
        for text in texts
        for setter in SETTER.finditer(text)
        if OBSOLETE in setter.group(0)
    }


def _post(command: str) -> str:
    """The last field of a command (its post), `&name` or NULL."""
    return command.rsplit(",", 1)[-1].strip().lstrip("&")


def commands(git: Git, tag: str, under: str = "src/") -> list[dict[str, object]]:
    listed = git.run("ls-tree", "-r", "--name-only", tag, *([under] if under else []))
    files = [f for f in listed.split() if f.endswith((".c", ".cc"))]
    texts = {path: git.read(tag, path) for path in files}
    refusing = refusing_setters(list(texts.values()))
    obsolete = obsolete_setters(list(texts.values()))
    out = []
    for path, text in texts.items():
        module = MODULE.search(text)
        renamed = dict(DEPRECATED.findall(text))
        for array in ARRAY.findall(text):
            posts = {name: _post(rest) for name, rest in COMMAND.findall(array)}
            for name, flags, handler in ENTRY.findall(array):
                value = {"value": VALUE_SETTERS[handler]} if handler in VALUE_SETTERS else {}
                once = {"duplicate": True} if handler in refusing else {}
                instead = renamed.get(posts.get(name, ""))
                # obsolete: accepted, ignored, with a warning ("" or the directive to use);
                # deprecated: still works, with a warning naming the directive to use
                warns = (
                    {"obsolete": instead or ""}
                    if handler in obsolete
                    else {"deprecated": instead}
                    if instead is not None
                    else {}
                )
                out.append(
                    {"name": name, "module": module.group(1) if module else path,
                     **parse_flags(flags), **value, **once, **warns}
                )  # fmt: skip
    return out


def fold(
    per_version: list[tuple[str, list[dict[str, object]]]],
) -> dict[str, list[dict[str, object]]]:
    """name -> entries, each with the ranges of releases [first, end) it holds in, as indexes
    into the release list (end None: to the newest)."""
    versions = [v for v, _ in per_version]
    seen: dict[str, dict[str, list[int]]] = {}
    entries: dict[str, dict[str, dict[str, object]]] = {}
    for index, (_, found) in enumerate(per_version):
        for entry in found:
            key = json.dumps(entry, sort_keys=True)
            seen.setdefault(str(entry["name"]), {}).setdefault(key, []).append(index)
            entries.setdefault(str(entry["name"]), {})[key] = entry
    out: dict[str, list[dict[str, object]]] = {}
    for name in sorted(seen):
        for key, indexes in seen[name].items():
            ranges: list[list[int | None]] = []
            start = previous = indexes[0]
            for i in [*indexes[1:], None]:
                if i is not None and i == previous + 1:
                    previous = i
                    continue
                ranges.append([start, previous + 1 if previous + 1 < len(versions) else None])
                if i is not None:
                    start = previous = i
            entry = {k: v for k, v in entries[name][key].items() if k != "name"}
            out.setdefault(name, []).append({**entry, "ranges": ranges})
    return out


def third_party(specs: list[str]) -> dict[str, object]:
    """repository -> its commit, directives (name -> entries) and the variables its code
    registers by name (ngx_http_variable_t arrays, as scripts/build_variable_tables.py reads
    nginx's: `prefix` for a family of names), from its newest commit. Variables a module adds
    for a directive's argument (js_set $v, keyval ... $v) are the config's: not listed."""
    # build_variable_tables imports this module: not at the top
    from build_variable_tables import ARRAY as VARIABLES
    from build_variable_tables import NEVER

    # an entry's name is a string or a macro of one (`ngx_string(NGX_..._VAR_PREFIX)`)
    entry_pattern = re.compile(r'\{\s*ngx_string\((?:"([^"]+)"|(\w+))\)(.*?)\}', re.S)

    out: dict[str, object] = {}
    for spec in sorted(specs):
        repo, _, path = spec.partition("=")
        git = Git(Path(path))
        found: dict[str, list[dict[str, object]]] = {}
        for entry in commands(git, "HEAD", under=""):
            name = str(entry.pop("name"))
            if entry not in found.setdefault(name, []):
                found[name].append(entry)
        sources = {
            file: git.read("HEAD", file)
            for file in git.run("ls-tree", "-r", "--name-only", "HEAD").split()
            if file.endswith((".c", ".h"))
        }
        macros = dict(
            re.findall(r'^#define\s+(\w+)\s+"([^"]*)"', "\n".join(sources.values()), re.M)
        )
        variables: dict[str, dict[str, object]] | None = {}
        for text in sources.values():
            for array in VARIABLES.finditer(text):
                family = "stream" if "ngx_stream_variable_t" in array.group(0) else "http"
                for literal, macro, rest in entry_pattern.findall(NEVER.sub("", array.group(0))):
                    name = literal or macros.get(macro)
                    if name is None or variables is None:
                        variables = None  # a name not read: the module's list is not known
                        continue
                    variable: dict[str, object] = {"name": name, "family": family}
                    if "_VAR_PREFIX" in rest:
                        variable["prefix"] = True
                    variables[f"{family} {name}"] = variable
        out[repo] = {
            "commit": git.run("rev-parse", "HEAD").strip(),
            "directives": dict(sorted(found.items())),
            # None: an entry's name was not read (the module's variables are not known)
            "variables": None if variables is None else [variables[k] for k in sorted(variables)],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="without it, only the third-party table")
    parser.add_argument("--third-party", action="append", default=[], metavar="OWNER/NAME=PATH")
    args = parser.parse_args()
    if args.third_party:  # the repositories given replace their entries; the others stay
        modules = json.loads(THIRD_PARTY.read_text())["modules"]
        modules.update(third_party(args.third_party))
        extra = {
            "about": "Directives of common third-party nginx modules, and the variables their "
            "code registers by name, from each repository's newest commit "
            "(scripts/build_directive_tables.py --third-party).",
            "modules": dict(sorted(modules.items())),
        }
        THIRD_PARTY.write_text(json.dumps(extra, separators=(",", ":")) + "\n")
        print(f"wrote {THIRD_PARTY}: {', '.join(sorted(modules))}")
    if args.repo is None:
        return
    git = Git(args.repo)
    per_version = []
    modules: dict[str, dict[str, object]] = {}
    commits = {}
    for version, tag in tags(git):
        name = ".".join(map(str, version))
        commits[name] = git.run("rev-list", "-n", "1", tag).strip()
        per_version.append((name, commands(git, tag)))
        for module, info in options(git, tag).items():
            modules[module] = info  # the newest release's word
    document = {
        "about": "Directives of nginx's own modules per release, from the ngx_command_t arrays of "
        "the release tags (scripts/build_directive_tables.py): contexts, argument count (a list "
        "of counts, or flag/any/1more/2more), block, value setter, whether a second line in one "
        "block is refused as duplicate, whether nginx warns that it is obsolete (ignored; the "
        'directive to use, or "") or deprecated (the directive to use), module, and the ranges of '
        "releases [first, end) each entry holds in, as indexes into `releases`. modules: "
        "configure option and whether built by default.",
        "source": "github.com/nginx/nginx release tags; src/core/ngx_conf_file.c ngx_conf_handler()",
        "releases": list(commits),
        "commits": commits,
        "modules": dict(sorted(modules.items())),
        "directives": fold(per_version),
    }
    # read on every lint: one directive per line, so that a lint decodes only the names it meets
    OUT.write_text(dumps_by_line(document, "directives"))
    print(f"wrote {OUT}: {len(document['directives'])} directives over {len(commits)} releases")


if __name__ == "__main__":
    main()
