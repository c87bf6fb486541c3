"""Each "silently ignored" or "nginx will refuse" rule, shown true on the real builds.

For every pitfall: a config that has it and the same config with the rule's fix. On each build
the pitfall is demonstrated live (a handshake that fails or succeeds against what the config
says, or `nginx -t` refusing), the fix is shown to work, and the linter, given that build's
target, flags the first config and not the second.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.knowledge import libraries
from tests.builds import ALL_BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.live import Server, free_port, nginx_check, prepare_prefix, s_client
from tests.pki import CertificateFactory

# Two TLS servers on one address:port: a.test is the default server, b.test a vhost.
CONF = """worker_processes auto;
events {{
    worker_connections 64;
}}
http {{
    ssl_certificate {cert};
    ssl_certificate_key {key};
{http}
    server {{
        listen 127.0.0.1:{port} ssl default_server;
        server_name a.test;
{a}
        return 200 "a\\n";
    }}
    server {{
        listen 127.0.0.1:{port} {listen_b};
        server_name b.test;
{b}
        return 200 "b\\n";
    }}
}}
"""


@dataclass(frozen=True)
class Variant:
    http: str = ""
    a: str = ""
    b: str = ""
    listen_b: str = "ssl"


@dataclass(frozen=True)
class Site:
    conf: Path
    port: int


def indent(lines: str, depth: int) -> str:
    return "\n".join(" " * depth + line.strip() for line in lines.strip().splitlines() if line)


def write_site(folder: Path, build: Build, variant: Variant) -> Site:
    chain = CertificateFactory(folder / "certs").leaf("a.test", sans=("b.test",))
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(
        CONF.format(
            cert=chain.fullchain,
            key=chain.key,
            port=port,
            http=indent(variant.http, 4),
            a=indent(variant.a, 8),
            b=indent(variant.b, 8),
            listen_b=variant.listen_b,
        )
    )
    prepare_prefix(conf, build)
    return Site(conf, port)


def lint_codes(conf: Path, build: Build) -> set[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nginxgen",
            "lint",
            "--format",
            "json",
            *build.target_flags,
            str(conf),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return {finding["code"] for finding in json.loads(done.stdout)["findings"]}


Probe = Callable[[Build, Site], bool]


@dataclass(frozen=True)
class Pitfall:
    """`probe` is True when the server behaves as the config says; `code` is the rule."""

    code: str
    bad: Variant
    fixed: Variant
    probe: Probe | None  # None: the pitfall is nginx refusing the config
    applies: Callable[[Build], bool]
    runs_on: Callable[[Build], bool] = lambda build: True  # builds where both configs make sense


def curve_probe(client: Build) -> Probe:
    """b.test asks for secp384r1: does a client without X25519 end with secp384r1?

    The client offers prime256v1 too: OpenSSL 3.0 refuses a P-256 ECDSA certificate to a TLS 1.3
    client whose groups lack P-256 ("no shared cipher"), which is not what is tested here.
    """

    def probe(build: Build, site: Site) -> bool:
        hello = s_client(client, site.port, "b.test", groups="secp384r1:prime256v1")
        return hello.ok and hello.group == "secp384r1"

    return probe


def resumes(client: Build) -> Probe:
    """Does a session of b.test resume?"""

    def probe(build: Build, site: Site) -> bool:
        session = site.conf.parent / "session.pem"
        # Tickets are off in these cases: without stateful TLS 1.3 tickets (BoringSSL, AWS-LC)
        # only a TLS 1.2 session ID can resume from the cache
        stateful = libraries.has(build.library, "tls13_stateful_resumption")
        version = None if stateful else "1.2"
        first = s_client(client, site.port, "b.test", version=version, sess_out=session)
        assert first.ok, first.output
        return s_client(client, site.port, "b.test", version=version, sess_in=session).reused

    return probe


def tls12_refused(client: Build) -> Probe:
    """b.test says TLS 1.3 only: is a TLS 1.2 client refused?"""
    return lambda build, site: not s_client(client, site.port, "b.test", version="1.2").ok


def mlkem_negotiated(client: Build) -> Probe:
    """A client that sends an X25519 key share first but supports ML-KEM: does it end with it?"""

    def probe(build: Build, site: Site) -> bool:
        hello = s_client(client, site.port, "b.test", groups="X25519:X25519MLKEM768")
        assert hello.ok, hello.output
        return hello.group == "X25519MLKEM768"

    return probe


def before(version: str) -> Callable[[Build], bool]:
    return lambda build: Version(build.nginx_version) < Version(version)


def lacks(capability: str) -> Callable[[Build], bool]:
    """The build's library lacks this knowledge-base capability."""
    return lambda build: not libraries.has(build.library, capability)


def always(build: Build) -> bool:
    return True


def pitfalls(client: Build) -> dict[str, Pitfall]:
    return {
        "curves-in-vhost": Pitfall(
            "NGX101",
            Variant(a="ssl_ecdh_curve X25519;", b="ssl_ecdh_curve secp384r1;"),
            Variant(http="ssl_ecdh_curve X25519:secp384r1;"),
            curve_probe(client),
            always,
        ),
        "session-cache-in-vhost": Pitfall(
            "NGX102",
            Variant(http="ssl_session_tickets off;", b="ssl_session_cache shared:B:1m;"),
            Variant(http="ssl_session_tickets off;\nssl_session_cache shared:B:1m;"),
            resumes(client),
            always,
        ),
        "protocols-in-vhost": Pitfall(
            "NGX103",
            Variant(http="ssl_protocols TLSv1.2 TLSv1.3;", b="ssl_protocols TLSv1.3;"),
            Variant(http="ssl_protocols TLSv1.3;"),
            tls12_refused(client),
            before("1.29.2"),
        ),
        "ssl-on": Pitfall(
            "NGX301",
            Variant(b="ssl on;", listen_b=""),
            Variant(),
            None,
            lambda build: not before("1.25.1")(build),
        ),
        "http2-on": Pitfall(
            "NGX301", Variant(b="http2 on;"), Variant(listen_b="ssl http2"), None, before("1.25.1")
        ),
        "mlkem-unavailable": Pitfall(
            "NGX201",
            Variant(http="ssl_ecdh_curve X25519MLKEM768:X25519;"),
            Variant(http="ssl_ecdh_curve X25519;"),
            None,
            lacks("mlkem_hybrid"),
        ),
        "group-tuple-unsupported": Pitfall(
            "NGX202",
            Variant(http="ssl_ecdh_curve X25519/prime256v1;"),
            Variant(http="ssl_ecdh_curve X25519:prime256v1;"),
            None,
            lacks("group_tuples"),
        ),
        "mlkem-not-enforced": Pitfall(
            "NGX203",
            Variant(http="ssl_ecdh_curve X25519MLKEM768:X25519;"),
            Variant(http="ssl_ecdh_curve X25519MLKEM768/X25519;"),
            mlkem_negotiated(client),
            always,
            runs_on=lambda build: not lacks("group_tuples")(build),
        ),
        # BoringSSL/AWS-LC: no tuples; the server's group order wins only with the preference on
        "mlkem-not-enforced-server-order": Pitfall(
            "NGX203",
            Variant(http="ssl_ecdh_curve X25519MLKEM768:X25519;"),
            Variant(http="ssl_ecdh_curve X25519MLKEM768:X25519;\nssl_prefer_server_ciphers on;"),
            mlkem_negotiated(client),
            always,
        ),
    }


CASES = [
    pytest.param(b, name, id=f"{b}-{name}")
    for b in ALL_BUILD_NAMES
    for name in (
        "curves-in-vhost",
        "session-cache-in-vhost",
        "protocols-in-vhost",
        "ssl-on",
        "http2-on",
        "mlkem-unavailable",
        "group-tuple-unsupported",
        "mlkem-not-enforced",
    )
] + [
    # the server-order shape of NGX203 is BoringSSL's and AWS-LC's (OpenSSL's is the tuple)
    pytest.param(b, "mlkem-not-enforced-server-order", id=f"{b}-mlkem-not-enforced-server-order")
    for b in SOURCE_BUILD_NAMES
]


@pytest.mark.parametrize(("build", "name"), CASES, indirect=["build"])
def test_pitfall_live(build: Build, name: str, client: Build, tmp_path: Path) -> None:
    pitfall = pitfalls(client)[name]
    if not pitfall.runs_on(build):
        # Not a skip of something that should run: neither config is valid on this build
        # (the refusal itself is its own case, mlkem-unavailable / group-tuple-unsupported).
        assert nginx_check(build, write_site(tmp_path, build, pitfall.fixed).conf).returncode != 0
        return
    bad = write_site(tmp_path / "bad", build, pitfall.bad)
    fixed = write_site(tmp_path / "fixed", build, pitfall.fixed)
    applies = pitfall.applies(build)

    # The linter speaks for exactly the builds where the pitfall is real.
    assert (pitfall.code in lint_codes(bad.conf, build)) == applies
    assert pitfall.code not in lint_codes(fixed.conf, build)

    fixed_check = nginx_check(build, fixed.conf)
    assert fixed_check.returncode == 0, fixed_check.stderr
    bad_check = nginx_check(build, bad.conf)
    if pitfall.probe is None:
        # The pitfall is a refusal: nginx -t fails exactly where the rule says.
        assert (bad_check.returncode != 0) == applies, bad_check.stderr
        return
    assert bad_check.returncode == 0, bad_check.stderr  # nginx -t does not catch it
    with Server(build, bad.conf, [bad.port]):
        honoured = pitfall.probe(build, bad)
    assert honoured == (not applies), f"{name} on {build.name}: the config was honoured={honoured}"
    with Server(build, fixed.conf, [fixed.port]):
        assert pitfall.probe(build, fixed), f"the fix for {name} does not work on {build.name}"
