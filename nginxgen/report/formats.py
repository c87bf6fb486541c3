"""Which log format a report reads: given as text, by name from a config, or the generated one."""

from __future__ import annotations

import os

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import replace
from nginxgen.report.logformat import (
    COMBINED,
    LogFormat,
    generated_format,
    parse_log_format_args,
)

COMBINED_FORMAT = LogFormat("combined", COMBINED, origin="nginx's predefined combined format")


def _default_format() -> LogFormat:
    fmt = generated_format()
    return replace(fmt, origin=f"the default {fmt.name} format")


def _config_formats(config: str) -> tuple[dict[str, LogFormat], dict[str, str]]:
    """A config tree's log_format definitions, and each access_log file's format name."""
    from nginxgen.conf.load import load_valid, walk

    loaded = load_valid(config, where=config)
    formats: dict[str, LogFormat] = {"combined": COMBINED_FORMAT}
    files: dict[str, str] = {}
    for stmt in walk(loaded.statements):
        if stmt.directive == "log_format" and stmt.args:
            fmt = parse_log_format_args(stmt.args[0], stmt.args[1:])
            formats[fmt.name] = replace(fmt, origin=f"log_format {fmt.name} of {config}")
        elif stmt.directive == "access_log" and stmt.args and stmt.args[0] != "off":
            name = stmt.args[1] if len(stmt.args) > 1 else "combined"
            files[os.path.realpath(os.path.join(loaded.prefix or "", stmt.args[0]))] = name
    return formats, files


def resolve_format(given: str | None, config: str | None, logs: list[str]) -> LogFormat:
    """--log-format TEXT, --log-format NAME (from --config; `combined` needs none), the format
    --config writes a LOG with, or else the generated nginxgen_tls format."""
    if given is not None and "$" in given:
        return LogFormat("given", given, origin="the --log-format string")
    if given is None and config is None:
        return _default_format()
    if config is None:
        if given == "combined":
            return COMBINED_FORMAT
        raise NginxgenError(
            f"{given!r} is not a format string: give the format ('$remote_addr ...') or "
            "--config nginx.conf to find it by name",
            where="--log-format",
        )
    formats, files = _config_formats(config)
    if given is not None:
        if given not in formats:
            known = ", ".join(sorted(formats))
            raise NginxgenError(
                f"no log_format {given!r} in {config} (it has {known})", where="--log-format"
            )
        return formats[given]
    used = {files[p] for p in (os.path.realpath(log) for log in logs) if p in files}
    if len(used) == 1:
        return formats.get(used.pop(), _default_format())
    ours = generated_format().name
    if ours in formats:
        return formats[ours]
    raise NginxgenError(
        f"{config} writes none of these logs with a known format: name one with --log-format NAME "
        f"({', '.join(sorted(formats))})",
        where="--config",
    )
