"""Every command but `lint` (see cli.py), as a typer app."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, cast

# Plain one-line usage errors (no boxes): set before typer reads it at import.
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from nginxgen.errors import NginxgenError

if TYPE_CHECKING:
    from nginxgen.conf.tree import TreeMapping
    from nginxgen.generate.models import GeneratorConfig
    from nginxgen.target import Target

app = typer.Typer(
    help="Generate nginx TLS configuration for your nginx and TLS library; lint configs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
presets_app = typer.Typer(help="List the presets, or show one.", invoke_without_command=True)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", help="print nginxgen's version and exit")
    ] = False,
) -> None:
    """Generate nginx TLS configuration for your nginx and TLS library; lint configs."""
    if version:  # `nginxgen --version` alone never gets here (cli.py answers it first)
        from nginxgen import __version__

        print(f"nginxgen {__version__}")
        raise typer.Exit(0)


app.add_typer(presets_app, name="presets")

NginxVersion = Annotated[
    str | None, typer.Option("--nginx-version", help="nginx version, e.g. 1.26.3")
]
TlsLibrary = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--tls-library",
        help="openssl-3.5.7, openssl-3.0, boringssl, aws-lc-1.37.0, libressl-4.3.0, quictls-3.3.0",
    ),
]
NginxBin = Annotated[str | None, typer.Option("--nginx-bin", help="read the target from PATH -V")]
TreeMap = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        help="FOLDER=HERE: the tree's FOLDER (as its absolute paths name it) is HERE "
        "(a copy of /etc/nginx: --map /etc/nginx=DIR); repeatable. Default: nginx -V's "
        "--conf-path with --nginx-bin, else inferred when the tree is a copy (and said so)",
    ),
]
TextOrJson = Annotated[str, typer.Option("--format", help="text or json")]


def _check_format(output: str) -> None:
    """--format of the commands that print text or JSON."""
    if output not in ("text", "json"):
        raise NginxgenError(f"unknown format {output!r}: use text or json", where="--format")


def _show(output: str, data: object, render: Callable[[Any], str]) -> None:
    """A command's result on stdout: indented JSON, or its text rendering."""
    import json

    if output == "json":
        print(json.dumps(data, indent=2))
    else:
        print(render(data), end="")


def _err(message: str) -> None:
    print(f"nginxgen: {message}", file=sys.stderr)


def _mapping(entries: list[str] | None, target: Target) -> TreeMapping:
    """Where a tree's folders are (nginxgen.conf.tree): --map, else the binary's --conf-path."""
    from nginxgen.conf.tree import TreeMapping, parse_map

    return TreeMapping(parse_map(entries or [], os.getcwd()), target.conf_path)


@app.command()
def generate(
    preset: Annotated[Optional[str], typer.Option(help="preset name (nginxgen presets)")] = None,  # noqa: UP045
    config: Annotated[
        Path | None, typer.Option("--config", help="YAML file with preset fields and sites")
    ] = None,
    nginx_version: NginxVersion = None,
    tls_library: TlsLibrary = None,
    nginx_bin: NginxBin = None,
    domain: Annotated[list[str] | None, typer.Option(help="server name; repeat for more")] = None,
    cert: Annotated[
        list[str] | None, typer.Option(help="certificate chain (PEM); up to two: RSA and ECDSA")
    ] = None,
    key: Annotated[
        list[str] | None, typer.Option(help="private key for the --cert in the same position")
    ] = None,
    listen: Annotated[
        list[str] | None, typer.Option(help="HTTPS address (default 443 and [::]:443)")
    ] = None,
    http_listen: Annotated[
        list[str] | None,
        typer.Option(help="HTTP redirect address (default 80 and [::]:80), or none"),
    ] = None,
    cpu: Annotated[
        str | None, typer.Option(help="auto|aes-ni|no-aes-ni: AES-GCM or ChaCha20 first")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="write files into this folder (default: stdout)")
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(help="add the sites to the nginx tree in this folder (its nginx.conf)"),
    ] = None,
    root: Annotated[
        Path | None, typer.Option(help="with --into: the main file, if not DIR/nginx.conf")
    ] = None,
    force: Annotated[bool, typer.Option(help="replace differing files (atomically)")] = False,
    diff: Annotated[
        bool, typer.Option(help="show the diff against --out or --into, write nothing")
    ] = False,
    comments: Annotated[
        bool, typer.Option("--comments/--no-comments", help="one-line why comments")
    ] = True,
    access_log: Annotated[
        str | None,
        typer.Option(
            help="TLS access log file for `nginxgen report`, or off "
            "(default: nginxgen-tls.log in /var/log/nginx, or in the --into tree's log folder)"
        ),
    ] = None,
    hsts_subdomains: Annotated[
        bool | None,
        typer.Option(
            "--hsts-subdomains/--no-hsts-subdomains",
            help="HSTS includeSubDomains for every site that sends HSTS "
            "(default: the preset's or --config's, else on)",
        ),
    ] = None,
    tree_map: TreeMap = None,
) -> None:
    """Render ssl.conf files for a preset and your sites."""
    from nginxgen.diff import show
    from nginxgen.generate.compose import CpuMode, compose
    from nginxgen.generate.plan import make_plan
    from nginxgen.generate.render import private_files, render
    from nginxgen.target import resolve
    from nginxgen.writer import diff as diff_of
    from nginxgen.writer import plan_changes, write

    if cpu not in (None, "auto", "aes-ni", "no-aes-ni"):
        raise NginxgenError(f"unknown value {cpu!r}: use auto, aes-ni or no-aes-ni", where="--cpu")
    if into is not None and out is not None:
        raise NginxgenError("give --out (a new tree) or --into (an existing one)", where="--into")
    if root is not None and into is None:
        raise NginxgenError("--root names the main file of --into DIR", where="--root")
    if tree_map and into is None:
        raise NginxgenError("--map says where the folders of --into DIR are", where="--map")
    if diff and out is None and into is None:
        raise NginxgenError("--diff compares against --out DIR or --into DIR", where="--diff")
    target = resolve(nginx_version, tls_library, nginx_bin)
    cpu_mode = cast("CpuMode | None", cpu)
    model = compose(
        preset,
        config,
        domain or [],
        cert or [],
        key or [],
        listen,
        http_listen,
        cpu_mode,
        comments,
        access_log=access_log,
        hsts_subdomains=hsts_subdomains,
    )
    _err(f"target: {target.describe()}")
    if into is not None:
        _generate_into(into, root, model, target, diff, nginx_bin, _mapping(tree_map, target))
        return
    plan = make_plan(model, target, _kept_ech_key(out, model))
    files = render(plan)
    if out is None:
        for name, text in files.items():
            print(f"# ==> {name} <==")
            print(text)
        return
    if diff:
        raise typer.Exit(show(diff_of(plan_changes(out, files))))
    for line in write(out, files, force, private_files(plan)):
        _err(line)


def _kept_ech_key(out: Path | None, model: GeneratorConfig) -> str | None:
    """The ECH key made by an earlier run into --out: kept, as its DNS record is published."""
    from nginxgen.generate.ech import NEW_KEY_FILE

    if out is None or model.policy.ech is None or model.policy.ech.keys:
        return None
    try:
        return (out / NEW_KEY_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        where = str(out / NEW_KEY_FILE)
        raise NginxgenError(f"cannot read it: {exc.strerror}", where=where) from None


def _generate_into(
    into: Path,
    root: Path | None,
    model: GeneratorConfig,
    target: Target,
    diff: bool,
    nginx_bin: str | None,
    mapping: TreeMapping,
) -> None:
    """Print each change (file: what (why)), the diff with --diff, then what lint still finds:
    in what nginxgen wrote (should be nothing) and, left as is, in the user's own lines."""
    from nginxgen.diff import show
    from nginxgen.into.apply import run_into
    from nginxgen.lint.findings import Finding, severity_rank
    from nginxgen.lint.run import Selection, lint

    def failing(findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if severity_rank(f.severity) >= severity_rank("warning")]

    result = run_into(
        into,
        root,
        model,
        target,
        diff,
        nginx_bin,
        lambda loaded: lint(loaded, target, Selection()),
        mapping,
    )
    for line in result.notes:
        _err(line)

    def say(line: str) -> None:
        # with --diff, stdout holds the diff alone (what patch and git apply read)
        print(line, file=sys.stderr if diff else sys.stdout)

    steps = result.plan.steps
    for step in steps:
        (_err if diff else print)(str(step))
    if not steps:
        _err("nothing to change: the tree already has these sites as planned")
    for line in result.written:
        _err(line)
    for finding in failing(result.ours):
        _err(f"warning: in what nginxgen wrote: {finding.file}:{finding.line}: {finding.code} "
             f"{finding.message}")  # fmt: skip
    left = failing(result.left)
    if left:
        say(f"left as is ({len(left)}, in your own lines; `nginxgen lint --fix` mends some):")
        for finding in left:
            say(f"  {finding.file}:{finding.line}: {finding.code} {finding.message}")
    if diff:
        raise typer.Exit(show(result.diff))


@app.command()
def ciphers(
    string: Annotated[str, typer.Argument(help="ssl_ciphers value; put -- before it")],
    tls_library: TlsLibrary = None,
    tls13: Annotated[
        bool, typer.Option("--tls13", help="read STRING as a TLS 1.3 Ciphersuites list")
    ] = False,
    output: TextOrJson = "text",
) -> None:
    """Evaluate a cipher string the way the TLS library does: its suites, in its order."""
    from nginxgen.ciphers import evaluate, evaluate_ciphersuites, model_for
    from nginxgen.ciphers.report import json_report, text_report
    from nginxgen.target import resolve

    _check_format(output)
    # No --tls-library: the same default library every other command assumes.
    model = model_for(resolve(tls_library=tls_library).library)
    result = (evaluate_ciphersuites if tls13 else evaluate)(string, model)
    label = ("ssl_conf_command Ciphersuites " if tls13 else "ssl_ciphers ") + string
    print((json_report if output == "json" else text_report)(result, label), end="")
    if result.error:
        raise typer.Exit(1)


@app.command()
def probe(
    target: Annotated[str, typer.Argument(help="HOST[:PORT] (port 443 when left out)")],
    sni: Annotated[
        list[str] | None, typer.Option(help="server name to ask for; repeat for more")
    ] = None,
    connect: Annotated[
        str | None, typer.Option(help="connect to this address instead of HOST")
    ] = None,
    output: TextOrJson = "text",
    timeout: Annotated[float, typer.Option(help="seconds per connection")] = 5.0,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="compare with this nginx.conf (the linter's model)"),
    ] = None,
    root: Annotated[
        Path | None,
        typer.Option(help="with --config FILE: the main file whose tree includes FILE"),
    ] = None,
    nginx_version: NginxVersion = None,
    tls_library: TlsLibrary = None,
    nginx_bin: NginxBin = None,
    tree_map: TreeMap = None,
    ech_config: Annotated[
        str | None,
        typer.Option(
            "--ech-config",
            help="try Encrypted Client Hello per name with this ECHConfigList: base64, an HTTPS"
            " record's text, or a file (an `openssl ech` key file, or a record)",
        ),
    ] = None,
) -> None:
    """Ask a live server, per name, what it negotiates (versions, groups, ML-KEM, suite order);
    with --config, every difference from what the config says, and why (exit 1)."""
    import ipaddress

    from nginxgen.probe.run import probe as run_probe
    from nginxgen.probe.run import text_report, unreachable
    from nginxgen.target import resolve

    _check_format(output)
    if root is not None and config is None:
        raise NginxgenError("--root names the main file of --config FILE", where="--root")
    if tree_map and config is None:
        raise NginxgenError("--map says where the folders of --config FILE are", where="--map")
    target_of = resolve(nginx_version, tls_library, nginx_bin)  # checked before connecting
    ech = None
    if ech_config is not None:
        from nginxgen.probe.ech_hello import config_from_argument

        ech = config_from_argument(ech_config)
    host, _, port_text = target.rpartition(":") if target.count(":") == 1 else (target, "", "")
    if target.startswith("["):  # [v6]:port
        host, _, port_text = target[1:].partition("]")
        port_text = port_text.lstrip(":")
    if not port_text.isdigit() and port_text:
        raise NginxgenError(f"{target!r}: expected HOST or HOST:PORT", where="probe")
    port = int(port_text or 443)
    try:
        ipaddress.ip_address(host)
        names: list[str | None] = list(sni or [])
    except ValueError:
        names = list(sni or [host])
    why = unreachable(connect or host, port, timeout)
    if why is not None:
        raise NginxgenError(why, where="probe")
    results = run_probe(host, port, [*names, None], connect, timeout, ech)
    if not any(any(r["protocols"].values()) for r in results):
        raise NginxgenError(
            f"no TLS answer from {connect or host}:{port} for any version", where="probe"
        )
    found = 0
    if config is not None:
        from nginxgen.conf.config import build
        from nginxgen.conf.load import LoadError, load_path
        from nginxgen.conf.tree import notes
        from nginxgen.probe.predict import compare

        main = str(root or config)
        try:
            path_map, infer = _mapping(tree_map, target_of).for_main(main)
            loaded = load_path(main, path_map=path_map, infer=infer)
        except LoadError as exc:
            raise NginxgenError(str(exc), where="--root" if root else "--config") from None
        if root is not None and os.path.realpath(config) not in map(os.path.realpath, loaded.files):
            raise NginxgenError(f"{root} does not include {config}", where="--root")
        model = build(loaded)
        for result in results:
            result["mismatches"], result["config"] = compare(model, target_of, port, result)
            found += len(result["mismatches"])
        for line in notes(
            loaded.inferred, loaded.read_files(), os.path.dirname(os.path.abspath(main))
        ):
            _err(line)
    _show(output, results, text_report)
    total = sum(r["connections"] for r in results)
    where = f"{connect or host}:{port}"
    _err(f"probe: {len(results)} names (no SNI included), {total} connections to {where}")
    if found or any(r["inconclusive"] or r["problems"] for r in results):
        raise typer.Exit(1)


@app.command()
def report(
    logs: Annotated[list[str], typer.Argument(help="access logs: plain, gzip, or - for stdin")],
    log_format: Annotated[
        str | None,
        typer.Option(
            "--log-format",
            help="the format string, or a log_format NAME in --config (default: nginxgen_tls)",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="nginx.conf: its log_format for these logs"),
    ] = None,
    by: Annotated[str | None, typer.Option(help="hour or day: a row per period")] = None,
    output: TextOrJson = "text",
    html: Annotated[
        Path | None, typer.Option(help="also write a self-contained HTML page with charts")
    ] = None,
) -> None:
    """Read TLS access logs: protocol, suite and key-exchange shares, post-quantum share,
    clients that offered ML-KEM but got a classical group, resumption and 0-RTT."""

    from nginxgen.report.formats import resolve_format
    from nginxgen.report.run import nothing_readable, read_logs, unreadable_inputs
    from nginxgen.report.summary import BY_CHOICES, summarize
    from nginxgen.report.text import text_report

    _check_format(output)
    if by is not None and by not in BY_CHOICES:
        raise NginxgenError(f"unknown period {by!r}: use hour or day", where="--by")
    if html is not None and not html.parent.is_dir():  # before reading a long log, not after
        raise NginxgenError("its folder does not exist", where=str(html))
    fmt = resolve_format(log_format, str(config) if config else None, logs)
    tally, problems = read_logs(logs, fmt)
    if nothing_readable(tally):  # a report of nothing would hide that the format is wrong
        for problem in unreadable_inputs(tally, problems):
            _err(f"error: {problem}")
        raise typer.Exit(2)
    result = summarize(tally, by)
    if html is not None:
        from nginxgen.report.html import html_report
        from nginxgen.writer import write_named_file

        # the page always charts over time: by hour unless --by day
        write_named_file(html, html_report(result if by else summarize(tally, "hour")))
    # every input unreadable: the error lines alone, no empty report
    if len(problems) < len(logs) or tally.lines:
        _show(output, result, text_report)
    for problem in problems:
        _err(f"error: {problem}")
    if problems:
        raise typer.Exit(2)


@app.command()
def doctor(
    nginx_bin: Annotated[
        str | None, typer.Option("--nginx-bin", help="the nginx to ask (default: nginx on PATH)")
    ] = None,
    output: TextOrJson = "text",
    interval: Annotated[
        float, typer.Option(help="seconds between the two reads of the kTLS counters")
    ] = 1.0,
    proc: Annotated[Path, typer.Option(hidden=True, help="the /proc to read (tests)")] = Path(
        "/proc"
    ),
) -> None:
    """What this machine's nginx, TLS library and kernel can do for TLS (HTTP/2 and HTTP/3
    modules, ML-KEM, kTLS, AES instructions), and which presets fit it."""
    import shutil

    from nginxgen.doctor import diagnose, text_report
    from nginxgen.target import detect as read_target

    _check_format(output)
    binary = nginx_bin or shutil.which("nginx") or "/usr/sbin/nginx"
    found = diagnose(read_target(binary), binary, proc, interval)
    _show(output, found, text_report)


@app.command()
def detect(
    nginx_bin: Annotated[str, typer.Option("--nginx-bin", help="nginx binary")] = "nginx",
) -> None:
    """Print the target read from an nginx binary's -V output."""
    import shutil

    from nginxgen.target import detect as detect_target

    path = shutil.which(nginx_bin) or nginx_bin
    target = detect_target(path)
    print(target.describe())
    if target.modules is not None:
        print("modules: " + " ".join(sorted(target.modules)))


@app.command()
def schema() -> None:
    """Print the JSON Schema of the site file (generate --config), for editors."""
    import json

    from nginxgen.generate.models import site_file_schema

    print(json.dumps(site_file_schema(), indent=2))


@app.command()
def rules() -> None:
    """List the lint rules: code, severity (a range where it depends on the case: `nginxgen
    explain CODE` says when), name, summary."""
    from nginxgen.lint.rules import catalog

    for code, entry in catalog().items():
        rule = entry.rule
        print(f"{code}  {rule.severity_range:<13}  {rule.name:<40}  {entry.summary}")


@app.command()
def explain(code: str) -> None:
    """Print a lint rule's documentation (what, why, fix, sources); docs/rules/ has the same."""
    from nginxgen.lint.rule_docs import page
    from nginxgen.lint.rules import catalog

    entry = catalog().get(code.upper())
    if entry is None:
        raise NginxgenError(f"unknown rule {code!r} (see nginxgen rules)", where="explain")
    print(page(entry), end="")


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def lint(ctx: typer.Context) -> None:
    """Lint nginx configs for TLS pitfalls (nginxgen lint --help)."""
    from nginxgen.lint.cli import run as run_lint

    raise SystemExit(run_lint(list(ctx.args)))


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def lsp(ctx: typer.Context) -> None:
    """The language server for editors (stdio; the lsp extra: pip install 'nginxgen[lsp]')."""
    from nginxgen.cli import run_lsp

    raise SystemExit(run_lsp(list(ctx.args)))


@presets_app.callback()
def presets(ctx: typer.Context) -> None:
    """List the presets with one-line summaries."""
    if ctx.invoked_subcommand:
        return
    from nginxgen.generate.presets import list_presets

    infos = list_presets()
    width = max(len(i.name) for i in infos)
    for info in infos:
        print(f"{info.name:<{width}}  {info.summary}")


@presets_app.command("show")
def presets_show(name: str) -> None:
    """Print one preset file (with what it extends)."""
    from nginxgen.generate.presets import load_preset, preset_dir

    load_preset(name)  # refuses unknown names with the list of known ones
    print((preset_dir() / f"{name}.yaml").read_text(encoding="utf-8"), end="")


def run(args: list[str], debug: bool = False) -> int:
    args = [a for a in args if a != "--debug"]
    command = typer.main.get_command(app)
    try:
        command.main(args, prog_name="nginxgen", standalone_mode=True)
    except SystemExit as exc:  # usage errors (2), --help (0): typer has already printed them
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except NginxgenError as exc:
        for line in str(exc).splitlines():
            _err(f"error: {line}")
        return exc.exit_code
    except (KeyboardInterrupt, BrokenPipeError):
        return 130
    except Exception as exc:
        if debug:
            raise
        _err(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        return 3
    return 0
