"""The site file of `generate --config`: its JSON Schema (`nginxgen schema`), the loader's checks
made from the same models, the complete example in docs/generate.md, and the small options of issue 35."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from nginxgen.generate.models import site_file_schema
from nginxgen.generate.presets import preset_dir
from nginxgen.shell.cli import main
from tests.helpers import make_cert
from tests.paths import REPO

SITE_FILE_PAGE = REPO / "docs" / "generate.md"
TARGET = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def schema_problems(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    """A JSON Schema check of the keywords pydantic writes (no jsonschema package here):
    $ref, anyOf, type, enum, const, properties, required, additionalProperties, items,
    minItems, maxItems, minimum, maximum."""
    if "$ref" in schema:
        return schema_problems(value, root["$defs"][schema["$ref"].split("/")[-1]], root)
    if "anyOf" in schema:
        tries = [schema_problems(value, option, root) for option in schema["anyOf"]]
        return [] if any(not t for t in tries) else [p for t in tries for p in t]
    types = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"{value!r} is not an integer"]
    elif kind is not None and not isinstance(value, types[kind]):
        return [f"{value!r} is not of type {kind}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{value!r} is not one of {schema['enum']}"]
    if "const" in schema and value != schema["const"]:
        return [f"{value!r} is not {schema['const']!r}"]
    problems = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        problems += [f"{k!r} is required" for k in schema.get("required", []) if k not in value]
        for key, item in value.items():
            if key in properties:
                problems += schema_problems(item, properties[key], root)
            elif schema.get("additionalProperties") is False:
                problems.append(f"unknown key {key!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1e9):
            problems.append(f"{len(value)} items")
        for item in value:
            problems += schema_problems(item, schema.get("items", {}), root)
    number = isinstance(value, int) and not isinstance(value, bool)
    if number and not schema.get("minimum", value) <= value <= schema.get("maximum", value):
        problems.append(f"{value} is out of range")
    return problems


def readme_example() -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", SITE_FILE_PAGE.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.startswith("# yaml-language-server: $schema=")]
    assert len(found) == 1, "docs/generate.md has one complete site file example"
    return found[0]


def test_the_schema_command_prints_the_models_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["schema"], capsys)
    assert code == 0 and json.loads(out) == site_file_schema()


@pytest.mark.parametrize("path", sorted(preset_dir().glob("*.yaml")), ids=lambda p: p.stem)
def test_the_schema_takes_every_preset(path: Path) -> None:
    schema = site_file_schema()
    assert schema_problems(yaml.safe_load(path.read_text()), schema, schema) == []


def test_the_schema_takes_the_readme_example_and_refuses_what_the_loader_refuses() -> None:
    schema = site_file_schema()
    example = yaml.safe_load(readme_example())
    assert schema_problems(example, schema, schema) == []
    assert set(example) == set(schema["properties"]), "the example uses every top-level key"
    for broken, problem in [
        ({**example, "preset": "modern"}, "unknown key 'preset'"),
        ({**example, "site": {**example["site"], "hsst": {}}}, "unknown key 'hsst'"),
        ({**example, "comments": "yes"}, "'yes' is not of type boolean"),
        ({**example, "sites": [{"domains": ["a.example"]}]}, "'certificates' is required"),
    ]:
        assert problem in schema_problems(broken, schema, schema)


def test_the_readme_example_generates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = readme_example()
    for name in ("example.com", "api.example.com"):
        for kind in ("ecdsa", "rsa"):
            pair = make_cert(tmp_path / name, name, kind, sans=(f"www.{name}",))
            text = text.replace(f"/etc/ssl/{name}/{kind}.pem", str(pair.cert))
            text = text.replace(f"/etc/ssl/{name}/{kind}.key", str(pair.key))
    assert "/etc/ssl/" not in text
    (tmp_path / "site.yaml").write_text(text)
    out = tmp_path / "out"
    args = ["generate", "--config", str(tmp_path / "site.yaml"), *TARGET, "--out", str(out)]
    code, _, err = run(args, capsys)
    assert code == 0, err
    api = (out / "api.example.com.ssl.conf").read_text()
    site = (out / "example.com.ssl.conf").read_text()
    assert "listen 8443 ssl" in api and "Strict-Transport-Security" not in api
    assert "max-age=63072000; includeSubDomains" in site and "/var/www/example.com" in site
    assert "proxy_ssl_verify on;" in api and "proxy_ssl_name api-backend.example.net;" in api
    assert "if ($ssl_client_verify != SUCCESS)" in api
    assert (
        "proxy_ssl_name db.internal.example.net;"
        in (out / "db.example.com.stream.conf").read_text()
    )
    assert "include db.example.com.stream.conf;" in (out / "nginx.conf").read_text()


SITE = """extends: modern
sites:
  - domains: [example.com]
    certificates:
      - cert: {cert}
        key: {key}
"""


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (("extends: modern", "preset: modern"), 1,
         "unknown key 'preset': a site file names its preset with extends:"),
        (("        key:", "        crt:"), 6,
         "sites.0.certificates.0.crt: unknown key 'crt'; did you mean 'cert'?"),
        (("sites:", "policy:\n  protocls: [TLSv1.3]\nsites:"), 3,
         "policy.protocls: unknown key 'protocls'; did you mean 'protocols'?"),
        (("sites:", "site:\n  hsst: {max_age: 31536000}\nsites:"), 3,
         "site.hsst: unknown key 'hsst'; did you mean 'hsts'?"),
        (("sites:", "default_servr: {}\nsites:"), 2, "unknown key 'default_servr'; did you mean "
         "'default_server'?"),
        (("    certificates:", "    http2: maybe\n    certificates:"), 4,
         "sites.0.http2: Input should be a valid boolean"),
    ],
)  # fmt: skip
def test_a_bad_key_in_a_site_file_is_one_line_with_file_and_line(
    change: tuple[str, str], line: int, message: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    pair = make_cert(tmp_path, "example.com")
    text = SITE.format(cert=pair.cert, key=pair.key).replace(*change)
    (tmp_path / "site.yaml").write_text(text)
    code, out, err = run(["generate", "--config", str(tmp_path / "site.yaml"), *TARGET], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"nginxgen: error: {tmp_path / 'site.yaml'}:{line}: "), err
    assert message in err


def test_unquoted_on_and_off_are_the_switches_yaml_read_as_booleans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """YAML 1.1 reads `on`/`off` as true/false: the on/off/auto fields take them as written,
    and the schema editors check against says so."""
    pair = make_cert(tmp_path, "example.com")
    extra = (
        "policy:\n  session: {tickets: on}\n  resolver: [127.0.0.53]\n  ktls: off\n"
        "access_log: off\n"
    )
    site = (
        "    upstream: {url: 'https://api.example.net/', post_quantum: off}\n"
        "    client_certificates: {ca: /etc/nginx/ca.pem, ocsp: on}\n"
    )
    text = extra + SITE.format(cert=pair.cert, key=pair.key) + site
    schema = site_file_schema()
    assert schema_problems(yaml.safe_load(text), schema, schema) == []
    (tmp_path / "site.yaml").write_text(text)
    code, out, err = run(["generate", "--config", str(tmp_path / "site.yaml"), *TARGET], capsys)
    assert code == 0, err
    assert "ssl_session_tickets on;" in out and "ssl_ocsp on;" in out
    assert "proxy_ssl_verify on;" in out and "proxy_ssl_conf_command" not in out
    assert "access_log" not in out


@pytest.mark.parametrize(("flag", "header"), [
    ([], '"max-age=63072000; includeSubDomains"'),
    (["--hsts-subdomains"], '"max-age=63072000; includeSubDomains"'),
    (["--no-hsts-subdomains"], "max-age=63072000"),
])  # fmt: skip
def test_hsts_subdomains_can_be_left_out_from_the_command_line(
    flag: list[str], header: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = make_cert(tmp_path, "example.com")
    args = ["generate", "--preset", "intermediate", *TARGET, "--domain", "example.com",
            "--cert", str(pair.cert), "--key", str(pair.key), *flag]  # fmt: skip
    code, out, err = run(args, capsys)
    assert code == 0, err
    assert f"add_header Strict-Transport-Security {header} always;" in out
    assert ("includeSubDomains" in out) == ("--no-hsts-subdomains" not in flag)


def test_no_hsts_subdomains_with_preload_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = make_cert(tmp_path, "example.com")
    (tmp_path / "site.yaml").write_text(
        SITE.format(cert=pair.cert, key=pair.key) + "    hsts: {preload: true}\n"
    )
    args = ["generate", "--config", str(tmp_path / "site.yaml"), *TARGET, "--no-hsts-subdomains"]
    code, _, err = run(args, capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "preload needs include_subdomains" in err


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from nginxgen import __version__

    assert run(["--version"], capsys) == (0, f"nginxgen {__version__}\n", "")


def test_help_lists_every_command_lint_and_lsp_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    commands = re.findall(r"^  (\w+) ", out.split("Commands:")[1], re.M)
    assert code == 0
    assert {"generate", "lint", "lsp", "schema", "probe", "report", "rules"} <= set(commands)
    assert "--version" in out


COMMANDS = [
    ["generate", "--preset", "modern", "--domain", "a.example", "--cert", "c", "--key", "k"],
    ["lint", "-"],
    ["probe", "127.0.0.1:9"],  # refused before any connection is tried
    ["ciphers", "HIGH"],  # takes --tls-library only
]
BAD = [
    ("--nginx-version", "9.99.1"),
    ("--nginx-version", "1.2"),
    ("--tls-library", "openssl-3.7.0"),
]


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [(c, o, v) for c in COMMANDS for o, v in BAD if c[0] != "ciphers" or o == "--tls-library"],
    ids=lambda x: x[0] if isinstance(x, list) else x,
)
def test_every_command_refuses_a_version_that_is_no_release_in_one_line(
    command: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*command, option, value], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"nginxgen: error: {option}: ") and "is not a release" in err


def test_ca_files_are_checked_where_they_are_and_named_where_they_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CA file that is here is read like a certificate (garbage: one line, exit 2); one that
    is not here is a warning naming the file, the field and where it comes from, not a refusal
    (the config may be generated away from the server)."""
    pair = make_cert(tmp_path, "example.com")
    base = "extends: cloudflare-origin-pull\n" + SITE.split("\n", 1)[1].format(
        cert=pair.cert, key=pair.key
    )
    (tmp_path / "site.yaml").write_text(base)
    args = ["generate", "--config", str(tmp_path / "site.yaml"), *TARGET]
    code, out, err = run(args, capsys)
    assert code == 0 and "ssl_client_certificate /etc/ssl/cloudflare/origin-pull-ca.pem;" in out
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert warning.startswith(
        "nginxgen: warning: sites[0].client_certificates.ca: /etc/ssl/cloudflare/origin-pull-ca.pem"
        " is not on this machine; put Cloudflare's Authenticated Origin Pulls CA (https://"
    ), warning
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("<html>404</html>\n")
    missing = tmp_path / "backend-ca.pem"
    cases = [
        (f"    client_certificates: {{ca: {garbage}}}\n", 2,
         f"nginxgen: error: {garbage}: holds no PEM certificate ({tmp_path / 'site.yaml'}:7: "
         "sites[0].client_certificates.ca names it)"),
        (f"    upstream: {{url: 'https://b.example/', trusted_certificate: {missing}}}\n", 0,
         f"nginxgen: warning: {tmp_path / 'site.yaml'}:7: sites[0].upstream.trusted_certificate: "
         f"{missing} is not on this machine; put the CA that issues the backend's certificates "
         "there"),
        (f"    client_certificates: {{ca: {pair.cert}}}\n", 0, None),
    ]  # fmt: skip
    plain = base.replace("cloudflare-origin-pull", "cloudflare-origin")  # no client certificates
    for extra, status, said in cases:
        (tmp_path / "site.yaml").write_text(plain + extra)
        code, _, err = run(args, capsys)
        assert code == status, err
        told = [line for line in err.splitlines() if "warning" in line or "error" in line]
        assert [line[: len(said)] for line in told] == ([said] if said else []), err


SITE_ENTRY = "sites:\n  - domains: [example.com]\n    certificates: [{cert: CERT, key: KEY}]\n"
NEW_33 = ["--nginx-version", "1.31.3", "--tls-library", "openssl-3.3.7"]


@pytest.mark.parametrize(
    ("text", "target", "message"),
    [
        # a key of one site under site: says where it goes
        ("extends: intermediate\nsite:\n  upstream: {url: 'https://b.example/'}\n" + SITE_ENTRY,
         TARGET, ":3: site.upstream: 'upstream' is set per site, not for every site under site:; "
         "put it in each entry of sites:"),
        # the value once
        ("extends: intermediate\n" + SITE_ENTRY + "    upstream: {url: 'http://b.example/'}\n",
         TARGET, ":5: sites.0.upstream.url: 'http://b.example/' is not an https:// or grpcs:// "
         "URL (e.g. https://api.example.com:8443/)\n"),
        # the preset's groups, not the user's: which preset, and how to keep it
        ("extends: cloudflare-origin\n" + SITE_ENTRY, NEW_33,
         "error: policy.groups[0]: the cloudflare-origin preset's 'X25519MLKEM768' cannot work on nginx "
         "1.31.3 with OpenSSL 3.3.7: OpenSSL has X25519MLKEM768 only from 3.5.0; keep "
         "cloudflare-origin with a --config file (extends: cloudflare-origin) that sets "
         "policy.groups: use one of X25519, prime256v1, secp384r1 instead, or write "
         "'?X25519MLKEM768' to drop it where missing; or choose another preset (nginxgen "
         "presets)\n"),
        ("extends: cloudflare-origin-pull\n" + SITE_ENTRY, NEW_33,
         "the cloudflare-origin preset's 'X25519MLKEM768' cannot work on nginx 1.31.3 with "
         "OpenSSL 3.3.7: OpenSSL has X25519MLKEM768 only from 3.5.0; keep cloudflare-origin-pull "
         "with a --config file (extends: cloudflare-origin-pull) that sets policy.groups: "),
        # groups the user wrote: the user's
        ("extends: cloudflare-origin\npolicy: {groups: [X25519MLKEM768, X25519]}\n" + SITE_ENTRY,
         NEW_33, "site.yaml:2: policy.groups[0]: 'X25519MLKEM768' cannot work on nginx 1.31.3 with OpenSSL "
         "3.3.7: OpenSSL has X25519MLKEM768 only from 3.5.0; use one of X25519"),
        # the sites sharing an address are named
        ("extends: intermediate\n" + SITE_ENTRY + "    listen: ['127.0.0.1:28443']\n"
         "streams:\n  - {name: db.example.com, listen: ['127.0.0.1:28443'], backend: 'db:5432', "
         "certificates: [{cert: CERT, key: KEY}]}\n", TARGET,
         "127.0.0.1:28443 is taken twice, by site example.com and stream site db.example.com"),
        # the switch that needs the resolver is named, not the empty resolver
        ("extends: intermediate\n" + SITE_ENTRY + "    client_certificates: {ca: CERT, ocsp: on}\n",
         TARGET, "site.yaml:5: sites[0].client_certificates.ocsp: 'on' needs a resolver"),
        ("extends: intermediate\npolicy: {ocsp_stapling: true}\n" + SITE_ENTRY, TARGET,
         "site.yaml:2: policy.ocsp_stapling: True needs a resolver"),
    ],
)  # fmt: skip
def test_what_a_refusal_says(
    text: str, target: list[str], message: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    pair = make_cert(tmp_path, "example.com")
    text = text.replace("CERT", str(pair.cert)).replace("KEY", str(pair.key))
    (tmp_path / "site.yaml").write_text(text)
    code, out, err = run(["generate", "--config", str(tmp_path / "site.yaml"), *target], capsys)
    error = [line for line in err.splitlines() if "error" in line]
    assert code == 2 and out == "" and len(error) == 1, err
    assert message.rstrip("\n") in error[0], error[0]
    if message.endswith("\n"):
        assert error[0].endswith(message.rstrip("\n")), error[0]


def test_a_site_file_from_no_preset_is_told_how_to_start_from_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --preset and no `extends:`: one line naming the file and the way out, not a line per
    missing policy key (a user tried a file of `streams:` alone)."""
    pair = make_cert(tmp_path, "example.com")
    site = f"sites:\n  - domains: [example.com]\n    certificates:\n      - cert: {pair.cert}\n"
    (tmp_path / "site.yaml").write_text(site + f"        key: {pair.key}\n")
    code, out, err = run(["generate", "--config", str(tmp_path / "site.yaml"), *TARGET], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"nginxgen: error: {tmp_path / 'site.yaml'}: policy: protocols and "), err
    assert "extends: intermediate" in err and "--preset NAME" in err
    code, _, err = run(["generate", "--config", str(tmp_path / "site.yaml"), *TARGET,
                        "--preset", "intermediate", "--out", str(tmp_path / "out")], capsys)  # fmt: skip
    assert code == 0, err
