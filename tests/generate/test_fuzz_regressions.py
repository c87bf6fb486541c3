"""Each failure the fuzzers found, pinned (found by scripts/fuzz.py or tests/*/test_fuzz_*.py).

The runaway include expansion (NGX005) is pinned in test_lint_inputs and the OpenSSL letter
release spec (openssl-1.1.1w) in test_target.
"""

from __future__ import annotations

from typing import Any

import pytest

from nginxgen.base.errors import NginxgenError
from nginxgen.generate.models import GeneratorConfig
from nginxgen.generate.plan import make_plan
from nginxgen.generate.render import TLS_FILE, render
from nginxgen.knowledge.target import resolve

TARGET = resolve("1.22.1", "openssl-3.0.22")


def config(**policy: Any) -> GeneratorConfig:
    base = {
        "protocols": ["TLSv1.2", "TLSv1.3"],
        "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"],
        "groups": ["X25519"],
    }
    site = {"domains": ["a.example"], "certificates": [{"cert": "/c.pem", "key": "/k.pem"}]}
    return GeneratorConfig.model_validate({"policy": base | policy, "sites": [site]})


def test_stapling_verify_only_with_a_trusted_certificate() -> None:
    # Found: ssl_stapling_verify rendered without ssl_trusted_certificate (NGX712).
    plain = render(make_plan(config(ocsp_stapling=True, resolver=["1.1.1.1"]), TARGET))[TLS_FILE]
    assert "ssl_stapling on;" in plain and "ssl_stapling_verify" not in plain
    verified = config(
        ocsp_stapling=True, resolver=["1.1.1.1"], ocsp_trusted_certificate="/etc/ssl/chain.pem"
    )
    text = render(make_plan(verified, TARGET))[TLS_FILE]
    assert "ssl_stapling_verify on;\nssl_trusted_certificate /etc/ssl/chain.pem;" in text


@pytest.mark.parametrize(
    "groups",
    [["secp256r1", "prime256v1"], ["P-384", "?secp384r1"], ["X25519", "P-256", "prime256v1"]],
)
def test_one_group_under_two_names_is_refused(groups: list[str]) -> None:
    # Found: secp256r1 and prime256v1 passed as two groups; OpenSSL refuses the list (NGX202).
    with pytest.raises(NginxgenError, match="again, already listed"):
        make_plan(config(groups=groups), TARGET)


def test_a_socket_cannot_be_https_for_one_site_and_http_for_another() -> None:
    # Found: site A on 443 (HTTPS), site B redirecting from 443: two default servers (NGX107).
    sites = [
        {"domains": ["a.example"], "certificates": [{"cert": "/c", "key": "/k"}]},
        {
            "domains": ["b.example"],
            "certificates": [{"cert": "/c", "key": "/k"}],
            "listen": ["8443"],
            "http_listen": ["443"],
        },
    ]
    policy = {"protocols": ["TLSv1.3"], "groups": ["X25519"]}
    with pytest.raises(
        ValueError, match=r"\*:443 is HTTPS for a.example \(listen\) and HTTP for b.example"
    ):
        GeneratorConfig.model_validate({"policy": policy, "sites": sites})


def test_http3_needs_tls13() -> None:
    # Found by nginx -t on 1.26.3: "ssl_protocols" must enable TLSv1.3 for "listen ... quic".
    model = GeneratorConfig.model_validate(
        {
            "policy": {"protocols": ["TLSv1.2"], "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"],
                       "groups": ["X25519"]},
            "sites": [{"domains": ["a.example"], "certificates": [{"cert": "/c", "key": "/k"}],
                       "http3": True}],
        }
    )  # fmt: skip
    with pytest.raises(NginxgenError, match=r"QUIC is TLS 1\.3 only"):
        make_plan(model, resolve("1.26.3", "openssl-3.5.7"))


def _pairs(tmp_path: Any, *kinds: str) -> list[dict[str, str]]:
    from tests.pki import CertificateFactory

    out = []
    for kind in kinds:
        chain = CertificateFactory(tmp_path / kind, "ecdsa").leaf("a.example", kind=kind)
        out.append({"cert": str(chain.fullchain), "key": str(chain.key)})
    return out


def test_suites_no_certificate_signs_for_are_refused(tmp_path: Any) -> None:
    # Found: aRSA suites only, TLS 1.2 only, an ECDSA certificate: no handshake (NGX413).
    site = {"domains": ["a.example"], "certificates": _pairs(tmp_path, "ecdsa")}
    policy = {"protocols": ["TLSv1.2"], "ciphers": ["ECDHE-RSA-AES128-GCM-SHA256"],
              "groups": ["X25519"]}  # fmt: skip
    model = GeneratorConfig.model_validate({"policy": policy, "sites": [site]})
    with pytest.raises(NginxgenError, match=r"no TLS 1\.2 suite of policy\.ciphers signs"):
        make_plan(model, TARGET)


def test_the_default_server_has_every_certificate_of_the_first_site(tmp_path: Any) -> None:
    # Found: ECDSA and RSA pairs beside aRSA suites; the default server (no
    # ssl_reject_handshake asked) took the ECDSA pair alone, and no TLS 1.2 handshake without
    # SNI succeeded (NGX413).
    from nginxgen.generate.render import DEFAULT_FILE

    pairs = _pairs(tmp_path, "ecdsa", "rsa")
    site = {"domains": ["a.example"], "certificates": pairs}
    policy = {"protocols": ["TLSv1.2"], "ciphers": ["ECDHE-RSA-AES128-GCM-SHA256"],
              "groups": ["X25519"]}  # fmt: skip
    model = GeneratorConfig.model_validate(
        {"policy": policy, "sites": [site], "default_server": {"reject_unknown_names": False}}
    )
    text = render(make_plan(model, TARGET))[DEFAULT_FILE]
    assert all(f"ssl_certificate {p['cert']};" in text for p in pairs), text


def test_stapling_for_a_leaf_without_its_issuer_is_refused(tmp_path: Any) -> None:
    # nginx -t warns `"ssl_stapling" ignored, issuer certificate not found` for a leaf alone in
    # its file (NGX726, a warning); a full chain without a responder only staples nothing (an
    # info: the pq preset staples, and Let's Encrypt certificates name no responder).
    from tests.pki import CertificateFactory

    policy = {"protocols": ["TLSv1.2", "TLSv1.3"], "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"],
              "groups": ["X25519"], "ocsp_stapling": True, "resolver": ["127.0.0.53"]}  # fmt: skip
    url = CertificateFactory(tmp_path / "url", "ecdsa").leaf(
        "a.example", ocsp_url="http://127.0.0.1:9/"
    )
    site = {
        "domains": ["a.example"],
        "certificates": [{"cert": str(url.leaf), "key": str(url.key)}],
    }
    with pytest.raises(NginxgenError, match="holds no issuer after it"):
        make_plan(GeneratorConfig.model_validate({"policy": policy, "sites": [site]}), TARGET)
    for chain in (url, CertificateFactory(tmp_path / "none", "ecdsa").leaf("a.example")):
        site["certificates"] = [{"cert": str(chain.fullchain), "key": str(chain.key)}]
        make_plan(GeneratorConfig.model_validate({"policy": policy, "sites": [site]}), TARGET)


def test_http2_is_on_every_listen_before_the_directive(tmp_path: Any) -> None:
    # Found: before nginx 1.25.1 a site with http2 false beside one with it got `listen 443
    # ssl;` while the default server and the other site had `listen 443 ssl http2;`: nginx -t
    # warns `protocol options redefined` (NGX014). The parameter is the address's: every
    # listen carries it, and generate says the site serves HTTP/2 too.
    from nginxgen.generate.cli import _http2_notes
    from nginxgen.lint.run import Selection, lint_tree

    sites = [
        {"domains": ["a.example"], "certificates": [{"cert": "/c", "key": "/k"}], "http2": False},
        {"domains": ["b.example"], "certificates": [{"cert": "/c", "key": "/k"}]},
    ]
    model = GeneratorConfig.model_validate({"policy": config().policy.model_dump(), "sites": sites})
    files = render(make_plan(model, TARGET))
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    listens = [line for text in files.values() for line in text.splitlines()
               if line.strip().startswith("listen") and " ssl" in line]  # fmt: skip
    assert listens and all(" http2" in line for line in listens), listens
    from nginxgen.conf.load import load_path

    found = lint_tree(load_path(str(tmp_path / "nginx.conf")), TARGET, Selection(select={"NGX014"}))
    assert not found, found
    assert _http2_notes(model, TARGET) == [
        "note: a.example serves HTTP/2 too (http2 is false): before nginx 1.25.1 the listen "
        "parameter turns it on for an address and its default server, and b.example asks for it"
    ]
    later = resolve("1.26.3", "openssl-3.5.9")  # `http2 on;` per server: nothing to say
    assert _http2_notes(model, later) == []
