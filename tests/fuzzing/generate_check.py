"""What must hold for any generator input: refused with a clear error, or rendered into files
that re-parse to exactly the planned directives, lint clean for their target, and (where a real
build of that target is provisioned) pass `nginx -t`."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crossplane
import pydantic

from nginxgen.base.errors import NginxgenError
from nginxgen.conf.load import load_path
from nginxgen.generate.models import GeneratorConfig
from nginxgen.generate.plan import Plan, make_plan
from nginxgen.generate.render import MAIN_FILE, TLS_FILE, render, site_file
from nginxgen.knowledge.target import Target, parse_nginx_v, resolve
from nginxgen.lint.findings import Finding
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.live import nginx_check, prepare_prefix
from tests.pki import CertificateFactory, empty_crl

GeneratorCase = tuple[dict[str, Any], tuple[str, str]]
Directives = dict[str, list[list[str]]]


@dataclass(frozen=True)
class GenerateOutcome:
    kind: str  # refused-model, refused-target, rendered, nginx-t
    seconds: float


@dataclass(frozen=True)
class RealFiles:
    """Certificates and DH parameters nginx -t can load."""

    certificates: list[dict[str, str]]
    chain: str  # intermediate and root, for ssl_trusted_certificate
    dhparam: str
    root: str  # the CA alone: client certificates' CA (any depth reaches it)
    crl: str  # an empty CRL of the root


@functools.cache
def real_files() -> RealFiles:
    folder = Path(tempfile.mkdtemp(prefix="nginxgen-fuzz-pki-"))
    atexit.register(shutil.rmtree, folder, True)
    pairs = []
    for kind in ("ecdsa", "rsa"):
        factory = CertificateFactory(folder / kind, kind)
        chain = factory.leaf("example.com", kind)
        pairs.append({"cert": str(chain.fullchain), "key": str(chain.key)})
    trusted = folder / "trusted.pem"
    trusted.write_bytes(chain.fullchain.read_bytes() + chain.root.read_bytes())
    dhparam = folder / "dhparam.pem"
    subprocess.run(
        ["openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048"],
        stdout=dhparam.open("wb"),
        check=True,
    )
    crl = empty_crl(factory, folder / "root.crl")
    return RealFiles(pairs, str(trusted), str(dhparam), str(chain.root), str(crl))


@functools.cache
def build_target(build: Build) -> Target:
    """The target as nginx -V of the build states it (its modules included)."""
    return parse_nginx_v(build.nginx("-V").stderr)


def with_real_files(data: dict[str, Any]) -> dict[str, Any]:
    files = real_files()
    policy = dict(
        data["policy"],
        dhparam=files.dhparam if data["policy"].get("dhparam") else None,
        ocsp_trusted_certificate=files.chain
        if data["policy"].get("ocsp_trusted_certificate")
        else None,
    )
    sites = [
        dict(
            s,
            certificates=files.certificates[: len(s["certificates"])],
            root="/tmp",
            **_real_backend_files(s, files),
        )
        for s in data["sites"]
    ]
    streams = [
        dict(
            s,
            certificates=files.certificates[: len(s["certificates"])],
            **_real_backend_files(s, files),
        )
        for s in data.get("streams", [])
    ]
    # a log nginx can open on any test machine (the default folder is /var/log/nginx)
    return dict(data, policy=policy, sites=sites, streams=streams, access_log="/dev/null")


def _real_backend_files(site: dict[str, Any], files: RealFiles) -> dict[str, Any]:
    """A site's CA, CRL and backend CA files as files nginx -t can load."""
    out: dict[str, Any] = {}
    for key in ("upstream", "backend_tls"):
        tls = site.get(key)
        if isinstance(tls, dict) and tls.get("trusted_certificate") not in (None, "system"):
            out[key] = dict(tls, trusted_certificate=files.chain)
    certs = site.get("client_certificates")
    if isinstance(certs, dict):
        out["client_certificates"] = dict(
            certs, ca=files.root, crl=files.crl if certs.get("crl") else None
        )
    return out


def parse(text: str, folder: Path, name: str) -> list[dict[str, Any]]:
    path = folder / f"reparse-{name}"
    path.write_text(text, encoding="utf-8")
    payload = crossplane.parse(
        str(path), single=True, strict=False, check_ctx=False, check_args=False
    )
    assert payload["status"] == "ok", payload["errors"]
    parsed: list[dict[str, Any]] = payload["config"][0]["parsed"]
    return parsed


def directives(parsed: list[dict[str, Any]]) -> Directives:
    out: Directives = {}
    for entry in parsed:
        if entry["directive"] != "#":
            out.setdefault(entry["directive"], []).append(entry["args"])
    return out


def expected_tls(plan: Plan) -> Directives:
    tls = plan.tls
    want: Directives = {
        "ssl_protocols": [tls.protocols],
        "ssl_prefer_server_ciphers": [["on" if tls.prefer_server else "off"]],
        "ssl_ecdh_curve": [[tls.ecdh_curve]],
        "ssl_session_cache": [[tls.session_cache]],
        "ssl_session_timeout": [[tls.session_timeout]],
        "ssl_session_tickets": [["on" if tls.session_tickets else "off"]],
        "keepalive_timeout": [[tls.keepalive_timeout]],
        "keepalive_requests": [[str(tls.keepalive_requests)]],
    }
    optional: Directives = {
        "ssl_ciphers": [[tls.ciphers]] if tls.ciphers else [],
        "ssl_conf_command": [[c.name, c.value] for c in tls.conf_commands],
        "ssl_early_data": [["on"]] if tls.early_data else [],
        "ssl_stapling": [["on"]] if tls.stapling else [],
        "ssl_stapling_verify": [["on"]] if tls.stapling and tls.trusted_certificate else [],
        "ssl_trusted_certificate": [[tls.trusted_certificate]]
        if tls.stapling and tls.trusted_certificate
        else [],
        "resolver": [tls.resolver] if tls.stapling else [],
        "ssl_dhparam": [[tls.dhparam]] if tls.dhparam else [],
        "ssl_buffer_size": [[tls.buffer_size]] if tls.buffer_size else [],
        "sendfile": [["on"]] if tls.sendfile else [],
    }
    log = plan.access_log
    if log is not None:
        optional["log_format"] = [
            [log.format_name, "escape=json", *(s.strip("'") for s in log.strings)]
        ]
        optional["access_log"] = [[log.path, log.format_name]]
    want.update({k: v for k, v in optional.items() if v})
    return want


def check_round_trip(model: GeneratorConfig, plan: Plan, files: dict[str, str], tmp: Path) -> None:
    assert directives(parse(files[TLS_FILE], tmp, TLS_FILE)) == expected_tls(plan)
    for site, site_plan in zip(model.sites, plan.sites, strict=True):
        parsed = parse(files[site_file(site_plan.name)], tmp, site_plan.name)
        (server,) = [d for d in parsed if d["directive"] == "server"]
        got = directives(server["block"])
        assert got["server_name"] == [site.domains]
        assert got["ssl_certificate"] == [[c.cert] for c in site.certificates]
        assert got["ssl_certificate_key"] == [[c.key] for c in site.certificates]
        assert got["listen"] == [listen.args for listen in site_plan.listens]
        assert got["root"] == [[site.root]]


def lint_findings(conf: Path, target: Target) -> list[Finding]:
    return lint(load_path(str(conf)), target, Selection())


def check_generate(case: GeneratorCase, build: Build | None = None) -> GenerateOutcome:
    """Check one case; with a build of its target, also run nginx -t on the result."""
    started = time.monotonic()
    data, (nginx_version, tls_library) = case
    if build is not None and not build.stream_tls:
        # Debian's builds have stream as a dynamic module whose load_module path (the binary's
        # --modules-path) is outside the build's root (test_generate_backends points it at the
        # unpacked file); AWS-LC's and BoringSSL's refuse streams
        data = {k: v for k, v in data.items() if k != "streams"}
    try:
        model = GeneratorConfig.model_validate(data)
        if build is not None:  # the same model with files nginx -t can open
            model = GeneratorConfig.model_validate(with_real_files(data))
    except pydantic.ValidationError:
        return GenerateOutcome("refused-model", time.monotonic() - started)
    target = build_target(build) if build else resolve(nginx_version, tls_library)
    try:
        plan = make_plan(model, target)
    except NginxgenError as exc:
        assert str(exc) and "\n\n" not in str(exc)
        return GenerateOutcome("refused-target", time.monotonic() - started)
    files = render(plan)
    with tempfile.TemporaryDirectory(prefix="nginxgen-fuzz-gen-") as tmp:
        folder = Path(tmp)
        check_round_trip(model, plan, files, folder)
        conf_dir = folder / "conf"
        conf_dir.mkdir()
        for name, text in files.items():
            (conf_dir / name).write_text(text, encoding="utf-8")
        findings = lint_findings(conf_dir / MAIN_FILE, target)
        # no warning at all: what the user asked for by name (no HSTS, no TLS 1.3, legacy
        # protocols) is written with a suppression that gives the reason
        bad = [f for f in findings if f.severity in ("error", "warning")]
        assert not bad, bad
        if build is None:
            return GenerateOutcome("rendered", time.monotonic() - started)
        prepare_prefix(conf_dir / MAIN_FILE, build)
        done = nginx_check(build, conf_dir / MAIN_FILE)
        assert done.returncode == 0, done.stderr
        return GenerateOutcome("nginx-t", time.monotonic() - started)
