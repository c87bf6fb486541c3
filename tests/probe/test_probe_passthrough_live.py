"""`probe --config` through a stream{} TLS passthrough (trial 8, YunoHost: `ssl_preread on;
proxy_pass 127.0.0.1:10444;` in front of the http server that ends TLS): the model follows the
passthrough to that server, where it said "no TLS listen on this port" in a garbled sentence.
With a config that differs from the running server, the mismatch names the server behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builds import REPO, Build
from tests.conftest import require_build
from tests.live import Server, free_port
from tests.pki import CertificateFactory


def _tree(build: Build, front: int, via_map: int, back: int, cert: Path, key: Path) -> str:
    return f"""worker_processes 1;
user root;
events {{}}
stream {{
    map $ssl_preread_server_name $backend {{ default 127.0.0.1:{back}; }}
    server {{ listen 127.0.0.1:{front}; ssl_preread on; proxy_pass 127.0.0.1:{back}; }}
    server {{ listen 127.0.0.1:{via_map}; ssl_preread on; proxy_pass $backend; }}
}}
http {{ {" ".join(build.in_prefix)}
    server {{
        listen 127.0.0.1:{back} ssl;
        server_name a.example;
        ssl_certificate {cert}; ssl_certificate_key {key};
        ssl_protocols TLSv1.2;
        return 200;
    }}
}}
"""


def _probe(build: Build, conf: Path, port: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--config", str(conf),
         "--sni", "a.example", "--format", "json", *build.target_flags],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.stdout, done.stderr
    results: list[dict[str, object]] = json.loads(done.stdout)
    return next(r for r in results if r["sni"] == "a.example")


@pytest.mark.parametrize("name", ["wheel"])
def test_the_model_follows_a_passthrough(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    front, via_map, back = free_port(), free_port(), free_port()
    conf = tmp_path / "nginx.conf"
    text = _tree(build, front, via_map, back, chain.fullchain, chain.key)
    conf.write_text(text)
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [front, via_map, back]):
        followed = _probe(build, conf, front)
        protocols = followed["protocols"]
        assert isinstance(protocols, dict) and protocols["TLSv1.2"] and not protocols["TLSv1.3"]
        assert followed["mismatches"] == [], followed["mismatches"]
        config = followed["config"]
        assert any(c["key"] == "protocols" and c["predicted"] for c in config), config  # type: ignore[union-attr,index]
        # a variable the model cannot follow: said as not compared, no mismatch
        mapped = _probe(build, conf, via_map)
        assert mapped["mismatches"] == [], mapped["mismatches"]
        assert any("not compared" in str(c["value"]) for c in mapped["config"]), mapped  # type: ignore[union-attr,index]
        # and in the text, where it was not said at all (trial 13: only the JSON had it)
        text_run = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{via_map}", "--config",
             str(conf), "--sni", "a.example", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
        assert "NOT COMPARED" in text_run.stdout and "a variable" in text_run.stdout, text_run
        # the file now says TLS 1.3 only; the running server still takes TLS 1.2 only
        conf.write_text(text.replace("ssl_protocols TLSv1.2;", "ssl_protocols TLSv1.3;"))
        stale = _probe(build, conf, front)
    keys = {m["key"] for m in stale["mismatches"]}  # type: ignore[union-attr,index]
    assert "protocols" in keys, stale["mismatches"]
    lines = {m["line"] for m in stale["mismatches"]}  # type: ignore[union-attr,index]
    behind = 1 + next(i for i, t in enumerate(text.splitlines()) if "ssl_protocols" in t)
    assert behind in lines, stale["mismatches"]  # the ssl_protocols line of the server behind


def test_a_proxy_protocol_listen_is_named_when_nothing_answers(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """`listen ... ssl proxy_protocol;` waits for a PROXY header the probe does not send: the
    one line (exit 2) names the config's listen (trial 8: it said only "no TLS answer")."""
    build = require_build(provisioned, "wheel")
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nuser root;\nevents {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"    server {{ listen 127.0.0.1:{port} ssl proxy_protocol; server_name a.example;\n"
        f"        ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key}; }}\n}}\n"
    )
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    with Server(build, conf, [port]):
        done = subprocess.run(
            [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--config",
             str(conf), "--sni", "a.example", "--timeout", "2", *build.target_flags],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = f"the config's listen at {conf}:5 takes a PROXY protocol header before the TLS hello"
    assert said in done.stderr, done.stderr


def test_a_mail_listener_is_said_not_compared(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A mail{} TLS listener (trial 9, BlueMind's IMAPS port): the model of http{} and stream{}
    does not describe nginx's mail proxy; it said "no TLS listen on this port" as a mismatch."""
    build = require_build(provisioned, "trixie")
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"{build.load_module('mail')}worker_processes 1;\nuser root;\nevents {{}}\n"
        f"mail {{ auth_http 127.0.0.1:9/auth;\n"
        f"    ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
        f"    server {{ listen 127.0.0.1:{port} ssl; protocol imap; }}\n}}\n"
    )
    (tmp_path / "logs").mkdir()
    with Server(build, conf, [port]):
        result = _probe(build, conf, port)
    assert result["mismatches"] == [], result["mismatches"]
    said = [str(c["value"]) for c in result["config"]]  # type: ignore[union-attr,index]
    assert any("a mail{} listener" in s for s in said), said
