"""The generator's upstream:, client_certificates: and streams: (issue 38): what each target
refuses and why, what the config model reads back from the output, and `nginx -t` of a config
using them all on every real build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from nginxgen.base.errors import ValidationError
from nginxgen.conf.config import build as build_config
from nginxgen.conf.load import load_path
from nginxgen.conf.upstream import backends
from nginxgen.generate.models import GeneratorConfig
from nginxgen.generate.plan import Plan, make_plan
from nginxgen.generate.render import MAIN_FILE, STREAM_TLS_FILE, render, site_file, stream_file
from nginxgen.knowledge.target import Target, resolve
from tests.builds import ALL_BUILD_NAMES, Build
from tests.fuzzing.generate_check import build_target, lint_findings
from tests.live import nginx_check, prepare_prefix
from tests.pki import CertificateFactory, empty_crl

POLICY = {
    "protocols": ["TLSv1.2", "TLSv1.3"],
    "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"],
    "groups": ["?X25519MLKEM768", "X25519", "prime256v1"],
}
TARGET_FIELDS = ("nginx", "library", "plus", "modules", "without", "exact", "assumed", "conf_path")
PAIR = {"cert": "/etc/ssl/a.pem", "key": "/etc/ssl/a.key"}


def model(
    upstream: dict[str, Any] | None = None,
    client_certificates: dict[str, Any] | None = None,
    streams: list[dict[str, Any]] | None = None,
    policy: dict[str, Any] | None = None,
) -> GeneratorConfig:
    site: dict[str, Any] = {"domains": ["example.com"], "certificates": [PAIR]}
    if upstream is not None:
        site["upstream"] = upstream
    if client_certificates is not None:
        site["client_certificates"] = client_certificates
    return GeneratorConfig.model_validate(
        {"policy": policy or POLICY, "sites": [site], "streams": streams or []}
    )


def refusal(config: GeneratorConfig, target: Target) -> str:
    with pytest.raises(ValidationError) as caught:
        make_plan(config, target)
    return str(caught.value)


def site_text(config: GeneratorConfig, target: Target) -> str:
    return render(make_plan(config, target))[site_file("example.com")]


UPSTREAM = {"url": "https://api.example.net:8443/app"}


def test_post_quantum_to_the_backend_only_where_the_library_has_it() -> None:
    pq = site_text(model(UPSTREAM), resolve("1.26.3", "openssl-3.5.7"))
    assert "proxy_ssl_conf_command Groups X25519MLKEM768:X25519:prime256v1;" in pq
    for library, why in [
        ("openssl-3.0", "only from 3.5.0"),
        ("boringssl", "not supported on this platform"),
        ("aws-lc-1.37.0", "not supported on this platform"),
    ]:
        target = resolve("1.26.3", library)
        assert "ssl_conf_command" not in site_text(model(UPSTREAM), target)  # auto: none
        on = model({**UPSTREAM, "post_quantum": "on"})
        message = refusal(on, target)
        assert (
            message.startswith("sites[0].upstream.post_quantum: 'on' cannot work")
            and why in message
        )
    # nginx before 1.19.4 has no proxy_ssl_conf_command at all
    old = refusal(model({**UPSTREAM, "post_quantum": "on"}), resolve("1.18.0", "openssl-3.5.7"))
    assert "proxy_ssl_conf_command" in old


def test_the_backend_is_verified_by_its_own_name_and_kept() -> None:
    text = site_text(model(UPSTREAM), resolve("1.26.3", "openssl-3.5.7"))
    for line in [
        "upstream nginxgen_example_com {",
        "server api.example.net:8443;",
        "keepalive 16;",
        "proxy_pass https://nginxgen_example_com/app;",
        "proxy_ssl_verify on;",
        "proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;",
        "proxy_ssl_name api.example.net;",
        "proxy_ssl_server_name on;",
        "proxy_ssl_protocols TLSv1.2 TLSv1.3;",
        "proxy_set_header Host api.example.net:8443;",
        "proxy_http_version 1.1;",
        'proxy_set_header Connection "";',
    ]:
        assert line in text, line


def test_keepalive_0_writes_nothing_nginx_would_refuse() -> None:
    none = model({**UPSTREAM, "keepalive": 0})
    old = site_text(none, resolve("1.26.3", "openssl-3.5.7"))
    assert "keepalive" not in old and "proxy_http_version" not in old  # 0 is refused before 1.29.7
    assert "keepalive 0;" in site_text(none, resolve("1.31.3", "openssl-3.5.7"))  # on by default


def test_grpcs_takes_grpc_lines() -> None:
    text = site_text(model({"url": "grpcs://api.example.net"}), resolve("1.26.3", "openssl-3.5.7"))
    assert "grpc_pass grpcs://nginxgen_example_com;" in text and "grpc_ssl_verify on;" in text
    assert "server api.example.net:443;" in text and "proxy_" not in text
    # the :authority the backend gets is its name, not the block's (issue 44)
    assert "grpc_set_header Host api.example.net;" in text


@pytest.mark.parametrize(
    ("upstream", "host"),
    [
        ({"url": "grpcs://api.example.net:8443/"}, "api.example.net:8443"),
        ({"url": "grpcs://127.0.0.1:9444/", "name": "backend.test"}, "backend.test:9444"),
        ({"url": "https://127.0.0.1:9443/app", "name": "backend.test"}, "backend.test:9443"),
    ],
)
def test_the_backend_is_asked_for_its_name_and_grpc_takes_no_path(
    upstream: dict[str, str], host: str
) -> None:
    """Issue 44: `grpcs://host:port/` was written `grpc_pass grpcs://nginxgen_..._com/;`, which
    nginx refuses (invalid host in upstream); and the name the backend is asked for is the one
    it is verified by and sent as SNI, not the address of the URL."""
    text = site_text(model(upstream), resolve("1.26.3", "openssl-3.5.7"))
    grpc = upstream["url"].startswith("grpcs")
    if grpc:
        assert "grpc_pass grpcs://nginxgen_example_com;" in text
    header = "grpc_set_header" if grpc else "proxy_set_header"
    assert f"{header} Host {host};" in text


@pytest.mark.parametrize(
    ("upstream", "message"),
    [
        ({"url": "https://127.0.0.1:8443"}, "give upstream.name"),
        ({"url": "http://api.example.net"}, "is not an https:// or grpcs:// URL"),
        ({"url": "grpcs://api.example.net/x"}, "a grpcs:// URL takes no path"),
        ({"url": "https://api.example.net;x"}, "is not a host name"),
        ({**UPSTREAM, "verify_depth": 99}, "less than or equal to 32"),
    ],
)
def test_bad_upstreams_are_refused_by_the_model(upstream: dict[str, Any], message: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        model(upstream)
    assert message in str(caught.value)


CLIENT = {"ca": "/etc/nginx/client-ca.pem"}


def test_optional_client_certificates_get_the_check_written() -> None:
    target = resolve("1.26.3", "openssl-3.5.7")
    required = site_text(model(client_certificates=CLIENT), target)
    assert "ssl_verify_client on;" in required and "$ssl_client_verify" not in required
    optional = site_text(model(client_certificates={**CLIENT, "verify": "optional"}), target)
    assert "ssl_verify_client optional;" in optional
    assert "if ($ssl_client_verify != SUCCESS) {\n        return 403;" in optional


def test_ocsp_for_client_certificates_where_nginx_and_the_library_have_it() -> None:
    ocsp = {**CLIENT, "ocsp": "on"}
    with_resolver = {**POLICY, "resolver": ["127.0.0.53"]}
    text = site_text(
        model(client_certificates=ocsp, policy=with_resolver), resolve("1.19.0", "openssl-3.0")
    )
    assert "ssl_ocsp on;" in text and "resolver 127.0.0.53;" in text
    old = refusal(
        model(client_certificates=ocsp, policy=with_resolver), resolve("1.18.0", "openssl-3.0")
    )
    assert "ssl_ocsp needs nginx 1.19.0" in old
    boring = refusal(
        model(client_certificates=ocsp, policy=with_resolver), resolve("1.26.3", "boringssl")
    )
    assert '"ssl_ocsp" is not supported on this platform' in boring
    assert refusal(model(client_certificates=ocsp), resolve("1.26.3", "openssl-3.0")) == (
        "sites[0].client_certificates.ocsp: 'on' needs a resolver for the host of the OCSP responder "
        "each client certificate names, and policy.resolver is empty; set policy.resolver (e.g. "
        "[127.0.0.53]), or use client_certificates.crl"
    )


@pytest.mark.parametrize("comments", [True, False])
@pytest.mark.parametrize(
    ("domains", "client", "marked"),
    [
        (["example.com", "www.example.com"], CLIENT, {"NGX743", "NGX744"}),
        (["example.com"], CLIENT, {"NGX744"}),  # the reject-handshake default shares nothing
        (["example.com"], {**CLIENT, "crl": "/etc/nginx/client-ca.crl"}, set()),
    ],
)
def test_client_certificate_findings_the_user_chose_are_marked_with_the_reason(
    tmp_path: Path, comments: bool, domains: list[str], client: dict[str, Any], marked: set[str]
) -> None:
    """The linter reads the mark on the ssl_verify_client line or the line above, so it sits
    right above it, with the why comments on and off; the output lints clean either way."""
    data = model(client_certificates=client).model_dump()
    data["sites"][0]["domains"] = domains
    config = GeneratorConfig.model_validate({**data, "comments": comments})
    target = resolve("1.26.3", "openssl-3.5.7")
    text = render(make_plan(config, target))[site_file("example.com")]
    lines = text.splitlines()
    above = lines[lines.index("    ssl_verify_client on;") - 1]
    if marked:
        assert above.startswith(
            f"    # nginxgen: ignore[{','.join(sorted(marked, reverse=True))}] "
        )
        assert ("crl nor ocsp" in above) == ("NGX744" in marked)
    else:
        assert "nginxgen: ignore" not in text
    conf = write(make_plan(config, target), tmp_path / "conf")
    assert [f.code for f in lint_findings(conf, target) if f.code.startswith("NGX74")] == []


STREAM = {
    "name": "db.example.com",
    "listen": ["5433"],
    "certificates": [PAIR],
    "backend": "127.0.0.1:5432",
    "backend_tls": {"name": "db.internal"},
}


def test_stream_sites_are_refused_where_nginx_lacks_stream_tls() -> None:
    config = model(streams=[STREAM])
    full = resolve("1.26.3", "openssl-3.5.7")
    plain = Target(
        **{**{f: getattr(full, f) for f in TARGET_FIELDS}, "modules": frozenset({"http_ssl"})}
    )
    message = refusal(config, plain)
    assert (
        message.count("\n") == 0 and "ngx_stream_ssl_module and ngx_stream_proxy_module" in message
    )
    files = render(make_plan(config, resolve("1.26.3", "openssl-3.5.7")))
    assert "proxy_ssl on;" in files[stream_file("db.example.com")]
    assert "include db.example.com.stream.conf;" in files[MAIN_FILE]


@pytest.mark.parametrize(
    ("streams", "message"),
    [
        ([{**STREAM, "backend_tls": {}}], "backend_tls.name is needed"),
        ([{**STREAM, "backend": "db.internal"}], "needs a port"),
        (
            [STREAM, {**STREAM, "name": "other"}],
            "*:5433 is taken twice, by stream site db.example.com and stream site other",
        ),
        (
            [{**STREAM, "listen": ["443"]}],  # the http site's address
            "*:443 is taken twice, by site example.com and stream site db.example.com",
        ),
    ],
)
def test_bad_stream_sites_are_refused_by_the_model(
    streams: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        model(streams=streams)
    assert message in str(caught.value)


def test_the_config_model_reads_back_what_the_generator_meant(tmp_path: Path) -> None:
    """conf/upstream.py, which lint's NGX8xx rules read, sees a verified pass with SNI, the name,
    and kept connections."""
    target = resolve("1.26.3", "openssl-3.5.7")
    files = render(make_plan(model(UPSTREAM), target))
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    config = build_config(load_path(str(tmp_path / MAIN_FILE)))
    (backend,) = list(backends(config, target))
    assert backend.verify().value and backend.sni() == "api.example.net"
    assert backend.keepalive().kept is True and backend.session_reuse().value


# --- nginx -t on every build -----------------------------------------------------------------


def full_config(folder: Path, target: Target, streams: bool, sites: bool = True) -> GeneratorConfig:
    factory = CertificateFactory(folder / "pki", "ecdsa")
    leaf = factory.leaf("example.com", "ecdsa")
    pair = {"cert": str(leaf.fullchain), "key": str(leaf.key)}
    ca = str(leaf.root)
    client: dict[str, Any] = {"ca": ca, "verify": "optional", "depth": 2}
    client["crl"] = str(empty_crl(factory, folder / "root.crl"))
    from nginxgen.knowledge import libraries

    if libraries.has(target.library, "ocsp_client"):
        client["ocsp"] = "leaf"
    http = [
        {
            "domains": ["example.com"],
            "certificates": [pair],
            "listen": ["127.0.0.1:8443"],
            "http_listen": [],
            "redirect": False,
            "upstream": {"url": "https://localhost:9443/", "trusted_certificate": ca},
            "client_certificates": client,
        },
        {
            "domains": ["grpc.example.com"],
            "certificates": [pair],
            "listen": ["127.0.0.1:8443"],
            "http_listen": [],
            "redirect": False,
            "upstream": {"url": "grpcs://127.0.0.1:9444", "name": "backend.test", "keepalive": 0},
        },
    ]
    stream = {**STREAM, "listen": ["127.0.0.1:5433"], "certificates": [pair]}
    stream["backend_tls"] = {"name": "db.internal", "trusted_certificate": ca}
    return GeneratorConfig.model_validate(
        {
            "policy": {**POLICY, "resolver": ["127.0.0.53"]},
            "sites": http if sites else [],
            "streams": [stream] if streams else [],
            "access_log": "/dev/null",
        }
    )


def write(plan: Plan, folder: Path) -> Path:
    folder.mkdir()
    for name, text in render(plan).items():
        (folder / name).write_text(text)
    return folder / MAIN_FILE


def dynamic_stream(build: Build, target: Target, conf: Path) -> None:
    """Point the generated load_module line (the binary's --modules-path) at the build's own
    unpacked libnginx-mod-stream, which provisioning puts in the build's root."""
    module = f"{target.modules_path}/ngx_stream_module.so"
    text = conf.read_text()
    first = [line for line in text.splitlines() if line and line[0] not in "# "]
    assert first[0] == f"load_module {module};", first[:2]
    shipped = Path(build.root or "/nonexistent") / module.lstrip("/")
    assert shipped.is_file(), f"{shipped} not unpacked: run scripts/provision.py"
    conf.write_text(text.replace(module, str(shipped)))


def passes(build: Build, target: Target, conf: Path, dynamic: bool) -> None:
    """The generated tree lints without an error or warning and passes nginx -t without a
    warning (with the build's own stream module where it is dynamic)."""
    if dynamic:
        dynamic_stream(build, target, conf)
    bad = [f for f in lint_findings(conf, target) if f.severity in ("error", "warning")]
    assert not bad, bad
    prepare_prefix(conf, build)
    checked = nginx_check(build, conf)
    assert checked.returncode == 0, checked.stderr
    assert "[warn]" not in checked.stderr, checked.stderr


@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
def test_a_dynamic_stream_module_is_loaded_first(build: Build, tmp_path: Path) -> None:
    """Debian builds stream as a module of its own (`--with-stream=dynamic`): the generated
    nginx.conf loads it from the binary's --modules-path before stream{}; with that line nginx
    -t passes, without it stream{} is an unknown directive."""
    target = build_target(build)
    assert target.dynamic is not None and "stream" in target.dynamic, target
    config = full_config(tmp_path, target, streams=True)
    conf = write(make_plan(config, target), tmp_path / "conf")
    dynamic_stream(build, target, conf)
    prepare_prefix(conf, build)
    checked = nginx_check(build, conf)
    assert checked.returncode == 0, checked.stderr
    without = conf.read_text().replace("load_module", "# load_module")
    conf.write_text(without)
    assert 'unknown directive "stream"' in nginx_check(build, conf).stderr


@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_upstream_client_certificates_and_streams_pass_nginx_t(
    build: Build, tmp_path: Path
) -> None:
    """Every build: the http{} fields, and streams where the build has stream TLS, compiled in
    or (Debian's) as a dynamic module. AWS-LC's and BoringSSL's builds have no stream module,
    which the generator refuses."""
    target = build_target(build)
    dynamic = "--with-stream=dynamic" in build.nginx("-V").stderr.split()
    streams = build.stream_tls or dynamic
    if not streams:
        with_streams = full_config(tmp_path / "refused", target, streams=True)
        assert "ngx_stream_ssl_module" in refusal(with_streams, target)
    config = full_config(tmp_path, target, streams=streams)
    passes(build, target, write(make_plan(config, target), tmp_path / "conf"), dynamic)


@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_stream_sites_alone_make_a_config_without_http(build: Build, tmp_path: Path) -> None:
    """`streams:` without `sites:`: nginx.conf has stream{} and no http{} (nor its files), and
    passes nginx -t and lint where the build has stream TLS; elsewhere it is refused."""
    target = build_target(build)
    dynamic = "--with-stream=dynamic" in build.nginx("-V").stderr.split()
    config = full_config(tmp_path, target, streams=True, sites=False)
    if not (build.stream_tls or dynamic):
        assert "ngx_stream_ssl_module" in refusal(config, target)
        return
    files = render(make_plan(config, target))
    assert set(files) == {MAIN_FILE, STREAM_TLS_FILE, stream_file("db.example.com")}
    assert "http {" not in files[MAIN_FILE] and "stream {" in files[MAIN_FILE]
    passes(build, target, write(make_plan(config, target), tmp_path / "conf"), dynamic)


def test_a_config_needs_a_site_or_a_stream_site() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        GeneratorConfig.model_validate({"policy": POLICY})
    assert "nothing to generate: give a site under sites:, or streams:" in str(caught.value)


def test_stream_sites_are_refused_into_an_existing_tree(tmp_path: Path) -> None:
    """`--into` plans http sites only: stream sites left out would be lost in silence, so they
    are refused whole, with one line naming `streams`."""
    from nginxgen.base.errors import NginxgenError
    from nginxgen.into.plan import plan_into

    main = tmp_path / "nginx.conf"
    main.write_text("events {}\nhttp {\n}\n")
    with pytest.raises(NginxgenError) as caught:
        plan_into(str(main), model(streams=[STREAM]), resolve("1.26.3", "openssl-3.5.7"), [], False)
    assert caught.value.where == "streams" and "--out" in str(caught.value)
    plan_into(str(main), model(), resolve("1.26.3", "openssl-3.5.7"), [], False)  # without: fine


def test_the_command_takes_a_config_of_stream_sites_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nginxgen.shell.cli import main

    leaf = CertificateFactory(tmp_path / "pki", "ecdsa").leaf("db.example.com", "ecdsa")
    stream = {**STREAM, "certificates": [{"cert": str(leaf.fullchain), "key": str(leaf.key)}]}
    config = tmp_path / "streams.yaml"
    config.write_text(json.dumps({"streams": [stream]}))  # YAML takes JSON
    out = tmp_path / "out"
    flags = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"]
    code = main(["generate", "--preset", "intermediate", "--config", str(config), *flags,
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [MAIN_FILE, STREAM_TLS_FILE, stream_file("db.example.com")]
    )
    (tmp_path / "empty.yaml").write_text("policy: {}\n")
    code = main(["generate", "--preset", "intermediate", "--config", str(tmp_path / "empty.yaml"),
                 *flags, "--out", str(tmp_path / "none")])  # fmt: skip
    assert code == 2 and "sites: or streams: in --config" in capsys.readouterr().err


def test_a_depth_the_ca_files_cannot_verify_is_refused(tmp_path: Path) -> None:
    """Found by the generator fuzzer on the wheel build: `depth: 0` beside CA files that hold an
    intermediate wrote `ssl_verify_depth 0;`, which lint's NGX742 then flagged (clients issued
    by the intermediate fail). The generator reads the same files and refuses, saying the depth
    to set; the CA of policy.ocsp_trusted_certificate counts, as nginx trusts it for clients
    too. A file it cannot read here (another machine's) is not judged."""
    pki = CertificateFactory(tmp_path / "pki")
    bundle = tmp_path / "clients.pem"
    bundle.write_bytes(
        pki.root_path.read_bytes() + pki.leaf("c", client=True).fullchain.read_bytes()
    )
    target = resolve("1.26.3", "openssl-3.5.7")
    said = refusal(model(client_certificates={"ca": str(bundle), "depth": 0}), target)
    assert "client_certificates.depth: 0 is too low" in said and "set depth: 1" in said, said
    assert "ssl_verify_depth 1;" in site_text(
        model(client_certificates={"ca": str(bundle), "depth": 1}), target
    )
    chain = tmp_path / "chain.pem"
    chain.write_bytes(pki.leaf("s").fullchain.read_bytes() + pki.root_path.read_bytes())
    trusting = {**POLICY, "ocsp_trusted_certificate": str(chain)}
    root_only = {"ca": str(pki.root_path), "depth": 0}
    assert "set depth: 1" in refusal(model(client_certificates=root_only, policy=trusting), target)
    site_text(model(client_certificates=root_only), target)  # the root alone: 0 will do
    site_text(model(client_certificates={"ca": str(tmp_path / "absent.pem"), "depth": 0}), target)


@pytest.mark.parametrize(
    ("sites", "message"),
    [
        # the generator fuzz, once NGX017 said what nginx -t warns: sites ['0'] and ['00', '0']
        ([["0"], ["00", "0"]], "0 is named in site 0 and in site 00 on "),
        ([["a.example", "A.example"]], "is named twice in site a.example on "),
    ],
)
def test_a_name_two_servers_of_one_address_give_is_refused(
    sites: list[list[str]], message: str
) -> None:
    """nginx answers a name from one server of an address:port and warns `conflicting server
    name` for the others: the model refuses it (sites on different addresses may share one)."""
    data = {"policy": POLICY, "sites": [{"domains": d, "certificates": [PAIR]} for d in sites]}
    with pytest.raises(pydantic.ValidationError) as caught:
        GeneratorConfig.model_validate(data)
    assert message in str(caught.value), str(caught.value)
    apart = [{"domains": d, "certificates": [PAIR], "listen": [f"{8440 + i}"]}
             for i, d in enumerate(sites[:2])]  # fmt: skip
    if len(apart) == 2:
        GeneratorConfig.model_validate({"policy": POLICY, "sites": apart})
