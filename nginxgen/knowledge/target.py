"""The target: which nginx and which TLS library the configuration is for.

A target comes from flags (`--nginx-version 1.26.3 --tls-library openssl-3.5.7`) or the settings
file, from an nginx binary's `nginx -V` (`--nginx-bin`), else from the nginx this machine has
(`$NGINXGEN_NGINX`, `nginx` on PATH, then the usual places), and only when there is none from the
knowledge base's current stable nginx and OpenSSL. Where it came from is recorded (`origin`) and
whatever was assumed too, so that every command can say so.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache

from nginxgen.base.errors import TargetError
from nginxgen.base.records import replace
from nginxgen.base.version import Version
from nginxgen.knowledge import builds, nginx, releases
from nginxgen.knowledge.builds import Library, Target

__all__ = ["Library", "Target", "machine_nginx", "parse_library", "resolve", "resolve_set"]

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

_LIBRARY_SPEC = re.compile(
    r"^(?P<kind>openssl|quictls|boringssl|aws-?lc|libressl)"
    # OpenSSL 1.x letter releases (1.1.1w) behave as their number for everything we know.
    r"(?:[-_ ]?v?(?P<version>\d+(?:\.\d+)*)[a-z]{0,2})?$"
)  # matched against the lower-cased spec: IGNORECASE made compiling it 0.4 ms of every start


def parse_library(spec: str) -> Library:
    """`openssl-3.5.7`, `openssl-3.0`, `boringssl`, `aws-lc-1.37.0`, `libressl-4.3.0`, ..."""
    match = _LIBRARY_SPEC.match(spec.strip().lower())
    if not match:
        from nginxgen.base.spelling import nearest  # only on the way to an error

        kinds = ", ".join(builds.LIBRARY_KINDS)
        name = re.split(r"[-_ ]?v?\d", spec.strip(), maxsplit=1)[0].lower()
        raise TargetError(
            f"unknown TLS library {spec!r}; did you mean "
            f"{nearest(name, builds.LIBRARY_KINDS)}? (one of {kinds}, "
            "optionally with a version: openssl-3.5.7, aws-lc-1.37.0)",
            where="--tls-library",
        )
    kind = match["kind"].replace("awslc", "aws-lc")
    version = match["version"]
    if version is None:
        current = builds.current_library_version(kind)
        return Library(kind, Version(current) if current else None)
    return Library(kind, Version(version))


def parse_nginx_version(text: str) -> Version:
    try:
        return Version(text.removeprefix("nginx/"))
    except ValueError:
        raise TargetError(
            f"not an nginx version: {text!r} (e.g. 1.26.3)", where="--nginx-version"
        ) from None


def _library_from_banner(part: str) -> Library:
    """One side of `built with ...` / `running with ...`."""
    part = part.strip()
    aws = re.search(r"AWS-LC\s+(\d+(?:\.\d+)*)", part)
    if aws:
        return Library("aws-lc", Version(aws[1]))
    if "AWS-LC" in part:
        return Library("aws-lc", None)
    if "BoringSSL" in part:
        return Library("boringssl", None)
    libre = re.match(r"LibreSSL\s+(\d+(?:\.\d+)*)", part)
    if libre:
        return Library("libressl", Version(libre[1]))
    openssl = re.match(r"OpenSSL\s+(\d+\.\d+\.\d+)[a-z]*(\S*)", part)
    if openssl:
        kind = "quictls" if "quic" in openssl[2].lower() or "quictls" in part.lower() else "openssl"
        return Library(kind, Version(openssl[1]))
    raise TargetError(f"cannot tell the TLS library from {part!r}", where="nginx -V")


def parse_nginx_v(text: str) -> Target:
    """Read a target from the output of `nginx -V` (the running library wins over the built one)."""
    version_match = re.search(r"nginx version:\s*nginx/(\d+(?:\.\d+)*)(.*)", text)
    if not version_match:
        raise TargetError("no `nginx version:` line in the output", where="nginx -V")
    plus = "plus" in version_match[2].lower()
    built = re.search(r"^built with (.+)$", text, re.MULTILINE)
    if not built:
        raise TargetError("no `built with` line: this nginx has no TLS library", where="nginx -V")
    line = built[1].strip()
    running = None
    marker = line.find("(running with ")
    if marker >= 0:
        running = line[marker + len("(running with ") :].removesuffix(")")
        line = line[:marker]
    library = _library_from_banner(running if running else line)
    configure = re.search(r"^configure arguments:(.*)$", text, re.MULTILINE)
    modules = without = dynamic = added = None
    if configure:
        # --with-http_ssl_module -> http_ssl; --with-stream(=dynamic) -> stream; --with-file-aio
        modules = frozenset(
            re.findall(r"--with-([\w-]+?)(?:_module)?(?:=dynamic)?(?=[\s']|$)", configure[1])
        )
        without = frozenset(re.findall(r"--without-(\w+?)_module", configure[1]))
        dynamic = frozenset(re.findall(r"--with-(\w+?)(?:_module)?=dynamic", configure[1]))
        paths = re.findall(r"--add(?:-dynamic)?-module=(\S+)", configure[1])
        added = frozenset(p.strip("'\"") for p in paths)
    arguments = configure[1] if configure else ""
    return Target(
        Version(version_match[1]),
        library,
        plus=plus,
        modules=modules,
        without=without,
        exact=True,
        conf_path=_under_prefix(arguments, "--conf-path", "conf/nginx.conf"),
        dynamic=dynamic,
        modules_path=_under_prefix(arguments, "--modules-path", "modules"),
        added=added,
        prefix=_under_prefix(arguments, "--prefix", ""),
        static=_linked_statically(arguments),
        log_folder=_log_folder(arguments),
    )


def _log_folder(arguments: str) -> str:
    """The folder of the binary's own access log: --http-log-path's, else that of nginx's
    default, logs/access.log, which stays relative (nginx resolves it under the prefix it runs
    with, `-p` included: auto/options, ngx_conf_full_name)."""
    given = re.search(r"--http-log-path=(\S+)", arguments)
    path = given[1].strip("'\"") if given else "logs/access.log"
    return os.path.dirname(path) or "."


def _linked_statically(arguments: str) -> bool:
    """Whether --with-ld-opt (quoted or not) holds `-static`."""
    given = re.search(r"--with-ld-opt=('[^']*'|\"[^\"]*\"|\S+)", arguments)
    return given is not None and "-static" in given[1].strip("'\"").split()


def _under_prefix(arguments: str, option: str, default: str) -> str:
    """A path the binary was built with: `option`'s value, or `default` under `--prefix`
    (relative to it when not absolute, as nginx's auto/options does): --conf-path's default
    is conf/nginx.conf, --modules-path's modules."""
    given = re.search(re.escape(option) + r"=(\S+)", arguments)
    prefix = re.search(r"--prefix=(\S+)", arguments)
    path = given[1].strip("'\"") if given else default
    if path.startswith("/"):
        return path
    return os.path.join(prefix[1].strip("'\"") if prefix else "/usr/local/nginx", path)


# Where an nginx is when it is not on PATH (Debian's /usr/sbin is not on a user's PATH): the
# distributions' and nginx.org's packages, a source build's default prefix, Homebrew, OpenResty.
USUAL_PLACES = (
    "/usr/sbin/nginx",
    "/usr/local/sbin/nginx",
    "/usr/local/nginx/sbin/nginx",
    "/usr/local/bin/nginx",
    "/opt/homebrew/bin/nginx",
    "/usr/local/openresty/nginx/sbin/nginx",
)
MACHINE_VARIABLE = "NGINXGEN_NGINX"  # a binary to read instead, or `none`: never look


def machine_nginx() -> str | None:
    """The nginx binary this machine has: $NGINXGEN_NGINX (`none`: no lookup), else `nginx` on
    PATH, else the first of the usual places; None when there is none."""
    chosen = os.environ.get(MACHINE_VARIABLE)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "none") else chosen
    folders = [f for f in os.environ.get("PATH", "").split(os.pathsep) if f]
    for path in (*(os.path.join(f, "nginx") for f in folders), *USUAL_PLACES):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def detect(nginx_bin: str) -> Target:
    return parse_nginx_v(_version_text(nginx_bin))


def _version_text(nginx_bin: str) -> str:
    """What `nginx_bin -V` prints (TargetError: it cannot be run)."""
    if not os.path.exists(nginx_bin):
        raise TargetError(f"no such file: {nginx_bin}", where="--nginx-bin")
    import subprocess  # only when asked to read a binary: the lint path stays light

    try:
        result = subprocess.run(
            [nginx_bin, "-V"], capture_output=True, text=True, timeout=20, check=False
        )
    except OSError as exc:
        raise TargetError(f"cannot run {nginx_bin}: {exc.strerror}", where="--nginx-bin") from None
    except subprocess.TimeoutExpired:
        raise TargetError(f"{nginx_bin} -V did not answer in 20 s", where="--nginx-bin") from None
    return result.stderr + result.stdout


@cache  # once per process: the language server resolves again and again
def _from_machine() -> Target | None:
    """The target read from this machine's nginx; None when it has none. A binary that cannot
    be read is a warning, and the target is then assumed as if there were none."""
    found = machine_nginx()
    if found is None:
        return None
    try:
        return replace(parse_nginx_v(_machine_version_text(found)), origin=found)
    except TargetError as exc:
        _warn(f"{found} is this machine's nginx, but {exc.args[0]}: the target is assumed")
        return None


def _machine_version_text(binary: str) -> str:
    """`binary -V`, remembered in the user's cache folder (files.settings.cache_folder) for
    as long as the binary is the same file (path, inode, size and modification time):
    pre-commit lints on every commit, and running nginx each time cost more than the lint of a
    small file. A cache that cannot be read or written is skipped."""
    try:
        info = os.stat(binary)
    except OSError:
        return _version_text(binary)
    key = f"{os.path.abspath(binary)} {info.st_ino} {info.st_size} {info.st_mtime_ns}\n"
    from nginxgen.files.settings import cache_folder

    path = os.path.join(cache_folder(), "machine-nginx-v.txt")
    try:
        with open(path, encoding="utf-8") as handle:
            cached = handle.read()
        if cached.startswith(key):
            return cached[len(key) :]
    except (OSError, UnicodeDecodeError):
        pass
    text = _version_text(binary)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        staged = f"{path}.{os.getpid()}"
        with open(staged, "w", encoding="utf-8") as handle:
            handle.write(key + text)
        os.replace(staged, path)  # whole or not at all: another run may read it meanwhile
    except OSError:
        pass
    return text


def check_release(
    version: Version, product: str, where: str, branch_ok: bool = False
) -> str | None:
    """None for a known release of `product` (nginx, or a library kind); for a plausible one
    newer than the knowledge, the warning that says which facts are then assumed. Anything else
    is refused, naming the nearest release. Plausible: a higher patch in a branch that still
    gets releases, or a new branch of the newest major within `minors_ahead` (releases.json).
    `branch_ok`: a known branch alone (openssl-3.0) stands for that branch."""
    known = releases.releases(product)
    name = builds.library_display(product) if product != "nginx" else "nginx"
    if known is None:
        raise TargetError(f"{name} has no release numbers: give {product} alone", where=where)
    parts = tuple(int(p) for p in version.text.split("."))
    if known.has(parts) or (branch_ok and len(parts) == 2 and parts in known.branches):
        return None
    top = max(known.branches)
    newest = known.newest()
    if len(parts) == 3:
        span = known.branches.get(parts[:2])
        live = sorted(known.branches)[-known.maintained :] if known.maintained else known.branches
        if span and parts[2] > span[1] and parts[:2] in live:
            branch_newest = f"{parts[0]}.{parts[1]}.{span[1]}"
            return _newer(name, version, branch_newest)
        ahead = known.minors_ahead
        if (
            parts[0] == top[0]
            and parts[1] > top[1]
            and (ahead is None or parts[1] <= top[1] + ahead)
        ):
            return _newer(name, version, str(newest))
    nearest = _nearest(parts, known)
    shape = " (an nginx version has three parts)" if product == "nginx" and len(parts) != 3 else ""
    line = f"{top[0]}.{top[1] + known.minors_ahead}.x" if known.minors_ahead else f"{top[0]}.x"
    raise TargetError(
        f"{name} {version} is not a release{shape}; the nearest is {nearest} (the newest "
        f"nginxgen knows is {newest}; newer ones up to {line} are taken with a warning)",
        where=where,
    )


def _newer(name: str, version: Version, known: str) -> str:
    return (
        f"{name} {version} is newer than the releases nginxgen knows (newest: {known}): "
        f"the facts of {name} {known} are assumed"
    )


def _nearest(parts: tuple[int, ...], known: releases.Releases) -> str:
    """The release closest to `parts`: the newest when past it, else in the nearest branch."""
    if parts > max((*b, span[1]) for b, span in known.branches.items()):
        return str(known.newest())
    minor = parts[1] if len(parts) > 1 else 0
    branch = min(known.branches, key=lambda b: (abs(b[0] - parts[0]), abs(b[1] - minor), -b[1]))
    first, last = known.branches[branch]
    patch = parts[2] if len(parts) > 2 else last
    return f"{branch[0]}.{branch[1]}.{min(max(patch, first), last)}"


_warned: set[str] = set()


def _warn(message: str) -> None:
    """A warning on stderr, once per process (the language server resolves again and again)."""
    if message not in _warned:
        _warned.add(message)
        print(f"nginxgen: warning: {message}", file=sys.stderr)


def resolve_set(
    nginx_version: str | None,
    tls_library: str | None,
    nginx_bin: str | None,
    found: tuple[str, dict[str, Any]] | None,
) -> Target:
    """The target every command uses: the flags given, else the settings file's
    `nginx-version`/`tls-library`/`nginx-bin` (`found`, from nginxgen.files.settings.find_settings),
    else this machine's nginx, else assumed. A bad value from the settings names its line."""
    conf: dict[str, Any] = found[1] if found else {}
    given = {"nginx-version": nginx_version, "tls-library": tls_library, "nginx-bin": nginx_bin}
    binary = nginx_bin or (None if nginx_version or tls_library else conf.get("nginx-bin"))
    try:
        return resolve(
            nginx_version or (None if binary else conf.get("nginx-version")),
            tls_library or (None if binary else conf.get("tls-library")),
            binary,
        )
    except TargetError as exc:
        key = (exc.where or "").removeprefix("--")
        if found and key in conf and not given.get(key):
            from nginxgen.files.settings import where

            exc.where = f"{where(found[0], key)}: {key}"  # the value came from the settings
        raise


def resolve(
    nginx_version: str | None = None,
    tls_library: str | None = None,
    nginx_bin: str | None = None,
) -> Target:
    """Build the target from whatever the user gave; with nothing given, from this machine's
    nginx; fill the rest from the knowledge base. Every command resolves its target here, so a
    version that is no release is refused the same way everywhere (a version read from
    `nginx -V` is a fact, not checked)."""
    if not (nginx_bin or nginx_version or tls_library):
        machine = _from_machine()
        if machine is not None:
            return machine
    if nginx_bin:
        if tls_library or nginx_version:
            raise TargetError(
                "give either --nginx-bin or --nginx-version/--tls-library, not both",
                where="--nginx-bin",
            )
        return detect(nginx_bin)
    assumed: list[str] = []
    guessed: set[str] = set()
    if nginx_version:
        version = parse_nginx_version(nginx_version)
        newer = check_release(version, "nginx", "--nginx-version")
        if newer:
            _warn(newer)
            assumed.append(newer)
            guessed.add("nginx")
    else:
        version = nginx.current_nginx()
        assumed.append(f"nginx {version}, the current stable")
        guessed.add("nginx")
    if tls_library:
        library = parse_library(tls_library)
        stated = _LIBRARY_SPEC.match(tls_library.strip().lower())
        if stated and stated["version"]:  # `openssl` alone: the current release, known
            where = "--tls-library"
            newer = check_release(Version(stated["version"]), library.kind, where, branch_ok=True)
            if newer:
                _warn(newer)
                assumed.append(newer)
                guessed.add("library")
    else:
        library = parse_library("openssl")
        assumed.append(f"{library.display}")
        guessed.add("library")
    return Target(version, library, assumed=tuple(assumed), guessed=frozenset(guessed))
