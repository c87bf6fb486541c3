"""Every command but `lint` (see cli.py), as a typer app."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

# Plain one-line usage errors (no boxes): set before typer reads it at import.
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from nginxgen.base.console import note
from nginxgen.base.errors import NginxgenError
from nginxgen.files import options as declared_options

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


def _declared(flag: str) -> Any:  # typer.Option is typed Any
    """A flag other commands share with lint, as nginxgen.files.options declares it (its names
    and its help, once)."""
    option = declared_options.BY_FLAG[flag]
    metavar = None if option.kind == "switch" else option.metavar
    return typer.Option(option.flag, *option.aliases, help=option.help, metavar=metavar)


NginxVersion = Annotated[str | None, _declared("--nginx-version")]
TlsLibrary = Annotated[Optional[str], _declared("--tls-library")]  # noqa: UP045
NginxBin = Annotated[str | None, _declared("--nginx-bin")]
TreeMap = Annotated[list[str] | None, _declared("--path-map")]
Prefix = Annotated[str | None, _declared("--prefix")]
Root = Annotated[Path | None, _declared("--root")]
TextOrJson = Annotated[str, typer.Option("--format", help="text or json")]


def _exit(code: int) -> None:
    """A package's exit code, as the command's."""
    if code:
        raise typer.Exit(code)


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
    root: Root = None,
    prefix: Prefix = None,
    force: Annotated[bool, typer.Option(help="replace differing files (atomically)")] = False,
    diff: Annotated[bool, _declared("--diff")] = False,
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
    from nginxgen.generate.cli import resolve_options
    from nginxgen.generate.cli import run as run_generate

    options = resolve_options(
        preset=preset,
        config=config,
        nginx_version=nginx_version,
        tls_library=tls_library,
        nginx_bin=nginx_bin,
        domain=domain,
        cert=cert,
        key=key,
        listen=listen,
        http_listen=http_listen,
        cpu=cpu,
        out=out,
        into=into,
        root=root,
        prefix=prefix,
        force=force,
        diff=diff,
        comments=comments,
        access_log=access_log,
        hsts_subdomains=hsts_subdomains,
        tree_map=tree_map,
    )
    for line in options.notes:
        note(line)
    if into is None:
        _exit(run_generate(options))
        return
    from nginxgen.into.cli import run as run_into
    from nginxgen.lint.findings import Severity
    from nginxgen.lint.run import Selection, lint

    # the linter is joined to the planner here: into sits below lint and does not import it
    failing = Selection(min_severity=Severity.WARNING)
    _exit(run_into(into, options, lambda loaded: lint(loaded, options.target, failing)))


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
    from nginxgen.base.console import check_format
    from nginxgen.ciphers.engine import evaluate, evaluate_ciphersuites
    from nginxgen.ciphers.listing import json_report, text_report
    from nginxgen.ciphers.model import model_for
    from nginxgen.knowledge.target import resolve

    check_format(output)
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
    root: Root = None,
    nginx_version: NginxVersion = None,
    tls_library: TlsLibrary = None,
    nginx_bin: NginxBin = None,
    tree_map: TreeMap = None,
    ech_config: Annotated[
        str | None,
        typer.Option(
            "--ech-config",
            help="try Encrypted Client Hello per name with this ECHConfigList: base64, an HTTPS"
            " record's text, or a file (an `openssl ech` key file, or a record); `grease`: a"
            " GREASE ECH, which a server with ECH answers with its retry configs",
        ),
    ] = None,
    stream: Annotated[
        bool,
        typer.Option(
            "--stream", help="with --config: probe each stream{} TLS listener of it on HOST"
        ),
    ] = False,
) -> None:
    """Ask a live server, per name, what it negotiates (versions, groups, ML-KEM, suite order);
    with --config, every difference from what the config says, and why (exit 1)."""
    from nginxgen.probe.cli import resolve_options
    from nginxgen.probe.cli import run as run_probe

    options = resolve_options(
        address=target,
        sni=sni,
        connect=connect,
        output=output,
        timeout=timeout,
        config=config,
        root=root,
        nginx_version=nginx_version,
        tls_library=tls_library,
        nginx_bin=nginx_bin,
        tree_map=tree_map,
        ech_config=ech_config,
        stream=stream,
    )
    _exit(run_probe(options))


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
    from nginxgen.report.cli import resolve_options
    from nginxgen.report.cli import run as run_report

    options = resolve_options(
        logs=logs, log_format=log_format, config=config, by=by, output=output, html=html
    )
    _exit(run_report(options))


@app.command()
def doctor(
    nginx_bin: NginxBin = None,
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

    from nginxgen.base.console import check_format, show
    from nginxgen.knowledge.target import detect as read_target
    from nginxgen.knowledge.target import machine_nginx
    from nginxgen.shell.doctor import diagnose, text_report

    check_format(output)
    binary = nginx_bin or machine_nginx() or "/usr/sbin/nginx"
    found = diagnose(read_target(binary), binary, proc, interval)
    show(output, found, text_report)


@app.command()
def detect(
    nginx_bin: Annotated[str, _declared("--nginx-bin")] = "nginx",
) -> None:
    """Print the target read from an nginx binary's -V output."""
    import shutil

    from nginxgen.knowledge.target import detect as detect_target

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


@app.command()
def web(
    out: Annotated[
        Path | None, typer.Option(help="write the page into this folder (replaced whole)")
    ] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="serve the page on this machine (127.0.0.1)")
    ] = False,
    port: Annotated[int, typer.Option(help="with --serve: the port (0: any free one)")] = 8000,
    cache: Annotated[
        Path | None,
        typer.Option(help="the folder of the pinned downloads (default: ~/.cache/nginxgen/web)"),
    ] = None,
) -> None:
    """The browser page: generate, lint, presets and rules computed in the page by this engine
    (Pyodide), a static folder any server can host, offline. Downloads Pyodide and the wheels
    it needs, each pinned by size and sha256, once."""
    import tempfile

    from nginxgen.files.pinned import DownloadError
    from nginxgen.web.build import SNAPSHOT, build_site
    from nginxgen.web.build import serve as serve_site

    if out is None and not serve:
        raise NginxgenError("give --out DIR, --serve, or both", where="web")
    from nginxgen.files.settings import cache_folder

    with tempfile.TemporaryDirectory(prefix="nginxgen-web-") as scratch:
        try:
            site = build_site(out or Path(scratch) / "site", cache or Path(cache_folder()) / "web")
        except DownloadError as exc:
            raise NginxgenError(str(exc), where="web") from None
        note(f"wrote the page into {site}" if out else f"built the page in {site}")
        if not (site / "pyodide" / SNAPSHOT).exists():
            note(
                "warning: node was not found, so the page starts Python itself: lint is ready "
                "about ten seconds later than with Python's snapshot, made under Node"
            )
        if serve:
            serve_site(site, "127.0.0.1", port)


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
    from nginxgen.lsp.launch import run_lsp

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
            note(f"error: {line}")
        return exc.exit_code
    except (KeyboardInterrupt, BrokenPipeError):
        return 130
    except Exception as exc:
        if debug:
            raise
        note(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        return 3
    return 0
