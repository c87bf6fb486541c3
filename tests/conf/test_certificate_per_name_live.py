"""A certificate path with `$ssl_server_name` (issue 44), on real nginx: nginx reads it per
handshake, so a client that sends no name makes nginx open `certs/.crt`, which is not there,
and the handshake fails (internal_error; "cannot load certificate" in the error log). The
model predicted TLS 1.2 and 1.3 for that client; it now reads the path for each name
(conf/files.for_name, missing_for_name): the handshake is refused where the name's file is
missing from the folder that holds the others, and a name's own file gives its certificate.

The oracle is `openssl s_client` (with -noservername for no name); `nginxgen probe --config`
(with --stream for the stream{} server) must then report no difference from the config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes

from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import NameModel
from nginxgen.conf.stream import Stream
from nginxgen.knowledge.target import resolve
from tests.builds import BUILD_NAMES, REPO, Build
from tests.conf.test_stream_live import STREAM_BUILDS, _main
from tests.live import Handshake, Server, free_port, parse_s_client, prepare_prefix
from tests.pki import CertificateFactory

NAMES = ("a.example", "b.example")
# relative: nginx reads them under its prefix, as the model does
FILES = (
    "ssl_certificate certs/$ssl_server_name.crt; ssl_certificate_key certs/$ssl_server_name.key;"
)


def _certificates(tmp_path: Path) -> dict[str, str]:
    """A certificate of its own for each name, under certs/ (name -> its sha256)."""
    pki = CertificateFactory(tmp_path / "pki")
    (tmp_path / "certs").mkdir()
    found = {}
    for name in NAMES:
        chain = pki.leaf(name, sans=(name,))
        (tmp_path / "certs" / f"{name}.crt").write_bytes(chain.fullchain.read_bytes())
        (tmp_path / "certs" / f"{name}.key").write_bytes(chain.key.read_bytes())
        leaf = x509.load_pem_x509_certificate(chain.leaf.read_bytes())
        found[name] = leaf.fingerprint(hashes.SHA256()).hex()
    return found


def _handshake(client: Build, port: int, sni: str | None) -> Handshake:
    name = ["-servername", sni] if sni else ["-noservername"]
    done = client.openssl("s_client", "-connect", f"127.0.0.1:{port}", *name)
    return parse_s_client(done.stdout + done.stderr)


def _probe(build: Build, conf: Path, *args: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "probe", *args, "--config", str(conf),
         "--format", "json", *build.target_flags],
        capture_output=True, text=True, timeout=300, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    results: list[dict[str, object]] = json.loads(done.stdout)
    return results


def _check(
    results: list[dict[str, object]], seen: dict[str | None, Handshake], leaves: dict[str, str]
) -> None:
    """The oracle, then the probe beside it: no name, no handshake; each name its own leaf."""
    assert not seen[None].ok and seen[None].alert == "internal error", seen[None].output[-800:]
    for name in NAMES:
        assert seen[name].ok and f"subject=CN={name}" in seen[name].output
    by_name = {r["sni"]: r for r in results}
    assert set(by_name) >= {None, *NAMES}
    for sni, result in by_name.items():
        assert result["mismatches"] == [], (sni, result["mismatches"])
    assert not any(by_name[None]["protocols"].values())  # type: ignore[union-attr]
    said = {s["key"]: s for s in by_name[None]["config"]}  # type: ignore[union-attr]
    assert (said["refused"]["value"], said["refused"]["setting"]) == (True, "ssl_certificate")
    for name in NAMES:
        assert by_name[name]["certificate"]["sha256"] == leaves[name]  # type: ignore[index]


def _served(build: Build, client: Build, tmp_path: Path, text: str, *probe: str) -> Path:
    """The tree `text` (its listen port `{port}`) on real nginx: each name's handshake by
    s_client and the probe's, checked (_check); the tree's main file."""
    leaves = _certificates(tmp_path)
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(text.replace("{port}", str(port)))
    if "http {" in text:
        prepare_prefix(conf, build, workers=1)
    (tmp_path / "logs").mkdir(exist_ok=True)
    with Server(build, conf, [port]):
        seen = {sni: _handshake(client, port, sni) for sni in (None, *NAMES)}
        target = probe[0].replace("{port}", str(port))
        results = _probe(build, conf, target, *probe[1:])
    _check(results, seen, leaves)
    return conf


def _model(build: Build, conf: Path) -> Effective:
    return Effective(
        build_config(load_path(str(conf))), resolve(build.nginx_version, build.tls_library)
    )


@pytest.mark.live
@pytest.mark.parametrize("build", STREAM_BUILDS, indirect=True)
def test_stream_without_a_name_has_no_certificate(
    build: Build, client: Build, tmp_path: Path
) -> None:
    text = _main(
        "stream {\n    server {\n        listen 127.0.0.1:{port} ssl;\n"
        f"        server_name {' '.join(NAMES)};\n        {FILES}\n"
        '        return "x\\n";\n    }\n}\n'
    )
    conf = _served(build, client, tmp_path, text, "127.0.0.1", "--stream")
    stream = Stream(_model(build, conf))
    socket = next(iter(stream.config.sockets))
    assert stream.tls(socket, None).refused().value is True
    assert stream.tls(socket, "a.example").refused().value is False


@pytest.mark.live
@pytest.mark.parametrize("build", BUILD_NAMES, indirect=True)
def test_http_without_a_name_has_no_certificate(
    build: Build, client: Build, tmp_path: Path
) -> None:
    text = (
        "worker_processes auto;\nevents {}\nhttp {\n"
        f"server {{ listen 127.0.0.1:{{port}} ssl; server_name {' '.join(NAMES)};\n"
        f"    {FILES}\n    return 200; }}\n}}\n"
    )
    names = (f"--sni={n}" for n in NAMES)
    conf = _served(build, client, tmp_path, text, "127.0.0.1:{port}", *names)
    effective = _model(build, conf)
    model = NameModel(effective, next(iter(effective.config.sockets)), None)
    assert model.refused().line is not None and model.refused().line.directive == "ssl_certificate"


def test_a_folder_that_is_not_here_tells_nothing(tmp_path: Path) -> None:
    """The files may be on the server only (a copy of the tree without them): where the folder
    holds none of the line's files, the handshake is not predicted refused."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\nserver { listen 443 ssl; server_name a.example;\n"
        f"    {FILES} }}\n}}\n"
    )
    target = resolve("1.26.3", "openssl-3.5.9")
    model = NameModel(Effective(build_config(load_path(str(conf))), target), "*:443", None)
    assert model.refused().value is False
