"""Write tests/data/value_vocabulary.json: the words the value differential (issue 36,
`scripts/fuzz.py values`) draws from, read from nginx's and the TLS libraries' own sources and
binaries, never from nginxgen's tables (an oracle must not share what it checks).

    python scripts/build_value_vocabulary.py --downloads FOLDER [--builds]
    python scripts/build_value_vocabulary.py --nginx CLONE_OF_nginx/nginx \
        --openssl CLONE_OF_quictls/openssl --awslc CLONE_OF_aws/aws-lc [--builds]

With --downloads, the sources are the pinned files of scripts/pins.json's "vocabulary" group,
fetched into (or found verified in) FOLDER: nginx 1.22.1 and 1.26.3 as Debian's orig tarballs
(nginx's release tarballs), nginx 1.28.3 as the nginx-src crate, OpenSSL 3.3.2 as the
openssl-src crate (OpenSSL's release tree; the quictls fork's tag has the same names in these
three files) and AWS-LC 5.5.0 as the aws-lc-sys crate's vendored tree (aws-lc-sys 0.44.0). This
is what tests/lint/test_value_oracle.py regenerates the committed file from. nginx 1.31.3 (the
wheel build's mainline release) is in no package registry (nginx.org and GitHub only): without a
clone its entries are kept from the committed file, and the script names what it kept. The
release tarballs are what the builds compile; 1.22.1's leaves out the Windows-only sources its
git tag has (the iocp module: `iocp_threads`, `acceptex_read`, `post_acceptex`), so a clone's
1.22.1 has those three more.

From nginx, at each release tag the builds run (and 1.28.3, the stable line): every TLS-relevant
command of the http and stream modules (its name, contexts, argument count, setter and post
handler, as in its `ngx_command_t` entry), the words of the `ngx_conf_enum_t` and
`ngx_conf_bitmask_t` tables and `ngx_conf_num_bounds_t` bounds the setter reads, and the string
literals a custom setter compares its arguments with (`"shared:"`, `"backlog="`, `"always"`).

From OpenSSL (quictls' fork, the 3.3 line): the `SSL_CONF_CMD` names `ssl_conf_command` takes
and the command-line switches it does not, the `Options` and protocol words, the cipher-string
keywords (`SSL_TXT_*`) and the providers' TLS group names. From AWS-LC: its named groups and
cipher aliases. With --builds, the provisioned builds' `openssl` binaries add their group lists
and cipher names (`list -all-tls-groups` where it exists, `ecparam -list_curves`,
`ciphers -v ALL:COMPLEMENTOFALL`).

The output is short lists of keywords copied from BSD-2 (nginx) and Apache-2.0 (OpenSSL,
AWS-LC) sources; tests/data/PROVENANCE.tsv names them.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any, Protocol

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "value_vocabulary.json"
TAGS = ("1.22.1", "1.26.3", "1.28.3", "1.31.3")
OPENSSL_TAG = "openssl-3.3.2"
AWSLC_REF = "v5.5.0"
# Without clones: each source as a pinned file of scripts/pins.json's "vocabulary" group, and the
# folder inside it that is the project's repository layout (the crates put it one level down).
GROUP = "vocabulary"
ARCHIVES = {
    "1.22.1": ("nginx_1.22.1.orig.tar.gz", "nginx-1.22.1"),
    "1.26.3": ("nginx_1.26.3.orig.tar.gz", "nginx-1.26.3"),
    "1.28.3": ("nginx-src-1.28.5+1.28.3.crate", "nginx-src-1.28.5+1.28.3/nginx"),
    "openssl": ("openssl-src-300.3.2+3.3.2.crate", "openssl-src-300.3.2+3.3.2/openssl"),
    "aws-lc": ("aws-lc-sys-0.44.0.crate", "aws-lc-sys-0.44.0/aws-lc"),
}
OPENSSL_FILES = ("ssl/ssl_conf.c", "include/openssl/ssl.h.in", "providers/common/capabilities.c")
AWSLC_FILES = ("ssl/ssl_key_share.cc", "ssl/ssl_cipher.cc")

RELEVANT = re.compile(
    r"^(ssl|ssl_\w+|(proxy|grpc|uwsgi)_ssl_\w+|listen|add_header|add_trailer|keepalive_\w+"
    r"|http2|http2_\w+|http3|http3_\w+|quic_\w+|proxy_ssl)$"
)
SOURCES = ("src/core", "src/event", "src/http", "src/stream")
CONTEXTS = {
    "NGX_MAIN_CONF": "main",
    "NGX_EVENT_CONF": "events",
    "NGX_HTTP_MAIN_CONF": "http",
    "NGX_HTTP_SRV_CONF": "server",
    "NGX_HTTP_LOC_CONF": "location",
    "NGX_HTTP_UPS_CONF": "upstream",
    "NGX_HTTP_LIF_CONF": "if_location",
    "NGX_STREAM_MAIN_CONF": "stream",
    "NGX_STREAM_SRV_CONF": "stream_server",
    "NGX_STREAM_UPS_CONF": "stream_upstream",
}
ARGS = {f"NGX_CONF_TAKE{n}": [n] for n in range(1, 8)} | {"NGX_CONF_NOARGS": [0]}
ARGS |= {"NGX_CONF_TAKE12": [1, 2], "NGX_CONF_TAKE13": [1, 3], "NGX_CONF_TAKE23": [2, 3],
         "NGX_CONF_TAKE123": [1, 2, 3], "NGX_CONF_TAKE1234": [1, 2, 3, 4],
         "NGX_CONF_FLAG": [1], "NGX_CONF_1MORE": [1, 2, 3, 4], "NGX_CONF_2MORE": [2, 3, 4]}  # fmt: skip

COMMANDS = re.compile(r"ngx_command_t\s+\w+\[\]\s*=\s*\{(.*?)ngx_null_command", re.S)
ENTRY_START = re.compile(r'\{\s*ngx_string\("([^"]+)"\)\s*,')
TABLE = re.compile(r"ngx_conf_(enum|bitmask)_t\s+(\w+)\[\]\s*=\s*\{(.*?)\};", re.S)
BOUNDS = re.compile(
    r"ngx_conf_num_bounds_t\s+(\w+)\s*=\s*\{\s*ngx_conf_check_num_bounds\s*,\s*(-?\d+)\s*,\s*(-?\d+)"
)
WORD = re.compile(r'ngx_string\("([^"]*)"\)')
LITERAL = re.compile(r'"([^"%\s\\]{1,40})"')


class Tree(Protocol):
    """One release's source tree, by paths in the project's repository layout."""

    def read(self, path: str) -> str:
        """The file's text ("" when the tree has no such file)."""
        ...

    def c_files(self) -> list[str]:
        """The .c files under SOURCES, in git's order (sorted paths)."""
        ...


class GitTree:
    """A tag of a clone (bare, or the .git folder of a work tree)."""

    def __init__(self, repo: Path, ref: str) -> None:
        self.repo, self.ref = repo, ref

    def read(self, path: str) -> str:
        done = subprocess.run(
            ["git", "--git-dir", str(self.repo), "show", f"{self.ref}:{path}"],
            capture_output=True, text=True, errors="replace", check=False,
        )  # fmt: skip
        return done.stdout

    def c_files(self) -> list[str]:
        done = subprocess.run(
            ["git", "--git-dir", str(self.repo), "ls-tree", "-r", "--name-only", self.ref,
             *SOURCES],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return [p for p in done.stdout.split() if p.endswith(".c")]


class ArchiveTree:
    """The files under `root/` of a .tar.gz (a release tarball, a .crate), read into memory in one
    pass over the archive: only those a caller names (`wanted`), the rest skipped unread."""

    def __init__(self, archive: Path, root: str, wanted: tuple[str, ...]) -> None:
        self.files: dict[str, str] = {}
        prefix = root.rstrip("/") + "/"
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:
                path = member.name.removeprefix("./")
                if not (member.isfile() and path.startswith(prefix)):
                    continue
                path = path[len(prefix) :]
                if any(path == w or path.startswith(w.rstrip("/") + "/") for w in wanted):
                    data = tar.extractfile(member)
                    assert data is not None  # a regular file
                    self.files[path] = data.read().decode(errors="replace")
        if not self.files:
            raise SystemExit(f"{archive.name}: nothing under {prefix} of {', '.join(wanted)}")

    def read(self, path: str) -> str:
        return self.files.get(path, "")

    def c_files(self) -> list[str]:
        return sorted(p for p in self.files if p.endswith(".c"))


def entries(array: str) -> list[tuple[str, str, str, str]]:
    """(name, flags, setter, post) of each `ngx_command_t` entry: its six fields split at the
    commas outside parentheses (`offsetof(type, field)` has one)."""
    found = []
    for start in ENTRY_START.finditer(array):
        fields, depth, field = [], 0, ""
        for char in array[start.end() :]:
            if char in "({":
                depth += 1
            elif char in ")}":
                if depth == 0:
                    break
                depth -= 1
            if char == "," and depth == 0:
                fields.append(field.strip())
                field = ""
            else:
                field += char
        fields.append(field.strip())
        if len(fields) == 5:
            found.append((start.group(1), fields[0], fields[1], fields[4]))
    return found


def function_body(text: str, name: str) -> str:
    """The body of a C function defined in this file (nginx's style: the name starts a line)."""
    found = re.search(rf"^{name}\(ngx_conf_t[^)]*\)\s*\{{(.*?)^\}}", text, re.M | re.S)
    return found.group(1) if found else ""


def nginx_release(tree: Tree) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every TLS-relevant command of one release, as its ngx_command_t entries state it; and
    every command's contexts and whether it takes a block (NGX_CONF_BLOCK), for the
    structural differential's `;` lost before a block."""
    directives: dict[str, list[dict[str, Any]]] = {}
    shapes: dict[str, dict[str, Any]] = {}
    for path in tree.c_files():
        text = tree.read(path)
        tables = {m.group(2): WORD.findall(m.group(3)) for m in TABLE.finditer(text)}
        bounds = {m.group(1): [int(m.group(2)), int(m.group(3))] for m in BOUNDS.finditer(text)}
        for array in COMMANDS.finditer(text):
            for name, flags, setter, post in entries(array.group(1)):
                words = [w.strip() for w in flags.split("|")]
                shape = shapes.setdefault(name, {"contexts": set(), "block": set(), "args": set()})
                shape["contexts"] |= {CONTEXTS[w] for w in words if w in CONTEXTS}
                shape["block"].add("NGX_CONF_BLOCK" in words)
                shape["args"] |= {n for w in words for n in ARGS.get(w, [])}
                if not RELEVANT.match(name):
                    continue
                entry: dict[str, Any] = {
                    "module": Path(path).stem,
                    "contexts": sorted({CONTEXTS[w] for w in words if w in CONTEXTS}),
                    "args": sorted({n for w in words for n in ARGS.get(w, [])}),
                    "setter": setter,
                }
                entry["contexts"] = [c for c in entry["contexts"] if c not in ("main", "events")]
                if not entry["contexts"]:
                    continue  # mail, or a context the differential does not write
                table = post.lstrip("&")
                if table in tables:
                    entry["words"] = tables[table]
                if table in bounds:
                    entry["bounds"] = bounds[table]
                if not setter.startswith("ngx_conf_set_"):
                    literals = LITERAL.findall(function_body(text, setter))
                    entry["literals"] = sorted({w for w in literals if not w.startswith("ngx_")})
                directives.setdefault(name, []).append(entry)
    # one line a directive: "contexts|block or simple or both|argument counts"
    kinds = {(False,): "simple", (True,): "block", (False, True): "both"}
    structure = {
        name: "|".join((" ".join(sorted(shape["contexts"])), kinds[tuple(sorted(shape["block"]))],
                        " ".join(map(str, sorted(shape["args"])))))
        for name, shape in sorted(shapes.items())
        if shape["contexts"]
    }  # fmt: skip
    return dict(sorted(directives.items())), structure


def openssl_names(tree: Tree) -> dict[str, list[str]]:
    conf, header, caps = (tree.read(path) for path in OPENSSL_FILES)

    def table(name: str) -> list[str]:
        found = re.search(rf"{name}\[\]\s*=\s*\{{(.*?)\}};", conf, re.S)
        return re.findall(r'"([^"]+)"', found.group(1)) if found else []

    return {
        "conf_commands": sorted(set(re.findall(r"SSL_CONF_CMD(?:_STRING)?\((\w+),", conf))),
        "conf_switches": sorted(set(re.findall(r'SSL_CONF_CMD_SWITCH\("(\w+)"', conf))),
        "options": table("ssl_option_list"),
        "protocols": table("ssl_protocol_list"),
        "min_max_protocols": table("versions"),
        "verify_modes": table("ssl_vfy_list"),
        "cipher_keywords": sorted(set(re.findall(r'define SSL_TXT_\w+\s+"([^"]+)"', header))),
        "groups": sorted(set(re.findall(r'TLS_GROUP_ENTRY\("([^"]+)"', caps))),
    }


def awslc_names(tree: Tree) -> dict[str, list[str]]:
    shares, ciphers = (tree.read(path) for path in AWSLC_FILES)
    groups = re.search(r"kNamedGroups\[\]\s*=\s*\{(.*?)\};", shares, re.S)
    aliases = re.search(r"kCipherAliases\[\]\s*=\s*\{(.*?)\};", ciphers, re.S)
    return {
        "groups": sorted(set(re.findall(r'"([\w-]+)"', groups.group(1) if groups else ""))),
        "cipher_keywords": sorted(
            set(re.findall(r'\{"([^"]+)"', aliases.group(1) if aliases else ""))
        ),
    }


def binaries() -> dict[str, dict[str, list[str]]]:
    """What each provisioned build's own openssl binary lists."""
    sys.path.insert(0, str(REPO))
    from tests.builds import load_builds

    out: dict[str, dict[str, list[str]]] = {}
    for _, build in sorted(load_builds()[0].items()):
        if build.openssl_argv is None:
            continue
        groups = build.openssl("list", "-all-tls-groups")
        curves = build.openssl("ecparam", "-list_curves").stdout
        ciphers = build.openssl("ciphers", "-v", "ALL:COMPLEMENTOFALL").stdout
        out[build.tls_library] = {
            "tls_groups": groups.stdout.strip().split(":") if groups.returncode == 0 else [],
            "curves": re.findall(r"^\s*([\w-]+)\s*:", curves, re.M),
            "ciphers": sorted({line.split()[0] for line in ciphers.splitlines() if line.strip()}),
        }
    return out


def pinned_trees(folder: Path) -> dict[str, Tree]:
    """The sources of ARCHIVES from the pinned group, fetched into folder (a file already there
    that verifies is used without any network request)."""
    sys.path.insert(0, str(REPO))  # nginxgen's pinned-download helper, run from a clone
    sys.path.insert(0, str(REPO / "scripts"))
    from downloads import fetch_group

    paths = {path.name: path for path in fetch_group(GROUP, folder)}
    wanted = {"openssl": OPENSSL_FILES, "aws-lc": AWSLC_FILES}
    return {
        key: ArchiveTree(paths[name], root, wanted.get(key, SOURCES))
        for key, (name, root) in ARCHIVES.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--downloads", type=Path, help="folder for the pinned sources")
    parser.add_argument("--nginx", type=Path, help="bare clone (or .git folder) of nginx")
    parser.add_argument("--openssl", type=Path, help="clone of quictls/openssl")
    parser.add_argument("--awslc", type=Path, help="clone of aws/aws-lc")
    parser.add_argument("--builds", action="store_true", help="ask the provisioned builds too")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    clones = {"--nginx": args.nginx, "--openssl": args.openssl, "--awslc": args.awslc}
    if args.downloads is None and not all(clones.values()):
        parser.error("--downloads FOLDER, or all of --nginx, --openssl and --awslc")
    # a clone given wins over the pinned file of the same source
    trees: dict[str, Tree] = pinned_trees(args.downloads) if args.downloads else {}
    if args.nginx:
        trees |= {version: GitTree(args.nginx, f"release-{version}") for version in TAGS}
    if args.openssl:
        trees["openssl"] = GitTree(args.openssl, OPENSSL_TAG)
    if args.awslc:
        trees["aws-lc"] = GitTree(args.awslc, AWSLC_REF)
    before: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    data: dict[str, Any] = {
        "about": "Words the value differential draws from (scripts/build_value_vocabulary.py).",
        "nginx": {},
        "structure": {},
        "openssl": openssl_names(trees["openssl"]),
        "aws-lc": awslc_names(trees["aws-lc"]),
    }
    kept = []
    for version in TAGS:
        if version in trees:
            data["nginx"][version], data["structure"][version] = nginx_release(trees[version])
        elif version in before.get("nginx", {}):  # a release with no source but a clone
            data["nginx"][version] = before["nginx"][version]
            data["structure"][version] = before["structure"][version]
            kept.append(f"nginx {version}")
        else:
            raise SystemExit(f"nginx {version}: no source (--nginx) and none in {args.out}")
    if args.builds:
        data["binaries"] = binaries()
    elif args.out.exists():  # keep what the builds said last time
        data["binaries"] = before.get("binaries", {})
        kept.append("binaries")
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    # one line a test reads: what came from no source this run
    print(f"kept from {args.out.name}: {', '.join(kept) or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
