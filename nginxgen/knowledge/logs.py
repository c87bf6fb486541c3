"""nginxgen's TLS access log (logging.toml): the generated format's name, fields and folder,
and the log variables that tell a request over TLS from a plain HTTP one."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import in_range
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.libraries import has

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Target


@record(frozen=True)
class GeneratedLog:
    """The access log nginxgen generates: its log_format's name, and the file it writes in the
    log folder the distributions' packages use."""

    format_name: str
    folder: str  # nginx -V's --http-log-path folder of the usual packages
    file: str
    source: str


@cache
def generated_log() -> GeneratedLog:
    data = toml_file("logging")
    return GeneratedLog(
        format_name=data["log_format"]["name"],
        folder=data["log_folder"]["default"],
        file=data["log_folder"]["file"],
        source=f"{data['log_format']['source']}; {data['log_folder']['source']}",
    )


def log_stream(path: str) -> bool:
    """Whether an access_log target is a stream (syslog, /dev/stdout), not a file in a folder
    where another log could go beside it."""
    return path.startswith(tuple(toml_file("logging")["log_streams"]["prefixes"]))


@record(frozen=True)
class LogField:
    key: str  # the key in the generated JSON line
    variable: str  # the nginx variable, without `$`
    since: str | None
    source: str
    capability: str | None = None  # a library capability the variable needs to mean anything


def log_fields(target: Target | None = None) -> list[LogField]:
    """The generated TLS log format's fields; with a target, only the variables its nginx has
    (and its library gives a value)."""
    fields = [from_table(LogField, f, since=f.get("since")) for f in toml_file("logging")["field"]]
    if target is None:
        return fields
    return [
        f
        for f in fields
        if in_range(target.nginx, f.since, None)
        and (f.capability is None or has(target.library, f.capability))
    ]


@record(frozen=True)
class TlsMarker:
    """A log variable that tells a request over TLS from a plain HTTP one."""

    variable: str  # without `$`
    tls_value: str | None  # its value on TLS; None: any non-empty value
    protocol: bool  # it also names the TLS version
    source: str


def tls_markers() -> list[TlsMarker]:
    """The variables that tell TLS from plain HTTP, in the report's order of preference."""
    return [
        from_table(TlsMarker, m, tls_value=None if m["tls_value"] == "any" else m["tls_value"])
        for m in toml_file("logging")["tls_marker"]
    ]
