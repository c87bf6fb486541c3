"""Every preset on every real build: nginx -t, then live handshakes on loopback."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from nginxgen.generate.presets import list_presets, load_preset
from nginxgen.knowledge import libraries, tls_groups
from tests.builds import ALL_BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.helpers import needs_mlkem
from tests.live import Handshake, Server, free_port, nginx_check, prepare_prefix, s_client
from tests.pki import CertificateFactory

PRESETS = [p.name for p in list_presets()]
NAME = "example.com"


@dataclass(frozen=True)
class Served:
    """A generated config of one preset, ready to run on one build."""

    conf: Path
    port: int
    http_port: int
    protocols: list[str]
    http2: bool
    root_ca: Path


def generate(preset: str, build: Build, folder: Path) -> Served | subprocess.CompletedProcess[str]:
    """Run `nginxgen generate` for the build's target; the refusal when it refuses."""
    certs = folder / "certs"
    ecdsa = CertificateFactory(certs / "ecdsa", "ecdsa").leaf(NAME, "ecdsa", sans=(f"www.{NAME}",))
    rsa = CertificateFactory(certs / "rsa", "rsa").leaf(NAME, "rsa", sans=(f"www.{NAME}",))
    roots = certs / "roots.pem"  # the server may pick either pair (AWS-LC picks RSA)
    roots.write_bytes(ecdsa.root.read_bytes() + rsa.root.read_bytes())
    www = folder / "www"
    www.mkdir()
    (www / "index.html").write_text("<p>hello</p>\n")
    port, http_port = free_port(), free_port()
    site = {
        "domains": [NAME, f"www.{NAME}"],
        "listen": [f"127.0.0.1:{port}"],
        "http_listen": [f"127.0.0.1:{http_port}"],
        "certificates": [
            {"cert": str(ecdsa.fullchain), "key": str(ecdsa.key)},
            {"cert": str(rsa.fullchain), "key": str(rsa.key)},
        ][: 2 if libraries.has(build.library, "multiple_certificates") else 1],
        "root": str(www),
    }
    config = folder / "site.yaml"
    # the TLS access log inside the test folder (the default is the system's /var/log/nginx)
    log = str(folder / "tls-access.log")
    # a preset's client certificates (cloudflare-origin-pull's Authenticated Origin Pulls) would
    # answer these requests 400: test_generate_backends_live checks them with a client's own
    config.write_text(
        yaml.safe_dump({"access_log": log, "sites": [site], "site": {"client_certificates": None}})
    )
    out = folder / "conf"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nginxgen",
            "generate",
            "--preset",
            preset,
            "--config",
            str(config),
            *build.target_flags,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        return done
    data = load_preset(preset)
    conf = out / "nginx.conf"
    prepare_prefix(conf, build)
    return Served(
        conf=conf,
        port=port,
        http_port=http_port,
        protocols=list(data["policy"]["protocols"]),
        http2=bool(data.get("site", {}).get("http2", True)),
        root_ca=roots,
    )


def promised_groups(tls_conf: Path) -> set[str]:
    """The knowledge ids of the groups the generated ssl_ecdh_curve line lists."""
    from nginxgen.lint.rules._groups import parse_groups

    found = re.search(r"^ssl_ecdh_curve (\S+);", tls_conf.read_text(), re.M)
    assert found, "the generated tls.conf names its groups"
    groups = [tls_groups.find_group(e.name) for e in parse_groups(found.group(1))]
    return {g.id for g in groups if g is not None}


CASES = [pytest.param(b, p, id=f"{b}-{p}") for b in ALL_BUILD_NAMES for p in PRESETS]


@pytest.mark.parametrize(("build", "preset"), CASES, indirect=["build"])
def test_preset_live(build: Build, preset: str, client: Build, tmp_path: Path) -> None:
    served = generate(preset, build, tmp_path)
    if isinstance(served, subprocess.CompletedProcess):
        # Only where the library lacks what the preset needs: ML-KEM (OpenSSL < 3.5), or the
        # choice of TLS 1.3 suites (no ssl_conf_command outside OpenSSL).
        lacks_mlkem = needs_mlkem(preset) and not libraries.has(build.library, "mlkem_hybrid")
        lacks_suites = bool(load_preset(preset)["policy"].get("ciphersuites")) and not (
            libraries.has(build.library, "ssl_conf_command")
        )
        lacks_legacy = bool(
            {"TLSv1", "TLSv1.1"} & set(load_preset(preset)["policy"]["protocols"])
        ) and not libraries.has(build.library, "legacy_protocols")
        assert lacks_mlkem or lacks_suites or lacks_legacy, served.stderr
        if not lacks_mlkem:
            assert served.returncode == 2, served.stderr
            assert "policy.ciphersuites" in served.stderr or "policy.protocols" in served.stderr
            return
        assert served.returncode == 2 and "X25519MLKEM768" in served.stderr
        return
    checked = nginx_check(build, served.conf)
    assert checked.returncode == 0, checked.stderr
    assert "[warn]" not in checked.stderr, checked.stderr

    with Server(build, served.conf, [served.port, served.http_port]) as server:

        def hello(**kw: object) -> Handshake:
            return s_client(client, served.port, NAME, ca=served.root_ca, **kw)  # type: ignore[arg-type]

        tls13 = hello(version="1.3")
        assert tls13.ok and tls13.protocol == "TLSv1.3", tls13.output
        assert "Verify return code: 0 (ok)" in tls13.output  # full chain served
        promised = promised_groups(served.conf.parent / "tls.conf")
        negotiated = tls_groups.find_group(tls13.group or "")
        assert negotiated is not None and negotiated.id in promised, (tls13.group, promised)

        tls12 = hello(version="1.2")
        assert tls12.ok == ("TLSv1.2" in served.protocols), tls12.output
        if tls12.ok:
            assert tls12.protocol == "TLSv1.2"

        alpn = hello(alpn="h2,http/1.1", path=None)
        assert alpn.alpn == ("h2" if served.http2 else "http/1.1"), alpn.output

        assert tls13.status == 200 and tls13.header("Strict-Transport-Security"), tls13.response
        missing = hello(path="/no-such-page")
        assert missing.status == 404, missing.response
        assert missing.header("Strict-Transport-Security"), missing.response

        session = tmp_path / "session.pem"
        first = hello(sess_out=session)
        assert first.ok and not first.reused
        # Two workers: a bounded series of reconnects lands on both, all must resume.
        again = [hello(sess_in=session) for _ in range(4)]
        assert all(h.reused for h in again), [h.output[-600:] for h in again if not h.reused]

        unknown = s_client(client, served.port, "unknown.invalid", path=None)
        assert not unknown.ok, unknown.output
        assert "unrecognized name" in unknown.output or unknown.alert, unknown.output
        assert server.process is not None and server.process.poll() is None


@pytest.mark.parametrize("build", ["trixie", *SOURCE_BUILD_NAMES], indirect=True)
@pytest.mark.parametrize("preset", ["pq", "cloudflare-origin"])
def test_post_quantum_presets_enforce_mlkem(
    build: Build, preset: str, client: Build, tmp_path: Path
) -> None:
    """OpenSSL 3.5 (a tuple), AWS-LC and BoringSSL (the server's group order, with
    ssl_prefer_server_ciphers on): ML-KEM wins even from an X25519 key share."""
    served = generate(preset, build, tmp_path)
    assert isinstance(served, Served)
    with Server(build, served.conf, [served.port]):
        # Key share for X25519 first, ML-KEM only listed: the server asks for ML-KEM (HRR).
        hybrid = s_client(client, served.port, NAME, groups="X25519:X25519MLKEM768")
        assert hybrid.ok and hybrid.group == "X25519MLKEM768", hybrid.output
        classic = s_client(client, served.port, NAME, groups="X25519")
        assert classic.ok and classic.group == "X25519", classic.output
