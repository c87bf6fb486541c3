"""`nginxgen probe`: its flags resolved once into the record the command reads (the address,
the names to ask for, the target, where the --config tree's folders are), and the run: probe
each name, compare with the config when one is given, print the report and say what was done."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nginxgen.conf.tree import TreeMapping, flag_mapping
from nginxgen.console import check_format, note, show
from nginxgen.errors import NginxgenError
from nginxgen.records import record
from nginxgen.target import Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from nginxgen.conf.config import Config
    from nginxgen.ech import EchConfig

DEFAULT_PORT = 443


@record
class ProbeOptions:
    host: str  # the name or address, without brackets
    port: int
    names: list[str | None]  # the server names asked for; None: no SNI (always asked last)
    connect: str | None  # the address connected to instead of the host
    timeout: float  # seconds per connection
    output: str  # text or json
    config: Path | None  # the nginx.conf the answers are compared with
    root: Path | None  # with --config: the main file whose tree includes it
    target: Target  # the nginx and TLS library the config is read for
    mapping: TreeMapping  # where the --config tree's folders are (nginxgen.conf.tree)
    # the ECHConfig --ech-config names, tried per name, or GREASE ("grease")
    ech: EchConfig | Literal["grease"] | None
    stream: bool  # probe the stream{} TLS listeners of --config instead of HOST:PORT


def parse_address(text: str) -> tuple[str, int]:
    """HOST, HOST:PORT, an IPv6 address, or [IPv6]:PORT -> (host, port); port 443 when left
    out."""
    host, _, port_text = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if text.startswith("["):  # [v6]:port
        host, _, port_text = text[1:].partition("]")
        port_text = port_text.lstrip(":")
    if not port_text.isdigit() and port_text:
        raise NginxgenError(f"{text!r}: expected HOST or HOST:PORT", where="probe")
    return host, int(port_text or DEFAULT_PORT)


def resolve_options(
    *,
    address: str,
    sni: list[str] | None,
    connect: str | None,
    output: str,
    timeout: float,
    config: Path | None,
    root: Path | None,
    nginx_version: str | None,
    tls_library: str | None,
    nginx_bin: str | None,
    tree_map: list[str] | None,
    ech_config: str | None = None,
    stream: bool = False,
) -> ProbeOptions:
    """The flags as given (each one named after its flag), checked before anything connects."""
    from nginxgen.settings import find_settings
    from nginxgen.target import resolve_set

    check_format(output)
    _check_flags(config=config, root=root, tree_map=tree_map, stream=stream)
    # the flags, else the settings file's target, else this machine's nginx
    target = resolve_set(nginx_version, tls_library, nginx_bin, find_settings(os.getcwd()))
    ech: EchConfig | Literal["grease"] | None = None
    if ech_config is not None:
        from nginxgen.probe.ech_hello import GREASE, config_from_argument

        ech = GREASE if ech_config.strip().lower() == GREASE else config_from_argument(ech_config)
    host, port = parse_address(address)
    return ProbeOptions(
        host=host,
        port=port,
        names=[*_names(host, sni), None],
        connect=connect,
        timeout=timeout,
        output=output,
        config=config,
        root=root,
        target=target,
        mapping=flag_mapping(tree_map, target.conf_path),
        ech=ech,
        stream=stream,
    )


def _check_flags(
    *, config: Path | None, root: Path | None, tree_map: list[str] | None, stream: bool
) -> None:
    """A flag that needs --config without it: one line naming the flag (exit 2)."""
    if root is not None and config is None:
        raise NginxgenError("--root names the main file of --config FILE", where="--root")
    if tree_map and config is None:
        raise NginxgenError("--map says where the folders of --config FILE are", where="--map")
    if stream and config is None:
        raise NginxgenError("--stream probes the stream{} listeners of --config", where="--stream")


def _names(host: str, sni: list[str] | None) -> list[str | None]:
    """The server names asked for: --sni, else the host unless it is an IP address."""
    import ipaddress

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return list(sni or [host])
    return list(sni or [])


def run(options: ProbeOptions) -> int:
    """Probe every name at once (with --stream: each stream{} TLS listener of --config and
    each name on it), compare with --config, print the report (text or JSON) and a summary line
    on stderr. The exit code: 1 for a difference from the config, an inconclusive check or a
    problem found; an address with no TLS answer at all is an error (exit 2)."""
    from nginxgen.probe.run import probe, text_report, unreachable

    if options.stream:
        results, where, found = _probe_stream(options)
    else:
        where = f"{options.connect or options.host}:{options.port}"
        why = unreachable(options.connect or options.host, options.port, options.timeout)
        if why is not None:
            raise NginxgenError(why, where="probe")
        results = probe(options.host, options.port, options.names, options.connect,
                        options.timeout, options.ech, options.target.library)  # fmt: skip
        if not any(any(r["protocols"].values()) for r in results):
            raise NginxgenError(_no_answer(where, results), where="probe")
        found = _compare(options, results) if options.config is not None else 0
    show(options.output, results, text_report)
    total = sum(r["connections"] for r in results)
    note(f"probe: {len(results)} names (no SNI included), {total} connections to {where}")
    return 1 if found or any(r["inconclusive"] or r["problems"] for r in results) else 0


def _no_answer(where: str, results: list[dict[str, Any]]) -> str:
    """Why no name got a handshake: the alerts the server refused each with (names refused
    alike said together), or that nothing answered at all."""
    from nginxgen.probe.checks.protocols import refusals

    by_alerts: dict[str, list[str]] = {}
    for result in results:
        if result["alerts"]:
            name = result["sni"] or "without SNI"
            by_alerts.setdefault(refusals(result), []).append(name)
    if not by_alerts:
        return f"no TLS answer from {where} for any version"
    said = "; ".join(f"for {' and '.join(names)}: {alerts}" for alerts, names in by_alerts.items())
    why = ""
    if "(unrecognized_name)" in said:  # nginx's ssl_reject_handshake on answers so
        why = " (unrecognized_name: no server there serves the name, e.g. a default server with"
        why += " ssl_reject_handshake on)"
    return f"{where} refused every handshake {said}{why}"


def _probe_stream(options: ProbeOptions) -> tuple[list[dict[str, Any]], str, int]:
    """Each stream{} TLS listener of --config and each literal name on it, probed and compared
    with the stream model's answers: the results, where they were asked, the differences."""
    from nginxgen.probe.stream import probe_stream

    model, lines = _read_config(options)
    results = probe_stream(
        model, options.target, options.host, options.connect, options.timeout, options.ech
    )
    if not results:
        raise NginxgenError(
            f"{options.config} has no stream{{}} listener that ends TLS", where="--stream"
        )
    for line in lines:
        note(line)
    return results, options.connect or options.host, sum(len(r["mismatches"]) for r in results)


def _compare(options: ProbeOptions, results: list[dict[str, Any]]) -> int:
    """Each result given its differences from what the --config tree says (`mismatches`) and
    what it says (`config`); says on stderr where the tree was read. The number of
    differences."""
    from nginxgen.probe.predict import compare

    model, lines = _read_config(options)
    found = 0
    for result in results:
        result["mismatches"], result["config"] = compare(
            model, options.target, options.port, result
        )
        found += len(result["mismatches"])
    for line in lines:
        note(line)
    return found


def _read_config(options: ProbeOptions) -> tuple[Config, list[str]]:
    """The --config tree's model, and the lines that say where the tree was read."""
    from nginxgen.conf.config import build
    from nginxgen.conf.load import LoadError, load_path
    from nginxgen.conf.tree import notes

    config, root = options.config, options.root
    main = str(root or config)
    try:
        path_map, infer = options.mapping.for_main(main)
        loaded = load_path(main, path_map=path_map, infer=infer)
    except LoadError as exc:
        raise NginxgenError(str(exc), where="--root" if root else "--config") from None
    if root is not None and os.path.realpath(str(config)) not in map(
        os.path.realpath, loaded.files
    ):
        raise NginxgenError(f"{root} does not include {config}", where="--root")
    lines = notes(loaded.inferred, loaded.read_files(), os.path.dirname(os.path.abspath(main)))
    return build(loaded), list(lines)
