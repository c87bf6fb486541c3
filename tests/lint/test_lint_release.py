"""What an nginx release, or its TLS library, refuses in configs nobody here wrote (issue 44),
each against real `nginx -t` on the seven builds: a variable the release does not have
(`$ssl_sigalg` before 1.29.3), a directive only a distribution's package carries before its
release (an error where the target cannot be that package), certificate keys from another
source than a file (`store:` before 1.29.0, `engine:` without engines), and a backend's client
certificate nginx refuses when it merges the location (without its key; empty in 1.21.0 to
1.22.x). Where nginx refuses a case for the reason it names, lint's rule names the same; where
nginx accepts it, or refuses it for another reason, the rule says nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.grammar import nginx_refuses
from tests.helpers import CertPair


@dataclass(frozen=True)
class Case:
    name: str
    http: str  # http{}'s content; {cert} and {key}: a certificate and its key
    code: str  # the rule that reports it
    says: str  # what nginx's first error says when it refuses the case for this reason
    everywhere: bool = False  # every release refuses it (the others depend on the build)


PASS_TLS = "location / {{ proxy_pass https://127.0.0.1:9; {lines} }}"
CASES = (
    Case("unknown-variable", "server { listen 127.0.0.1:8080; location / { "
         "add_header X-Signature $ssl_sigalg always; return 204; } }",
         "NGX011", r'^unknown "ssl_sigalg" variable'),
    Case("backported-directive", "max_headers 100; server { listen 127.0.0.1:8080; }",
         "NGX007", r'^unknown directive "max_headers"'),
    Case("store-key", "server { listen 127.0.0.1:8443 ssl; ssl_certificate {cert}; "
         "ssl_certificate_key store:file:{key}; }", "NGX727", r'^cannot load certificate key "'),
    Case("engine-key", "server { listen 127.0.0.1:8443 ssl; ssl_certificate {cert}; "
         "ssl_certificate_key engine:nginxgen-none:key; }",
         "NGX727", r'certificate keys is not supported$'),
    Case("backend-engine-key", "server { listen 127.0.0.1:8080; " + PASS_TLS.format(
         lines="proxy_ssl_certificate {cert}; proxy_ssl_certificate_key engine:nginxgen:k;")
         + " }", "NGX727", r'certificate keys is not supported$'),
    Case("empty-backend-certificate", "server { listen 127.0.0.1:8080; " + PASS_TLS.format(
         lines='proxy_ssl_certificate "";') + " }",
         "NGX010", r'^no "proxy_ssl_certificate_key" is defined for certificate ""$'),
    Case("empty-backend-certificate-and-key", "server { listen 127.0.0.1:8080; "
         + PASS_TLS.format(lines='proxy_ssl_certificate ""; proxy_ssl_certificate_key "";')
         + " }", "NGX010", r'^cannot load certificate "'),
    Case("backend-certificate-without-key", "proxy_ssl_certificate {cert}; "
         "server { listen 127.0.0.1:8080; " + PASS_TLS.format(lines="") + " }",
         "NGX010", r'^no "proxy_ssl_certificate_key" is defined for certificate "/', everywhere=True),
)  # fmt: skip


def text(case: Case, pair: CertPair) -> str:
    body = case.http.replace("{cert}", str(pair.cert)).replace("{key}", str(pair.key))
    return f"events {{}}\nhttp {{\n    access_log off;\n    {body}\n}}\n"


def verdicts(
    build: Build, case: Case, pair: CertPair, folder: Path
) -> tuple[str | None, list[str]]:
    """nginx's first error (None: accepted) and lint's errors of the case's rule."""
    conf = folder / "nginx.conf"
    conf.write_text(text(case, pair))
    refused = nginx_refuses(build, conf)
    findings = lint(load_path(str(conf)), build_target(build), Selection(select={case.code}))
    return (refused[0] if refused else None), [f.message for f in findings if f.severity == "error"]


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_lint_refuses_what_the_release_refuses(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    ecdsa_pair: CertPair,
    tmp_path: Path,
) -> None:
    build = require_build(provisioned, name)
    wrong = []
    for case in CASES:
        said, errors = verdicts(build, case, ecdsa_pair, tmp_path)
        expected = said is not None and re.search(case.says, said) is not None
        if expected != bool(errors) or not all(re.search(case.says, e) for e in errors):
            wrong.append(f"{case.name}: nginx {said!r}, lint {errors}")
    assert not wrong, f"nginx {build.nginx_version} with {build.tls_library}: {wrong}"


def test_each_case_meets_both_verdicts(
    provisioned: tuple[dict[str, Build], dict[str, str]], ecdsa_pair: CertPair, tmp_path: Path
) -> None:
    """The cases that show the facts: each refused by one build and accepted by another (or,
    where every release refuses it, by all)."""
    builds = [require_build(provisioned, n) for n in ALL_BUILD_NAMES]
    for case in CASES:
        refused = set()
        for build in builds:
            said, _ = verdicts(build, case, ecdsa_pair, tmp_path)
            if said is not None and re.search(case.says, said):
                refused.add(build.name)
        everywhere = refused == set(ALL_BUILD_NAMES)
        assert refused and everywhere == case.everywhere, (case.name, refused)
