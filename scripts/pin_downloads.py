"""Write scripts/pins.json: every file provisioning downloads, by exact name, size and sha256,
with the places to fetch it from in order (issue 23).

    python scripts/pin_downloads.py [--date YYYYMMDD]

Run by hand when a pinned file should move on (a Debian security update, a new nginx source);
the tests never run it. Debian packages are resolved against the archive's current indexes for
each suite (the newest version across the suite, its -updates and its -security) and pinned by
the SHA256 the index gives; the first place is the pool path the index names, then the same path
on snapshot.debian.org at --date (the archive keeps every file it ever served there, so a pin
stays fetchable after the mirror drops it). Other files are downloaded once and hashed here.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import lzma
import subprocess
import urllib.request
from functools import cmp_to_key
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINS = HERE / "pins.json"
MIRROR = "http://deb.debian.org"
SNAPSHOT = "https://snapshot.debian.org/archive"

# Runtime of nginx and openssl for each release build; libssl is named differently in 13.
RUNTIME = ["openssl", "libc6", "libcrypt1", "libpcre2-8-0", "zlib1g", "libzstd1"]
CHROMIUM = [
    "chromium", "chromium-common", "libdouble-conversion3", "libogg0", "libflac12",
    "libharfbuzz-subset0", "libminizip1", "libopenh264-7", "libopenjp2-7", "libopus0",
    "libasyncns0", "libmp3lame0", "libmpg123-0", "libvorbis0a", "libvorbisenc2",
    "libsndfile1", "libpulse0", "libxnvctrl0", "libcolord2", "libepoxy0",
    "libwayland-cursor0", "libwayland-egl1", "libgtk-3-common", "libgtk-3-0", "xdg-utils",
]  # fmt: skip
NEOVIM = [
    "neovim", "neovim-runtime", "libluajit-5.1-common", "libluajit-5.1-2", "libmsgpackc2",
    "libunibilium4", "libtermkey1", "libtree-sitter0", "libvterm0", "lua-luv",
]  # fmt: skip
DEBIAN_GROUPS: dict[str, tuple[str, list[str]]] = {
    # group: (release, packages)
    "bookworm": ("bookworm", ["nginx", "nginx-common", "libssl3", *RUNTIME]),
    "trixie": ("trixie", ["nginx", "nginx-common", "libssl3t64", *RUNTIME]),
    # a static PCRE2 linked into the compiled builds (any release's works; this machine's)
    "pcre2": ("bookworm", ["libpcre2-dev"]),
    # Debian 12's chromium for the HTML report test, with every package it needs that a fresh
    # Debian 12 machine of this project's kind lacks (apt-get install -s chromium on one)
    "chromium": ("bookworm", CHROMIUM),
    # Debian 12's Neovim, the editor the language server is tested in, with what it needs
    "neovim": ("bookworm", NEOVIM),
}
# certbot and certbot-nginx with every dependency, as wheels for this machine's Python: a tool
# of its own beside the project (its own venv in the cache), as users run it
CERTBOT = ["certbot==5.8.0", "certbot-nginx==5.8.0"]
# Files that are not Debian binary packages: (group, name, places in order)
OTHER_FILES = [
    (
        "nginx-source",
        "nginx_1.26.3.orig.tar.gz",  # the upstream release as Debian ships it, any revision
        [
            f"{MIRROR}/debian/pool/main/n/nginx/nginx_1.26.3.orig.tar.gz",
            "{snapshot}/debian/{date}/pool/main/n/nginx/nginx_1.26.3.orig.tar.gz",
            "https://nginx.org/download/nginx-1.26.3.tar.gz",
        ],
    ),
    # the value vocabulary's nginx sources (scripts/build_value_vocabulary.py): the upstream
    # releases as Debian ships them; 1.26.3 is nginx-source's file, pinned again in its group
    *(
        (
            "vocabulary",
            f"nginx_{version}.orig.tar.gz",
            [
                f"{MIRROR}/debian/pool/main/n/nginx/nginx_{version}.orig.tar.gz",
                f"{{snapshot}}/debian/{{date}}/pool/main/n/nginx/nginx_{version}.orig.tar.gz",
                f"https://nginx.org/download/nginx-{version}.tar.gz",
            ],
        )
        for version in ("1.22.1", "1.26.3")
    ),
    (
        "libclang",
        "libclang-18.1.1-py2.py3-none-manylinux2010_x86_64.whl",  # bindgen's libclang.so
        [
            "https://files.pythonhosted.org/packages/1d/fc/716c1e62e512ef1c160e7984a73a5fc7df45166f2ff3f254e71c58076f7c/libclang-18.1.1-py2.py3-none-manylinux2010_x86_64.whl"
        ],
    ),
]

# Source trees from crates.io: (group, crate, version). The value vocabulary's nginx 1.28.3
# (nginx-src, as the openssl36 build's), OpenSSL 3.3.2 (openssl-src) and AWS-LC 5.5.0 (aws-lc-sys
# 0.44.0 vendors it: its aws-lc/include/openssl/base.h says AWSLC_VERSION_NUMBER_STRING "5.5.0").
CRATES = [
    ("vocabulary", "nginx-src", "1.28.5+1.28.3"),
    ("vocabulary", "openssl-src", "300.3.2+3.3.2"),
    ("vocabulary", "aws-lc-sys", "0.44.0"),
]
CRATES_INDEX = "https://index.crates.io"
CRATES_STATIC = "https://static.crates.io/crates"


def crate_pin(crate: str, version: str) -> dict[str, object]:
    """The .crate file by the checksum crates.io's index gives (the one Cargo.lock pins),
    checked against the bytes fetched."""
    shard = {1: "1", 2: "2", 3: f"3/{crate[0]}"}.get(len(crate), f"{crate[:2]}/{crate[2:4]}")
    lines = fetch(f"{CRATES_INDEX}/{shard}/{crate}").decode().splitlines()
    (release,) = [r for r in map(json.loads, lines) if r["vers"] == version]
    name = f"{crate}-{version}.crate"
    url = f"{CRATES_STATIC}/{crate}/{name}"
    pin = _pin(name, fetch(url), url)
    if pin["sha256"] != release["cksum"]:
        raise SystemExit(f"{url}: not the bytes crates.io's index names")
    return pin


# The browser page (nginxgen.web): Pyodide's runtime from npm, and the wheels nginxgen's import
# needs there, for CPython 3.14 on wasm32 (pydantic-core is the one binary: it ties pydantic's
# version); markupsafe and pyyaml have no pure wheel, so their sources are pinned and made into
# one (nginxgen.web.wheels). Written to nginxgen/web/pins.json, which the package ships.
WEB_PINS = HERE.parent / "nginxgen" / "web" / "pins.json"
WEB_NPM = [("pyodide", "314.0.7")]
WEB_PYPI = [
    ("pydantic", "pydantic-2.14.4-py3-none-any.whl"),
    ("pydantic-core", "pydantic_core-2.50.5-cp314-cp314-pyemscripten_2026_0_wasm32.whl"),
    ("annotated-types", "annotated_types-0.8.0-py3-none-any.whl"),
    ("typing-extensions", "typing_extensions-4.16.0-py3-none-any.whl"),
    ("typing-inspection", "typing_inspection-0.4.5-py3-none-any.whl"),
    ("jinja2", "jinja2-3.1.6-py3-none-any.whl"),
    ("markupsafe", "markupsafe-3.0.3.tar.gz"),
    ("pyyaml", "pyyaml-6.0.3.tar.gz"),
    ("ngxparse", "ngxparse-0.5.16-py3-none-any.whl"),
]


def web_pins() -> list[dict[str, object]]:
    """Each file by the checksum its registry gives, checked against the bytes fetched."""
    pins = []
    for name, version in WEB_NPM:
        dist = json.loads(fetch(f"https://registry.npmjs.org/{name}/{version}"))["dist"]
        data = fetch(dist["tarball"])
        if hashlib.sha1(data).hexdigest() != dist["shasum"]:
            raise SystemExit(f"{dist['tarball']}: not the bytes the registry names")
        pins.append(_pin(dist["tarball"].rsplit("/", 1)[1], data, dist["tarball"]))
    for project, filename in WEB_PYPI:
        request = urllib.request.Request(
            f"https://pypi.org/simple/{project}/",
            headers={"Accept": "application/vnd.pypi.simple.v1+json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            files = json.loads(response.read())["files"]
        (found,) = [f for f in files if f["filename"] == filename]
        data = fetch(found["url"])
        pin = _pin(filename, data, found["url"])
        if pin["sha256"] != found["hashes"]["sha256"]:
            raise SystemExit(f"{found['url']}: not the bytes the index names")
        pins.append(pin)
    return pins


def _pin(name: str, data: bytes, url: str) -> dict[str, object]:
    return {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "urls": [url]}  # fmt: skip


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return bytes(response.read())


def packages_index(archive: str, suite: str) -> list[dict[str, str]]:
    text = lzma.decompress(fetch(f"{MIRROR}/{archive}/dists/{suite}/main/binary-amd64/Packages.xz"))
    stanzas = []
    for block in text.decode().split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if line and not line[0].isspace() and ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields:
            stanzas.append({**fields, "_archive": archive})
    return stanzas


def compare_versions(a: str, b: str) -> int:
    if a == b:
        return 0
    lower = subprocess.run(["dpkg", "--compare-versions", a, "lt", b], check=False).returncode
    return -1 if lower == 0 else 1


def debian_pins(release: str, names: list[str], date: str) -> list[dict[str, object]]:
    index = [
        *packages_index("debian", release),
        *packages_index("debian", f"{release}-updates"),
        *packages_index("debian-security", f"{release}-security"),
    ]
    pins = []
    for name in names:
        found = [s for s in index if s["Package"] == name and s["Architecture"] in ("amd64", "all")]
        if not found:
            raise SystemExit(f"{name}: not in {release}'s indexes")
        newest = max(
            found, key=cmp_to_key(lambda a, b: compare_versions(a["Version"], b["Version"]))
        )
        archive, filename = newest["_archive"], newest["Filename"]
        pins.append(
            {
                "name": Path(filename).name,
                "size": int(newest["Size"]),
                "sha256": newest["SHA256"],
                "urls": [
                    f"{MIRROR}/{archive}/{filename}",
                    f"{SNAPSHOT}/{archive}/{date}T000000Z/{filename}",
                ],
            }
        )
    return pins


def python_pins(requirements: list[str]) -> list[dict[str, object]]:
    """The wheels pip would install for these requirements (and their dependencies) into an
    empty environment of this Python, by the URL and sha256 of pip's own resolution."""
    import os
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed",
             "--only-binary=:all:", "--report", report, *requirements],
            check=True,
        )  # fmt: skip
        resolved = json.loads(Path(report).read_text())["install"]
    pins = []
    for item in resolved:
        url = item["download_info"]["url"]
        data = fetch(url)
        sha256 = hashlib.sha256(data).hexdigest()
        if sha256 != item["download_info"]["archive_info"]["hashes"]["sha256"]:
            raise SystemExit(f"{url}: the bytes fetched are not the ones pip resolved")
        pins.append(
            {"name": url.rsplit("/", 1)[1], "size": len(data), "sha256": sha256, "urls": [url]}
        )
    return pins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--date", default=datetime.date.today().strftime("%Y%m%d"))
    parser.add_argument("--only", action="append", help="pin only this group (keep the others)")
    args = parser.parse_args()
    groups: dict[str, list[dict[str, object]]] = {}
    if args.only:
        groups = json.loads(PINS.read_text())["groups"]
    wanted = set(
        args.only or [*DEBIAN_GROUPS, "certbot", "web", *(g for g, _, _ in [*OTHER_FILES, *CRATES])]
    )
    for group, (release, names) in DEBIAN_GROUPS.items():
        if group in wanted:
            groups[group] = debian_pins(release, names, args.date)
    if "certbot" in wanted:
        groups["certbot"] = python_pins(CERTBOT)
    for group, name, places in OTHER_FILES:
        if group not in wanted:
            continue
        urls = [u.format(snapshot=SNAPSHOT, date=f"{args.date}T000000Z") for u in places]
        data = fetch(urls[0])
        entry = {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        groups[group] = [e for e in groups.get(group, []) if e["name"] != name]
        groups[group].append({**entry, "urls": urls})
    for group, crate, version in CRATES:
        if group in wanted:
            pin = crate_pin(crate, version)
            groups[group] = [e for e in groups.get(group, []) if e["name"] != pin["name"]]
            groups[group].append(pin)
    if "web" in wanted:
        web = {"pinned": args.date, "files": web_pins()}
        WEB_PINS.write_text(json.dumps(web, indent=1) + "\n")
        print(f"wrote {WEB_PINS}: {len(web['files'])} files")
        if args.only == ["web"]:
            return
    document = {"pinned": args.date, "groups": groups}
    PINS.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {PINS}: {sum(len(g) for g in groups.values())} files")


if __name__ == "__main__":
    main()
