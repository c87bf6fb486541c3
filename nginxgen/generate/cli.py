"""`nginxgen generate`: its flags resolved once into the record the command reads (every value
checked, the target resolved, the sites composed), and the run that renders them to stdout or
writes them into `--out` (`--into`, the sites planned into an existing tree, is nginxgen.into's)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast, get_args

from nginxgen.base.console import note
from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.conf.tree import TreeMapping, flag_mapping
from nginxgen.generate.compose import CpuMode, certificate_notes, check_ca_files, compose
from nginxgen.generate.models import GeneratorConfig
from nginxgen.generate.presets import KeyLines, SiteSource, key_lines
from nginxgen.knowledge.target import Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.generate.plan import Plan


@record
class GenerateOptions:
    target: Target
    model: GeneratorConfig  # the sites, composed from the preset, --config and the flags
    lines: KeyLines | None  # where each key of --config is, for messages naming one
    out: Path | None  # the folder the files are written into (None: stdout)
    into: Path | None  # the existing tree the sites are added to
    root: Path | None  # with --into: its main file, if not DIR/nginx.conf
    mapping: TreeMapping  # with --into: where the tree's folders are (nginxgen.conf.tree)
    nginx_bin: str | None  # with --into: the binary whose `nginx -t` runs before and after
    prefix: str | None  # with --into: the tree's prefix, given (files.nginx_check.tree_prefix)
    force: bool  # replace differing files
    diff: bool  # show the diff against --out or --into, write nothing
    notes: list[str]  # lines to say before anything is written (CA files not on this machine)


def resolve_options(
    *,
    preset: str | None,
    config: SiteSource | None,
    nginx_version: str | None,
    tls_library: str | None,
    nginx_bin: str | None,
    domain: list[str] | None,
    cert: list[str] | None,
    key: list[str] | None,
    listen: list[str] | None,
    http_listen: list[str] | None,
    cpu: str | None,
    out: Path | None,
    into: Path | None,
    root: Path | None,
    prefix: str | None,
    force: bool,
    diff: bool,
    comments: bool,
    access_log: str | None,
    hsts_subdomains: bool | None,
    tree_map: list[str] | None,
) -> GenerateOptions:
    """The flags as given (each one named after its flag), checked: a flag that needs another,
    or two that exclude each other, is one line naming it (exit 2)."""
    from nginxgen.files.settings import find_settings
    from nginxgen.knowledge.target import resolve_set

    _check_flags(cpu=cpu, out=out, into=into, root=root, tree_map=tree_map, diff=diff)
    found = find_settings(os.getcwd())
    # the flags, else the settings file's target, else this machine's nginx
    target = resolve_set(nginx_version, tls_library, nginx_bin, found)
    if into is not None and nginx_bin is None:
        # the machine's nginx the target was read from tests the tree it is added to, as a
        # binary given would: a tree nginx refuses afterwards is put back
        nginx_bin = target.origin
    if prefix is not None and (into is None or nginx_bin is None):
        raise NginxgenError("--prefix is the folder nginx -t of --nginx-bin (or of this machine's "
                            "nginx) runs --into DIR in", where="--prefix")  # fmt: skip
    model = compose(
        preset,
        config,
        domains=domain or [],
        certs=cert or [],
        keys=key or [],
        listen=listen,
        http_listen=http_listen,
        cpu=cast("CpuMode | None", cpu),
        comments=comments,
        access_log=access_log,
        hsts_subdomains=hsts_subdomains,
    )
    lines = key_lines(config) if config is not None else None
    return GenerateOptions(
        target=target,
        model=model,
        lines=lines,
        out=out,
        into=into,
        root=root,
        mapping=flag_mapping(tree_map, target.conf_path),
        nginx_bin=nginx_bin,
        prefix=prefix or (found[1].get("prefix") if found else None),  # as lint reads it
        force=force,
        diff=diff,
        notes=certificate_notes(model)
        + check_ca_files(model, lines)
        + _module_notes(model, target)
        + _http2_notes(model, target),
    )


def _check_flags(
    *,
    cpu: str | None,
    out: Path | None,
    into: Path | None,
    root: Path | None,
    tree_map: list[str] | None,
    diff: bool,
) -> None:
    """A value no --cpu mode has, or a flag that needs another or excludes one given: one line
    naming the flag (exit 2)."""
    if cpu is not None and cpu not in get_args(CpuMode):
        raise NginxgenError(f"unknown value {cpu!r}: use auto, aes-ni or no-aes-ni", where="--cpu")
    if into is not None and out is not None:
        raise NginxgenError("give --out (a new tree) or --into (an existing one)", where="--into")
    if root is not None and into is None:
        raise NginxgenError("--root names the main file of --into DIR", where="--root")
    if tree_map and into is None:
        raise NginxgenError("--map says where the folders of --into DIR are", where="--map")
    if diff and out is None and into is None:
        raise NginxgenError("--diff compares against --out DIR or --into DIR", where="--diff")


def _http2_notes(model: GeneratorConfig, target: Target) -> list[str]:
    """The sites that serve HTTP/2 though they ask not to: before nginx 1.25.1 the listen
    parameter is the address's, and the default server listens on every site's address."""
    from nginxgen.generate.plan import http2_on_every_listen

    if not http2_on_every_listen(model.sites, target):
        return []
    asked = next(site.primary for site in model.sites if site.http2)
    return [
        f"note: {site.primary} serves HTTP/2 too (http2 is false): before nginx 1.25.1 the "
        f"listen parameter turns it on for an address and its default server, and {asked} "
        "asks for it"
        for site in model.sites
        if not site.http2
    ]


def _module_notes(model: GeneratorConfig, target: Target) -> list[str]:
    """A warning when the module file stream{} needs is not on this machine (the binary read
    with --nginx-bin is: its modules should be too, unless generated for another server)."""
    from nginxgen.generate.backends import stream_module
    from nginxgen.knowledge import nginx

    module = stream_module(target) if model.streams else None
    if module is None or os.path.exists(module):
        return []
    package = nginx.dynamic_module("stream").debian_package
    return [
        f"warning: streams: this nginx has stream{{}} as a module of its own, loaded from "
        f"{module}, which is not on this machine; install it on the server (Debian: "
        f"{package}) before reloading nginx (nginx -t fails without it)"
    ]


def run(options: GenerateOptions) -> int:
    """The rendered files: on stdout (each after a `# ==> NAME <==` line), written into --out
    (a line on stderr per file), or with --diff the diff against --out (exit 1 when it differs).
    The exit code."""
    from nginxgen.files.diff import show
    from nginxgen.files.writer import diff as diff_of
    from nginxgen.files.writer import plan_changes, write
    from nginxgen.generate.ech import NEW_KEY_FILE
    from nginxgen.generate.render import private_files

    note(options.target.stated())
    plan, files = rendered(options)
    if options.out is None:
        if plan.ech is not None and plan.ech.new_key is not None:
            # the key (and its DNS record) is made afresh each run: only --out keeps it
            note(
                f"warning: {NEW_KEY_FILE} below is a new ECH private key, and its DNS record "
                "changes with every run: use --out DIR to keep the key (later runs reuse it)"
            )
        for name, text in files.items():
            print(f"# ==> {name} <==")
            print(text)
        return 0
    if options.diff:
        return show(diff_of(plan_changes(options.out, files)))
    for line in write(options.out, files, options.force, private_files(plan)):
        note(line)
    return 0


def rendered(options: GenerateOptions) -> tuple[Plan, dict[str, str]]:
    """The plan and its files (name -> text, in the order a reader should see them): what the
    command prints or writes, and what the in-process API (nginxgen.api) returns."""
    from nginxgen.generate.plan import make_plan
    from nginxgen.generate.render import render

    kept = _kept_ech_key(options.out, options.model)
    plan = make_plan(options.model, options.target, kept, options.lines)
    return plan, render(plan)


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
