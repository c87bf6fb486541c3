"""Every preset on every example target; examples/ up to date; Mozilla parity. (`nginx -t` and
handshakes of every preset on every real build: test_live_presets.)"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import crossplane
import pytest

from nginxgen.generate.compose import compose
from nginxgen.generate.examples import EXAMPLE_TARGETS
from nginxgen.generate.examples import render_examples as _render_examples
from nginxgen.generate.plan import make_plan
from nginxgen.generate.presets import list_presets, load_preset
from nginxgen.generate.render import TLS_FILE, render
from nginxgen.knowledge.target import resolve
from tests.helpers import needs_mlkem
from tests.paths import GUIDELINES, REPO

ROOT = REPO
PRESETS = [p.name for p in list_presets()]
render_examples = cache(_render_examples)


def test_the_presets_the_issue_asks_for_exist() -> None:
    assert set(PRESETS) >= {
        "modern",
        "intermediate",
        "compat",
        "pq",
        "cloudflare-origin",
        "mobile-first",
        "performance",
        "bsi-tr-02102-2",
        "nist-sp800-52r2",
    }


@pytest.mark.parametrize("key", sorted(f"{t}/{p}" for t in EXAMPLE_TARGETS for p in PRESETS))
def test_preset_renders_or_is_refused_as_expected(key: str) -> None:
    folder, preset = key.split("/")
    result = render_examples()[key]
    if needs_mlkem(preset) and "openssl-3.0" in folder:
        assert isinstance(result, str) and "X25519MLKEM768" in result
        return
    assert isinstance(result, dict), result
    tls = result[TLS_FILE]
    assert "ssl_ecdh_curve" in tls and "ssl_session_cache shared:" in tls
    if needs_mlkem(preset):
        assert "X25519MLKEM768/X25519" in tls  # enforced with an OpenSSL 3.5 tuple


def test_examples_are_up_to_date() -> None:
    fresh = render_examples()
    for key, files in fresh.items():
        folder = ROOT / "examples" / key
        if isinstance(files, str):
            assert (folder / "REFUSED.txt").read_text() == files + "\n", (
                f"{key} is stale: python scripts/render_examples.py"
            )
            continue
        on_disk = {p.name: p.read_text() for p in folder.iterdir()}
        assert on_disk == files, f"examples/{key} is stale: run python scripts/render_examples.py"


def _directives(text: str, tmp_path: Path) -> dict[str, list[str]]:
    path = tmp_path / "tls.conf"
    path.write_text(text)
    parsed = crossplane.parse(
        str(path), single=True, strict=False, check_ctx=False, check_args=False
    )
    return {d["directive"]: d["args"] for d in parsed["config"][0]["parsed"]}


def test_intermediate_matches_mozilla_6_0_for_nginx_1_26_3_openssl_3_5(tmp_path: Path) -> None:
    mozilla = json.loads((GUIDELINES / "mozilla-guidelines-6.0.json").read_text())
    reference = mozilla["configurations"]["intermediate"]
    model = compose(
        "intermediate",
        None,
        domains=["example.com"],
        certs=["/c.pem"],
        keys=["/k.pem"],
        listen=None,
        http_listen=None,
        cpu=None,
        comments=True,
        check_certificates=False,
    )
    ours = _directives(
        render(make_plan(model, resolve("1.26.3", "openssl-3.5.0")))[TLS_FILE], tmp_path
    )

    assert ours["ssl_protocols"] == reference["tls_versions"]
    assert (
        ours["ssl_ciphers"][0].split(":") == reference["ciphers"]["openssl"]
    )  # same suites, same order
    assert ours["ssl_prefer_server_ciphers"] == [
        "on" if reference["server_preferred_order"] else "off"
    ]
    # Deliberate difference 1: the same groups, but as an OpenSSL 3.5 tuple, so ML-KEM is enforced
    # (OpenSSL 3.5 SSL_CTX_set1_curves.pod: with a colon list, a client's X25519 key share wins).
    curve = ours["ssl_ecdh_curve"][0]
    assert curve.replace("/", ":").split(":") == reference["tls_curves"]
    assert curve.startswith("X25519MLKEM768/")
    # Deliberate difference 2: TLS 1.3 suites are stated (Mozilla relies on the library default).
    assert ours["ssl_conf_command"] == ["Ciphersuites", ":".join(reference["ciphersuites"])]
    # Deliberate difference 3: tickets on, because nginx >= 1.23.2 rotates their keys itself.
    assert ours["ssl_session_tickets"] == ["on"]
    assert ours["ssl_session_timeout"] == ["1d"]
    # HSTS max-age is Mozilla's minimum.
    assert load_preset("intermediate")["site"]["hsts"]["max_age"] >= reference["hsts_min_age"]
