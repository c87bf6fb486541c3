"""`nginxgen probe`: its flags resolved once into the record the command reads (the address,
the names to ask for, the target, where the --config tree's folders are), and the run: probe
each name, compare with the config when one is given, print the report and say what was done."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from nginxgen.base.console import check_format, note
from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.conf.tree import TreeMapping, flag_mapping
from nginxgen.knowledge.target import Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from nginxgen.base.ech_configs import EchConfig
    from nginxgen.conf.config import Config
    from nginxgen.probe.fleet import Progress

DEFAULT_PORT = 443


@record(frozen=True)
class Endpoint:
    """One address:port probed, and the names asked of it."""

    host: str  # the name or address, without brackets
    port: int
    names: tuple[str | None, ...]  # the server names asked for; None: no SNI (always last)
    connect: str | None  # the address connected to instead of the host

    @property
    def where(self) -> str:
        address = self.connect or self.host
        return f"[{address}]:{self.port}" if ":" in address else f"{address}:{self.port}"


@record
class ProbeOptions:
    endpoints: list[Endpoint]  # HOST[:PORT] with --sni and --connect, or --targets FILE's lines
    timeout: float  # seconds per connection
    connections: int  # connections at once to each endpoint
    expiring: int  # days: the summary lists certificates that expire sooner
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
    address: str | None,
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
    targets: Path | None = None,
    connections: int = 16,
    expiring: int = 30,
) -> ProbeOptions:
    """The flags as given (each one named after its flag), checked before anything connects."""
    from nginxgen.files.settings import find_settings
    from nginxgen.knowledge.target import resolve_set

    check_format(output)
    _check_flags(config=config, root=root, tree_map=tree_map, stream=stream)
    # the flags, else the settings file's target, else this machine's nginx
    target = resolve_set(nginx_version, tls_library, nginx_bin, find_settings(os.getcwd()))
    ech: EchConfig | Literal["grease"] | None = None
    if ech_config is not None:
        from nginxgen.probe.ech_hello import GREASE, config_from_argument

        ech = GREASE if ech_config.strip().lower() == GREASE else config_from_argument(ech_config)
    if connections < 1:
        raise NginxgenError("--connections takes 1 or more", where="--connections")
    return ProbeOptions(
        endpoints=_endpoints(address, sni, connect, targets, stream),
        timeout=timeout,
        connections=connections,
        expiring=expiring,
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


def _endpoints(
    address: str | None,
    sni: list[str] | None,
    connect: str | None,
    targets: Path | None,
    stream: bool,
) -> list[Endpoint]:
    """HOST[:PORT] with its --sni names, or every line of --targets FILE."""
    if targets is None:
        if address is None:
            raise NginxgenError("give HOST[:PORT], or --targets FILE", where="probe")
        host, port = parse_address(address)
        return [Endpoint(host, port, (*_names(host, sni), None), connect)]
    for flag, given in (("HOST[:PORT]", address), ("--sni", sni), ("--connect", connect),
                        ("--stream", stream or None)):  # fmt: skip
        if given:
            raise NginxgenError(f"{flag} and --targets FILE exclude each other", where=flag)
    return read_targets(targets)


def read_targets(path: Path) -> list[Endpoint]:
    """--targets FILE: one endpoint a line, `HOST[:PORT] [NAME ...]` (no name: the host, unless
    it is an IP address); blank lines and `#` comments are skipped. A line that is not one: an
    error naming the file and line (exit 2)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NginxgenError(f"{path}: {getattr(exc, 'strerror', None) or exc}",
                            where="--targets") from None  # fmt: skip
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            host, port = parse_address(words[0])
        except NginxgenError as exc:
            raise NginxgenError(str(exc.args[0]), where=f"{path}:{number}") from None
        out.append(Endpoint(host, port, (*_names(host, words[1:] or None), None), None))
    if not out:
        raise NginxgenError(f"{path} lists no HOST[:PORT]", where="--targets")
    return out


def _names(host: str, sni: list[str] | None) -> list[str | None]:
    """The server names asked for: --sni, else the host unless it is an IP address."""
    import ipaddress

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return list(sni or [host])
    return list(sni or [])


def run(options: ProbeOptions) -> int:
    """Probe every endpoint (with --stream: each stream{} TLS listener of --config and each
    name on it), compare with --config, print the report (text or JSON; with more than one
    name, the fleet summary first: on stderr beside JSON) and a line on stderr of what was
    done. The exit code: 1 for a difference from the config, an inconclusive check or a problem
    found; an endpoint with no TLS answer at all is an error (exit 2), after the others are
    reported."""
    from nginxgen.probe.fleet import Progress, summary
    from nginxgen.probe.run import text_report

    if options.stream:
        results, where, found = _probe_stream(options)
        errors: list[str] = []
    else:
        config = _read_config(options) if options.config is not None else None
        progress = Progress(sum(len(e.names) for e in options.endpoints))
        results, found, errors = _probe_endpoints(options, config, progress)
        progress.close()
        if errors and not results:
            raise NginxgenError(errors[0] if len(errors) == 1 else "; ".join(errors),
                                where="probe")  # fmt: skip
        where = (
            options.endpoints[0].where
            if len(options.endpoints) == 1
            else (f"{len(options.endpoints)} endpoints")
        )
    lines = summary(results, options.expiring, options.config is not None, errors)
    fleet = len(options.endpoints) > 1 or sum(r["sni"] is not None for r in results) > 1
    if options.output == "json" and fleet:
        for line in lines:
            note(line)
    if options.output == "json":  # one name a line: a fleet's thousands stay greppable, and
        # the C encoder (indent= takes the pure-Python one, 4 times slower) writes them
        print("[\n" + ",\n".join(json.dumps(r) for r in results) + "\n]")
    else:
        print(("\n".join(lines) + "\n\n" if fleet else "") + text_report(results), end="")
    for error in errors:
        note(f"error: probe: {error}")
    total = sum(r["connections"] for r in results)
    named = sum(r["sni"] is not None for r in results)
    bare = len(results) - named
    note(f"probe: {named} names and {bare} without SNI, {total} connections to {where}")
    if errors:
        return 2
    return 1 if found or any(r["inconclusive"] or r["problems"] for r in results) else 0


def _probe_endpoints(
    options: ProbeOptions, config: tuple[Config, list[str]] | None, progress: Progress
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """Every endpoint probed, a few at a time: (the results in order, the differences from the
    config, why an endpoint gave no answer)."""
    from concurrent.futures import ThreadPoolExecutor

    if config is not None:
        for line in config[1]:
            note(line)
    at_once = max(1, min(len(options.endpoints), ENDPOINTS_AT_ONCE))
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        done = list(pool.map(lambda e: _probe_endpoint(options, e, config, progress),
                             options.endpoints))  # fmt: skip
    results = [r for got, _, _ in done for r in got]
    errors = [error for _, _, error in done if error is not None]
    return results, sum(found for _, found, _ in done), errors


ENDPOINTS_AT_ONCE = 4  # endpoints probed at once, each with --connections of its own


def _probe_endpoint(
    options: ProbeOptions,
    endpoint: Endpoint,
    config: tuple[Config, list[str]] | None,
    progress: Progress,
) -> tuple[list[dict[str, Any]], int, str | None]:
    """One endpoint's names: (their results, their differences from the config, why the
    endpoint gave no answer at all). A port the config serves with TLS in stream{} and not in
    http{} is probed as --stream probes it: a client there gets no HTTP to judge."""
    from nginxgen.probe.plan import shared_contexts
    from nginxgen.probe.run import probe, reach
    from nginxgen.probe.stream import probe_stream_port, stream_port

    why, address = reach(endpoint.connect or endpoint.host, endpoint.port, options.timeout)
    if why is not None:
        progress.skip(len(endpoint.names))
        return [], 0, why
    names = list(endpoint.names)
    model = config[0] if config is not None else None
    stream = stream_port(model, options.target, endpoint.port, address) if model else None
    if stream is not None:
        note(f"probe: {stream.why}: probed as with --stream")
        results = probe_stream_port(stream, names, endpoint.connect or endpoint.host,
                                    options.timeout, options.ech)  # fmt: skip
        for result in results:
            progress.done(result)
    else:
        shared = (
            shared_contexts(model, options.target, endpoint.port, names, address) if model else {}
        )
        results = probe(endpoint.host, endpoint.port, names, endpoint.connect, options.timeout,
                        options.ech, options.target.library, shared, options.connections,
                        progress.done)  # fmt: skip
    for result in results:
        result["endpoint"] = endpoint.where
    if not any(any(r["protocols"].values()) for r in results):
        return (
            [],
            0,
            _no_answer(endpoint.where, results) + _proxy_protocol(model, endpoint.port, address),
        )
    if stream is not None:  # compared with the stream model already
        return results, sum(len(r["mismatches"]) for r in results), None
    if model is None:
        return results, 0, None
    from nginxgen.probe.predict import compare_all

    return results, compare_all(model, options.target, endpoint.port, results, address), None


def _proxy_protocol(config: Config | None, port: int, address: str | None) -> str:
    """Why the config's own server may not answer a client's hello: its listen takes a PROXY
    protocol header first (trial 8, YunoHost's `listen ... ssl proxy_protocol`)."""
    from nginxgen.conf.per_name import tls_socket_for_port

    socket = tls_socket_for_port(config, port, address) if config is not None else None
    if socket is None:
        return ""
    for server in config.sockets[socket] if config is not None else []:
        for listen in server.listens:
            if listen.socket == socket and listen.proxy_protocol:
                return (
                    f" (the config's listen at {listen.stmt.file}:{listen.stmt.line} takes a "
                    "PROXY protocol header before the TLS hello, which the probe does not send: "
                    "probe the proxy in front of it)"
                )
    return ""


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
    """Each stream{} TLS listener of --config and each literal name on it (and --sni's names),
    probed and compared with the stream model's answers: the results, where they were asked,
    the differences."""
    from nginxgen.probe.stream import probe_stream

    model, lines = _read_config(options)
    [endpoint] = options.endpoints  # --stream takes HOST, not --targets
    results = probe_stream(
        model, options.target, endpoint.host, endpoint.connect, options.timeout, options.ech,
        names=tuple(name for name in endpoint.names if name is not None),  # --sni's, asked too
    )  # fmt: skip
    if not results:
        raise NginxgenError(
            f"{options.config} has no stream{{}} listener that ends TLS", where="--stream"
        )
    for line in lines:
        note(line)
    where = endpoint.connect or endpoint.host
    return results, where, sum(len(r["mismatches"]) for r in results)


def _read_config(options: ProbeOptions) -> tuple[Config, list[str]]:
    """The --config tree's model, and the lines that say where the tree was read."""
    from nginxgen.conf.config import build
    from nginxgen.conf.load import LoadError, load_path, where_read

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
    return build(loaded), where_read(loaded, options.mapping, main)
