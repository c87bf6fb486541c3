"""Render a plan through the Jinja templates into named files."""

from __future__ import annotations

import re

import jinja2

from nginxgen import __version__
from nginxgen.base.resources import data_dir
from nginxgen.generate.ech import DNS_FILE, NEW_KEY_FILE
from nginxgen.generate.plan import Plan
from nginxgen.generate.quoting import quote
from nginxgen.knowledge import nginx

TLS_FILE = "tls.conf"
DEFAULT_FILE = "default-server.conf"
REDIRECT_FILE = "http-redirect.conf"
MAIN_FILE = "nginx.conf"
STREAM_TLS_FILE = "stream-tls.conf"
# stream{} takes these ssl_conf_command lines; KTLS and AntiReplay are http{}'s (sendfile,
# early data)
STREAM_COMMANDS = ("Ciphersuites", "PrioritizeChaCha")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # nginx config, not HTML: quoting is done by the `q` filter
    )
    env.filters["q"] = quote
    return env


WHY_MARK = "#: "


def _comments(text: str, keep: bool) -> str:
    """Turn the templates' `#:` lines into comments, or drop them (--no-comments)."""
    lines = []
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(WHY_MARK):
            if not keep:
                continue
            line = line[: len(line) - len(stripped)] + "# " + stripped[len(WHY_MARK) :]
        lines.append(line)
    return "".join(lines)


def site_file(name: str) -> str:
    return f"{name}.ssl.conf"


def stream_file(name: str) -> str:
    return f"{name}.stream.conf"


def render(plan: Plan) -> dict[str, str]:
    """File name -> text, in the order a reader should see them."""
    env = _environment()
    common = {
        "version": __version__,
        "target": plan.target,
        "comments": plan.comments,
        "files": _file_names(plan),
        "per_vhost_protocols": "ssl_protocols" not in nginx.default_server_only(plan.target),
    }
    out = {
        MAIN_FILE: env.get_template("nginx.conf.j2").render(common, load_modules=plan.load_modules)
    }
    if plan.sites:  # stream sites alone: no http{} block, none of its files
        out.update(_render_http(plan, env, common))
    if plan.streams:
        out.update(_render_streams(plan, env, common))
    texts = {name: _comments(text, plan.comments) for name, text in out.items()}
    if plan.ech is not None:  # not nginx config: no `#:` comments to turn
        texts[DNS_FILE] = plan.ech.dns_text
        if plan.ech.new_key is not None:
            texts[NEW_KEY_FILE] = plan.ech.new_key
    return texts


def _render_http(plan: Plan, env: jinja2.Environment, common: dict[str, object]) -> dict[str, str]:
    """http{}'s files: its TLS settings, the default server, the redirect, one per site."""
    out = {
        TLS_FILE: env.get_template("tls.conf.j2").render(
            common, tls=plan.tls, access_log=plan.access_log, ech=plan.ech
        ),
        DEFAULT_FILE: env.get_template("default-server.conf.j2").render(
            common,
            default_listens=plan.default_listens,
            default_reject=plan.default_reject,
            default_certificates=plan.default_certificates,
        ),
    }
    if plan.redirect_listens:
        out[REDIRECT_FILE] = env.get_template("http-redirect.conf.j2").render(
            common, redirect_listens=plan.redirect_listens
        )
    template = env.get_template("site.ssl.conf.j2")
    for site in plan.sites:
        # a format of the site's own where its server writes the log: one file each, no name twice
        log_name = (
            "_".join([plan.access_log.format_name, *re.findall(r"[a-z0-9]+", site.name.lower())])
            if plan.access_log
            else None
        )
        out[site_file(site.name)] = template.render(
            common, site=site, access_log=plan.access_log, log_name=log_name
        )
    return out


def _file_names(plan: Plan) -> dict[str, str | list[str] | None]:
    """The files the main file includes, as the templates name them (None: not written)."""
    return {
        "tls": TLS_FILE,
        "default": DEFAULT_FILE,
        "redirect": REDIRECT_FILE if plan.redirect_listens else None,
        "sites": [site_file(s.name) for s in plan.sites],
        "streams": [stream_file(s.name) for s in plan.streams],
        "stream_tls": STREAM_TLS_FILE,
    }


def _render_streams(
    plan: Plan, env: jinja2.Environment, common: dict[str, object]
) -> dict[str, str]:
    """stream{}'s TLS settings file (the ssl_conf_command lines it takes) and one file per
    stream."""
    commands = [
        c for c in plan.tls.conf_commands if c.name in STREAM_COMMANDS or c.value in STREAM_COMMANDS
    ]
    out = {
        STREAM_TLS_FILE: env.get_template("stream.conf.j2").render(
            common,
            tls=plan.tls,
            stream_commands=commands,
            session_cache=plan.stream_session_cache,
        )
    }
    template = env.get_template("site.stream.conf.j2")
    for stream in plan.streams:
        out[stream_file(stream.name)] = template.render(common, stream=stream)
    return out


def private_files(plan: Plan) -> frozenset[str]:
    """The rendered files that hold a private key (written readable by their owner only)."""
    return frozenset([NEW_KEY_FILE] if plan.ech and plan.ech.new_key else [])
