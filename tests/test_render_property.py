"""For any model the validators accept, crossplane reads back exactly the values we meant;
anything they refuse never reaches a template."""

from __future__ import annotations

from pathlib import Path

import pydantic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.generate.models import GeneratorConfig
from nginxgen.generate.plan import make_plan
from nginxgen.generate.render import render
from nginxgen.knowledge.target import resolve
from tests.fuzzing.generate_check import parse

POLICY = {
    "protocols": ["TLSv1.2", "TLSv1.3"],
    "ciphers": ["ECDHE-ECDSA-AES128-GCM-SHA256"],
    "groups": ["X25519"],
}
TARGET = resolve("1.26.3", "openssl-3.5.7")

label = st.from_regex(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,10}[A-Za-z0-9])?", fullmatch=True)
host = st.builds(lambda parts: ".".join(parts), st.lists(label, min_size=1, max_size=4))
anything = st.text(min_size=0, max_size=30)
path_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40
).map(lambda s: "/" + s)


def _server(parsed: list[dict[str, object]]) -> dict[str, list[list[str]]]:
    (server,) = [d for d in parsed if d["directive"] == "server"]
    out: dict[str, list[list[str]]] = {}
    for d in server["block"]:  # type: ignore[attr-defined]
        out.setdefault(d["directive"], []).append(d["args"])
    return out


def _check(domains: list[str], cert: str, key: str, tmp: Path) -> None:
    data = {
        "policy": POLICY,
        "sites": [{"domains": domains, "certificates": [{"cert": cert, "key": key}], "root": cert}],
    }
    try:
        model = GeneratorConfig.model_validate(data)
    except pydantic.ValidationError:
        return  # refused: nothing is rendered
    files = render(make_plan(model, TARGET))
    name = f"{model.sites[0].primary}.ssl.conf"
    directives = _server(parse(files[name], tmp, name))
    assert directives["server_name"] == [domains]
    assert directives["ssl_certificate"] == [[cert]]
    assert directives["ssl_certificate_key"] == [[key]]
    assert directives["root"] == [[cert]]
    assert directives["listen"] == [["443", "ssl"], ["[::]:443", "ssl"]]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(domains=st.lists(host, min_size=1, max_size=3, unique=True), cert=path_text, key=path_text)
def test_valid_values_round_trip(tmp_path: Path, domains: list[str], cert: str, key: str) -> None:
    _check(domains, cert, key, tmp_path)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(domain=anything, cert=anything, key=anything)
def test_arbitrary_text_is_refused_or_round_trips(
    tmp_path: Path, domain: str, cert: str, key: str
) -> None:
    _check([domain], cert, key, tmp_path)
