"""`nginxgen probe` on the issue's scenarios (issue 16), on the three packaged builds: every
verdict equals what OpenSSL 3.5's `openssl s_client` observes for the same handshake, and
`--config` reports exactly the mismatches the linter predicts (one per NGX101/NGX102/NGX103
finding on the probed name's server, nothing else).

Each scenario is a default server (a.test) and a vhost (b.test) on one loopback port."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from nginxgen.knowledge import tls_groups
from nginxgen.probe.hello import TLS13_SUITES
from tests.builds import Build
from tests.cli_process import nginxgen
from tests.fix.test_lint_fix_live import VHOST
from tests.live import Server, free_port, nginx_check, parse_s_client, prepare_prefix
from tests.pki import CertificateFactory

MAIN = """worker_processes auto;
events {{}}
http {{
    include conf.d/*.conf;
}}
"""
DEFAULT = """server {{
    listen 127.0.0.1:{port} ssl default_server;
    server_name a.test;
    ssl_certificate {cert};
    ssl_certificate_key {key};
{lines}
    return 421;
}}
"""
VERSIONS = {"TLSv1": "-tls1", "TLSv1.1": "-tls1_1", "TLSv1.2": "-tls1_2", "TLSv1.3": "-tls1_3"}
# the probe's spelling -> OpenSSL 3.5's
CLIENT_GROUP = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}
LEGACY = ("TLSv1", "TLSv1.1")
# the setting each rule's finding is about (NGX102 here: only ssl_session_cache lines)
RULES = {"NGX101": "ssl_ecdh_curve", "NGX102": "ssl_session_cache", "NGX103": "ssl_protocols"}


# OpenSSL's default TLS 1.3 suites, written out
ALL3 = "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256"


@dataclass(frozen=True)
class Scenario:
    name: str
    builds: tuple[str, ...]
    default: tuple[str, ...]
    vhost: tuple[str, ...] = ()


SCENARIOS = [
    # the seed's pitfall: the vhost's groups are ignored, the default server's apply
    Scenario("vhost-groups-ignored", ("bookworm", "trixie", "wheel"),
             ("ssl_ecdh_curve X25519:prime256v1;",), ("ssl_ecdh_curve secp384r1;",)),
    Scenario("seed-mlkem-in-vhost", ("trixie",),
             ("ssl_ecdh_curve X25519:prime256v1;",), ("ssl_ecdh_curve X25519MLKEM768:X25519;",)),
    # a colon list offers ML-KEM, the OpenSSL 3.5 tuple enforces it
    Scenario("colon-list", ("trixie",), ("ssl_ecdh_curve X25519MLKEM768:X25519;",)),
    Scenario("tuple", ("trixie",), ("ssl_ecdh_curve X25519MLKEM768/X25519;",)),
    # per-vhost ssl_protocols: ignored before nginx 1.29.2, honoured from it
    Scenario("vhost-protocols", ("trixie", "wheel"),
             ("ssl_protocols TLSv1.2 TLSv1.3;",), ("ssl_protocols TLSv1.3;",)),
    Scenario("tls13-only", ("bookworm", "trixie", "wheel"), ("ssl_protocols TLSv1.3;",)),
    # per-vhost TLS 1.3 suites: ignored before nginx 1.29.2, honoured from it (OpenSSL)
    Scenario("vhost-ciphersuites", ("trixie", "wheel"), (f"ssl_conf_command Ciphersuites {ALL3};",),
             ("ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256;",)),
    # the session cache is the default server's too: no session ID resumption for b.test
    Scenario("vhost-session-cache", ("bookworm", "trixie", "wheel"),
             ("ssl_session_tickets off;",), ("ssl_session_cache shared:B:1m;",)),
    # TLS 1.3 on (1.22.1's default is TLS 1.0-1.2), yet no ML-KEM in OpenSSL 3.0 or 3.3
    Scenario("no-mlkem", ("bookworm", "wheel"), ("ssl_protocols TLSv1.2 TLSv1.3;",)),
    Scenario("reject-handshake", ("bookworm", "trixie", "wheel"), ("ssl_reject_handshake on;",)),
    # the library's own groups, two ML-KEM hybrids among them (OpenSSL 4.0, AWS-LC): the probe
    # offers X25519MLKEM768 first, as browsers do (trial 23: it offered SecP256r1MLKEM768 first,
    # and reported that group where a browser-like client gets X25519MLKEM768)
    Scenario("library-groups", ("openssl40", "awslc"), ("ssl_protocols TLSv1.2 TLSv1.3;",)),
]  # fmt: skip
CASES = [(b, s) for s in SCENARIOS for b in s.builds]


def write_tree(scenario: Scenario, build: Build, folder: Path) -> tuple[Path, int]:
    chain = CertificateFactory(folder / "certs").leaf("a.test", sans=("b.test",))
    port = free_port()

    def block(template: str, lines: tuple[str, ...]) -> str:
        body = "".join(f"    {line}\n" for line in lines)
        return template.format(port=port, cert=chain.fullchain, key=chain.key, lines=body)

    conf = folder / "nginx.conf"
    conf.write_text(MAIN.format())
    prepare_prefix(conf, build)
    (folder / "conf.d").mkdir()
    (folder / "conf.d" / "a.conf").write_text(block(DEFAULT, scenario.default))
    (folder / "conf.d" / "b.conf").write_text(block(VHOST, scenario.vhost))
    return conf, port


def observe(client: Build, port: int, sni: str | None, *args: str) -> tuple[bool, str | None]:
    """One s_client handshake: (completed, the group it reports)."""
    argv = ["s_client", "-connect", f"127.0.0.1:{port}", *args]
    argv += ["-servername", sni] if sni else ["-noservername"]
    done = client.openssl(*argv, stdin="")
    seen = parse_s_client(done.stdout + done.stderr)
    # s_client names a finite-field group by its size: "Peer Temp Key: DH, 2048 bits"
    dh = re.search(r"Temp Key: DH, (\d+) bits", done.stdout)
    return seen.ok, f"ffdhe{dh.group(1)}" if seen.ok and dh else seen.group


def spell(group: str) -> str:
    return CLIENT_GROUP.get(group, group)


def same_group(group: str, ok: bool, got: str | None) -> bool:
    """Whether a handshake completed on this group, however s_client spells it."""
    ours, theirs = tls_groups.find_group(group), tls_groups.find_group(got or "")
    return ok and ours is not None and theirs is not None and ours.id == theirs.id


def client_view(
    client: Build, port: int, sni: str | None, groups: list[str], folder: Path
) -> dict[str, Any]:
    """What OpenSSL 3.5's s_client sees for the handshakes the probe makes."""
    legacy = ["-cipher", "DEFAULT@SECLEVEL=0"]  # let the client offer TLS 1.0/1.1 at all
    protocols = {
        version: observe(client, port, sni, flag, *(legacy if version in LEGACY else []))[0]
        for version, flag in VERSIONS.items()
    }
    view: dict[str, Any] = {"protocols": protocols}
    if protocols["TLSv1.2"]:  # resumption by session ID alone: the client asks for no ticket
        saved = folder / f"session-{sni}.pem"
        observe(client, port, sni, "-tls1_2", "-no_ticket", "-sess_out", str(saved))
        again = client.openssl(
            *("s_client", "-connect", f"127.0.0.1:{port}", "-tls1_2", "-no_ticket"),
            *("-sess_in", str(saved)),
            *(["-servername", sni] if sni else ["-noservername"]),
            stdin="",
        )
        view["session id"] = parse_s_client(again.stdout + again.stderr).reused
    if not protocols["TLSv1.3"]:
        if protocols["TLSv1.2"]:  # the groups as ECDHE negotiates them in TLS 1.2
            view["groups"] = {}
            for group in groups:  # offered first, the certificate's possible curves after it
                offered = [spell(g) for g in [group, "secp256r1", "secp384r1", "secp521r1"]]
                listed = ":".join(dict.fromkeys(offered))
                seen = observe(client, port, sni, "-tls1_2", "-cipher", "ECDHE", "-groups", listed)
                view["groups"][group] = same_group(group, *seen)
        return view
    view["tls13 suites"] = {  # each offered alone
        suite
        for suite in TLS13_SUITES.values()
        if observe(client, port, sni, "-tls1_3", "-ciphersuites", suite)[0]
    }
    # the ML-KEM hybrids listed first, a key share for X25519 only: the probe's "plain" client
    hybrids = "X25519MLKEM768:SecP256r1MLKEM768:SecP384r1MLKEM1024"
    _, view["group"] = observe(
        client, port, sni, "-tls1_3", "-groups", f"{hybrids}:*X25519:P-256:P-384"
    )
    view["groups"] = {
        group: same_group(group, *observe(client, port, sni, "-tls1_3", "-groups", spell(group)))
        for group in groups
    }
    # a browser-like client: key shares for X25519MLKEM768 and X25519
    both_ok, both = observe(
        client, port, sni, "-tls1_3", "-groups", "*X25519MLKEM768:*X25519:P-256:P-384"
    )
    view["group_both_shares"] = both if both_ok else None
    only_ok, only = observe(client, port, sni, "-tls1_3", "-groups", "X25519MLKEM768")
    view["group_mlkem_only"] = only if only_ok else None
    hybrid_alone = any(
        observe(client, port, sni, "-tls1_3", "-groups", hybrid)[0] for hybrid in hybrids.split(":")
    )
    pq = (found := tls_groups.find_group(view["group"] or "")) is not None and found.pq
    view["pq"] = (
        "enforced"
        if pq
        else "preferred"
        if view["group_both_shares"] == "X25519MLKEM768"
        else "supported"
        if hybrid_alone
        else "none"
    )
    return view


def lint_predictions(build: Build, conf: Path, vhost_file: Path) -> set[tuple[str, str, int]]:
    done = nginxgen("lint", "--format", "json", *build.target_flags, str(conf), timeout=60)
    assert done.returncode in (0, 1), done.stderr
    lines = vhost_file.read_text().splitlines()
    return {
        (setting(f["code"], lines[f["line"] - 1]), f["file"], f["line"])
        for f in json.loads(done.stdout)["findings"]
        if f["code"] in RULES and f["file"] == str(vhost_file)
    }


def setting(code: str, line: str) -> str:
    """The setting a finding is about: NGX103 covers TLS 1.3 suites as well as protocols."""
    if code == "NGX103" and line.split()[:2] == ["ssl_conf_command", "Ciphersuites"]:
        return "ssl_conf_command Ciphersuites"
    return RULES[code]


@pytest.mark.parametrize(
    ("build", "scenario"), CASES, indirect=["build"], ids=[f"{b}-{s.name}" for b, s in CASES]
)
def test_probe_equals_s_client_and_config_mismatches_equal_lint(
    build: Build, scenario: Scenario, client: Build, tmp_path: Path
) -> None:
    conf, port = write_tree(scenario, build, tmp_path)
    checked = nginx_check(build, conf)
    assert checked.returncode == 0, checked.stderr
    argv = [
        *("probe", f"127.0.0.1:{port}", "--sni", "b.test"),
        *("--sni", "unknown.test", "--config", str(conf), *build.target_flags),
        *("--format", "json"),
    ]
    with Server(build, conf, [port]):
        done = nginxgen(*argv, timeout=120)
        results = json.loads(done.stdout) if done.stdout else []
        views = {
            r["sni"]: client_view(client, port, r["sni"], list(r["groups"] or {}), tmp_path)
            for r in results
        }
    reject = scenario.name == "reject-handshake"
    assert [r["sni"] for r in results] == ["b.test", "unknown.test", None], done.stderr
    for result in results:
        view = views[result["sni"]]
        assert result["protocols"] == view["protocols"], (result["sni"], result, view)
        assert result["groups"] == view.get("groups"), result["sni"]
        if "session id" in view:
            assert result["resumption"]["session_id_resumed"] == view["session id"]
        if not view["protocols"]["TLSv1.3"]:
            assert result["tls13"] is None and result["pq"] == "none"
            continue
        for key in ("group_both_shares", "group_mlkem_only"):
            assert result["tls13"][key] == view[key], (result["sni"], key)
        # s_client offers TLS_AES_256_GCM_SHA384 first: it fails after a retry when the
        # probe's own hello, or that suite alone, does
        plain_failed = any(
            f.startswith(("X25519 share, every suite", "TLS_AES_256_GCM_SHA384 alone"))
            for f in result["tls13"]["retry_failures"]
        )
        if plain_failed:
            assert view["group"] is None, result
        else:
            assert result["tls13"]["group"] == view["group"], result["sni"]
            assert result["pq"] == view["pq"], result["sni"]
        assert set(result["tls13"]["accepted"]) == view["tls13 suites"], result["sni"]
    # unknown names and no name get the default server: refused where it rejects handshakes
    for result in results[1:]:
        assert any(result["protocols"].values()) != reject
    predicted = lint_predictions(build, conf, tmp_path / "conf.d" / "b.conf")
    found = {(m["setting"], m["file"], m["line"]) for m in results[0]["mismatches"]}
    assert found == predicted, results[0]["mismatches"]
    assert [r["mismatches"] for r in results[1:]] == [[], []]
    problems = any(r["problems"] for r in results)
    assert done.returncode == (1 if predicted or problems else 0), done.stdout + done.stderr
    if scenario.name == "vhost-groups-ignored":  # the default server's groups, not the vhost's
        assert results[0]["groups"]["X25519"] and not results[0]["groups"]["secp384r1"]
    expected_groups = {
        "seed-mlkem-in-vhost": "X25519",
        "colon-list": "X25519",
        "tuple": "X25519MLKEM768",
    }
    if scenario.name in expected_groups:  # the scenario is what it claims
        assert results[0]["tls13"]["group"] == expected_groups[scenario.name]
    if scenario.name == "vhost-protocols":
        assert results[0]["protocols"]["TLSv1.2"] == (build.name == "trixie")
    if scenario.name == "vhost-session-cache":  # the scenario is what it claims
        assert results[0]["resumption"]["session_id_resumed"] is False
        assert predicted == {("ssl_session_cache", str(tmp_path / "conf.d" / "b.conf"), 6)}
    if scenario.name in ("vhost-groups-ignored", "seed-mlkem-in-vhost"):
        assert {setting for setting, _, _ in predicted} == {"ssl_ecdh_curve"}
    if scenario.name == "colon-list":  # offered, chosen by a browser-like client, not enforced
        assert results[0]["pq"] == "preferred"
    if scenario.name == "tuple":
        assert results[0]["pq"] == "enforced"
    if scenario.name == "vhost-ciphersuites":  # the scenario is what it claims
        honoured = {"TLS_AES_128_GCM_SHA256"} if build.name == "wheel" else set(ALL3.split(":"))
        assert set(results[0]["tls13"]["accepted"]) == honoured
        # nginx 1.26.3 answers a retried hello with the vhost's suites: X25519-only clients fail
        assert bool(results[0]["problems"]) == (build.name == "trixie"), results[0]
        assert {s for s, _, _ in predicted} == (
            set() if build.name == "wheel" else {"ssl_conf_command Ciphersuites"}
        )
    if scenario.name == "no-mlkem":
        assert results[0]["pq"] == "none" and not results[0]["groups"]["X25519MLKEM768"]
