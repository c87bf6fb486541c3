"""For any model the validators accept, crossplane reads back exactly the values we meant;
anything they refuse never reaches a template."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pydantic
from hypothesis import assume, given, settings
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


def _check(domains: list[str], cert: str, key: str, tmp: Path) -> bool:
    """Whether the validators accept the model; when they do, its rendered server block reads
    back with exactly these values; when they refuse, the refusal names a field we filled."""
    data = {
        "policy": POLICY,
        "sites": [{"domains": domains, "certificates": [{"cert": cert, "key": key}], "root": cert}],
    }
    try:
        model = GeneratorConfig.model_validate(data)
    except pydantic.ValidationError as refused:
        fields = {error["loc"][2] for error in refused.errors()}
        assert fields <= {"domains", "certificates", "root"}, refused
        return False
    files = render(make_plan(model, TARGET))
    name = f"{model.sites[0].primary}.ssl.conf"
    directives = _server(parse(files[name], tmp, name))
    assert directives["server_name"] == [domains]
    assert directives["ssl_certificate"] == [[cert]]
    assert directives["ssl_certificate_key"] == [[key]]
    assert directives["root"] == [[cert]]
    assert directives["listen"] == [["443", "ssl"], ["[::]:443", "ssl"]]
    return True


def test_valid_values_round_trip(tmp_path: Path) -> None:
    """Each case the validators refuse is thrown away (assume) and replaced: every one of the
    200 cases hypothesis counts is a round trip checked."""
    checked = 0

    @settings(max_examples=200, deadline=None, database=None)
    @given(
        domains=st.lists(host, min_size=1, max_size=3, unique=True), cert=path_text, key=path_text
    )
    def one(domains: list[str], cert: str, key: str) -> None:
        nonlocal checked
        assume(_check(domains, cert, key, tmp_path))
        checked += 1

    one()
    assert checked >= 200, checked


def test_arbitrary_text_is_refused_or_round_trips(tmp_path: Path) -> None:
    """Arbitrary text (and, for half the sites, a well-formed name with arbitrary paths) is
    refused naming a field we filled, or round-trips; the run must meet both."""
    outcomes: Counter[bool] = Counter()

    @settings(max_examples=300, deadline=None, database=None)
    @given(domain=st.one_of(anything, host), cert=anything, key=anything)
    def one(domain: str, cert: str, key: str) -> None:
        outcomes[_check([domain], cert, key, tmp_path)] += 1

    one()
    assert outcomes[True] >= 20 and outcomes[False] >= 100, outcomes  # about 45 and 255 seen
