"""nginxgen beside certbot on the stock trees (issue 26): real certbot (its nginx plugin, run
offline with our own certificates) installs sites, nginxgen adds one with `generate --into` and
mends the tree with `lint --fix` and `--unsafe-fixes`, certbot installs one more. Every step
passes `nginx -t`; certbot's options file keeps the bytes of a certbot release (so certbot keeps
updating it); the post-quantum line added by hand to a site that is not the default server ends
up in effect, shown by a live handshake."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from nginxgen.knowledge import managers, tls_groups
from tests.builds import Build, manifest
from tests.cli_process import nginxgen as run_nginxgen
from tests.conftest import require_build
from tests.helpers import missing_real_part
from tests.live import free_port, nginx_bin_script, s_client
from tests.pki import CertificateFactory
from tests.real_parts import reach
from tests.stock_trees import stock_tree

JOURNEYS = [("debian-12", "bookworm"), ("debian-13", "trixie"), ("nginx-org", "trixie")]
PQ_LINE = "    ssl_ecdh_curve X25519MLKEM768:X25519;  # PQ first\n"


def certbot_binary() -> str:
    reach("certbot")
    path = manifest()
    tools = json.loads(path.read_text()).get("tools", {}) if path.is_file() else {}
    if "certbot" not in tools:
        missing_real_part("certbot not provisioned (python scripts/provision.py installs it)")
    return str(tools["certbot"])


class Journey:
    def __init__(self, tree: str, build: Build, tmp: Path) -> None:
        self.build = build
        self.main = stock_tree(tree, build, tmp / "nginx")
        self.dir = self.main.parent
        self.http_port, self.https_port = free_port(), free_port()
        for path in self.dir.rglob("*"):  # port 80 of the machine is not ours: a free one
            if path.is_file() and not path.is_symlink():
                text = path.read_text(errors="surrogateescape")
                new = re.sub(r"(listen\s+(?:\[::\]:)?)80\b", rf"\g<1>{self.http_port}", text)
                if new != text:
                    path.write_text(new, errors="surrogateescape")
        self.ctl = nginx_bin_script(build, self.dir, tmp / "nginx-ctl")
        self.letsencrypt = tmp / "letsencrypt"
        self.certbot_state = tmp / "certbot"
        self.certs = CertificateFactory(tmp / "certs")

    @property
    def options(self) -> Path:
        return self.letsencrypt / "options-ssl-nginx.conf"

    def certbot_install(self, domain: str) -> None:
        """What a user does: a plain HTTP site for the name (certbot needs its server_name),
        then `certbot install --nginx` with the certificate they have."""
        (self.dir / "conf.d" / f"{domain}.conf").write_text(
            f"server {{\n    listen {self.http_port};\n    server_name {domain};\n"
            f"    root {self.dir}/www;\n}}\n"
        )
        chain = self.certs.leaf(domain)
        done = subprocess.run(
            [certbot_binary(), "install", "--nginx", "--non-interactive",
             "--cert-name", domain, "-d", domain, "--no-redirect",
             "--cert-path", str(chain.leaf), "--key-path", str(chain.key),
             "--fullchain-path", str(chain.fullchain),
             "--nginx-server-root", str(self.dir), "--nginx-ctl", str(self.ctl),
             "--https-port", str(self.https_port),
             "--config-dir", str(self.letsencrypt),
             "--work-dir", str(self.certbot_state / "work"),
             "--logs-dir", str(self.certbot_state / "logs")],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        self.assert_nginx_t(f"certbot install {domain}")

    def nginxgen(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_nginxgen(*args)

    def assert_nginx_t(self, after: str) -> None:
        done = self.build.nginx(
            "-p", f"{self.dir}/", "-c", str(self.main), "-e", str(self.dir / "error.log"), "-t"
        )
        assert done.returncode == 0, f"after {after}: {done.stderr}"

    def assert_options_released(self) -> None:
        data = self.options.read_bytes()
        manager = managers.manager_of(str(self.options), data.decode())
        assert manager is not None and manager.key == "certbot"
        assert managers.manager_of("/elsewhere.conf", data.decode()) is not None, (
            f"sha256 {hashlib.sha256(data).hexdigest()} is no certbot release: certbot stops "
            "updating the file"
        )

    def server_block_of(self, domain: str) -> Path:
        return self.dir / "conf.d" / f"{domain}.conf"

    def add_by_hand(self, domain: str, line: str) -> None:
        """A line of the user's own, in that site's server block, after its server_name."""
        path = self.server_block_of(domain)
        marker = f"server_name {domain};\n"
        assert marker in path.read_text()
        path.write_text(path.read_text().replace(marker, marker + line, 1))

    def restart(self) -> None:
        """nginx stopped and started again with the tree as it is (a reload lets old workers
        answer for a while: a probe must meet the tree it compares with)."""
        self.stop()
        started = subprocess.run(
            [str(self.ctl), "-c", str(self.main)], capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
        assert started.returncode == 0, started.stderr

    def assert_probe_agrees(self, names: list[str], after: str) -> None:
        """probe --config on the server just started with the tree: for every name, an unknown
        one and no SNI, each value the config model predicts is what the server does, and
        nothing is reported (the class of issue 25: false mismatches on certbot's sites)."""
        self.restart()
        sni = [arg for name in [*names, "unknown.invalid"] for arg in ("--sni", name)]
        done = self.nginxgen(
            "probe", f"127.0.0.1:{self.https_port}", *sni, "--config", str(self.main),
            "--format", "json", *self.build.target_flags,
        )  # fmt: skip
        assert done.returncode in (0, 1), f"after {after}: {done.stderr}"
        answers = json.loads(done.stdout)
        for answer in answers:
            assert answer["mismatches"] == [], (after, answer["sni"], answer["mismatches"])
            predicted = [said for said in answer["config"] if said["predicted"]]
            assert all(s["value"] == s["observed"] for s in predicted), (after, answer["config"])
        named = [a for a in answers if a["sni"] in names]
        assert len(named) == len(names) and all(len(a["config"]) >= 5 for a in named), after
        assert done.returncode == 0, f"after {after}: {done.stdout[-2000:]}"

    def stop(self) -> None:
        """certbot started nginx (a reload with no master starts one): stop it."""
        pid_file = self.dir / "run" / "nginx.pid"
        if pid_file.is_file() and pid_file.read_text().strip():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
            except ProcessLookupError:
                return
            for _ in range(100):
                if not pid_file.exists():
                    return
                time.sleep(0.05)


@pytest.mark.parametrize(("tree", "build_name"), JOURNEYS, ids=[f"{t}-{b}" for t, b in JOURNEYS])
def test_nginxgen_beside_certbot(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    client: Build,
    tmp_path: Path,
    tree: str,
    build_name: str,
) -> None:
    build = require_build(provisioned, build_name)
    journey = Journey(tree, build, tmp_path)
    try:
        journey.assert_nginx_t("copying the stock tree")
        journey.certbot_install("a.test")
        journey.certbot_install("b.test")
        journey.assert_options_released()
        journey.assert_probe_agrees(["a.test", "b.test"], "certbot's two sites")
        released = journey.options.read_bytes()
        pq = tls_groups.find_group("X25519MLKEM768")
        has_pq = pq is not None and pq.available(build.library)
        if has_pq:  # the user's own post-quantum wish, on the site that is not the default
            journey.add_by_hand("b.test", PQ_LINE)
            journey.assert_nginx_t("the hand-made PQ line")

        chain = journey.certs.leaf("c.test")
        port = str(journey.https_port)
        into = journey.nginxgen(
            "generate", "--preset", "intermediate", *build.target_flags,
            "--domain", "c.test", "--cert", str(chain.fullchain), "--key", str(chain.key),
            "--listen", port, "--listen", f"[::]:{port}", "--http-listen", "none",
            "--into", str(journey.dir),
        )  # fmt: skip
        assert into.returncode == 0, into.stdout + into.stderr
        # the default server's tickets are decided in certbot's file: where ours differ (nginx
        # >= 1.23.2 rotates ticket keys, so the preset turns them on), certbot's line is kept
        # and the report says so
        ours = (journey.dir / "nginxgen-tls.conf").read_text()
        kept = f"{journey.options}:9: ssl_session_tickets off kept"
        assert (kept in into.stdout) == ("ssl_session_tickets on;" in ours), into.stdout
        journey.assert_nginx_t("generate --into")
        for flag in ("--fix", "--unsafe-fixes"):
            fixed = journey.nginxgen("lint", *build.target_flags, flag, str(journey.main))
            assert fixed.returncode in (0, 1), fixed.stdout + fixed.stderr
            assert f"fixed {journey.options}" not in fixed.stderr
            journey.assert_nginx_t(f"lint {flag}")
            assert journey.options.read_bytes() == released
        if has_pq:
            b_block = journey.server_block_of("b.test").read_text()
            assert "X25519MLKEM768:X25519;  # PQ first" not in b_block  # moved where it counts

        journey.certbot_install("d.test")
        assert journey.options.read_bytes() == released
        journey.assert_options_released()
        journey.assert_probe_agrees(["a.test", "b.test", "c.test", "d.test"], "the journey")

        if has_pq:  # certbot's reload put the fixed tree in effect
            hello = s_client(client, journey.https_port, "b.test", groups="X25519MLKEM768:X25519")
            assert hello.ok and hello.group == "X25519MLKEM768", hello.output[-1500:]
    finally:
        journey.stop()
