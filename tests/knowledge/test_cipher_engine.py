"""The cipher engine against the real `openssl ciphers` of OpenSSL 3.0 (Debian 12), 3.5 (13) and
4.0.3 (built from the openssl-src crate: it reads every word in any letter case).

Element by element: the ordered list, refusals, and the usable subset (`-s`).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.ciphers.engine import evaluate, evaluate_ciphersuites
from nginxgen.ciphers.model import CipherModel, load_model
from tests.builds import Build
from tests.paths import CORPUS, GUIDELINES

MODELS = {"bookworm": "openssl-3.0", "trixie": "openssl-3.5", "openssl40": "openssl-4.0"}

FROM_THE_ISSUE = [
    "ALL:!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP",
    "ALL:!ADH:!EXP:!LOW:!RC2:!3DES:!SEED:!RC4:+HIGH:+MEDIUM",
    "ALL:!ADH:!EXP:!LOW:!RC2:!3DES:!SEED:!AES256:!DH:RC4+RSA:+HIGH:+MEDIUM",
    "HIGH:!aNULL:!MD5",
    "EECDH+ECDSA+AESGCM:EECDH+aRSA+AESGCM:EECDH+ECDSA+SHA384:EECDH+ECDSA+SHA256:"
    "EECDH+aRSA+SHA384:EECDH+aRSA+SHA256:EECDH+aRSA+RC4:EECDH:EDH+aRSA:RC4:!aNULL:!eNULL:"
    "!LOW:!3DES:!MD5:!EXP:!PSK:!SRP:!DSS",
    "AES:ALL:!EXP:!LOW:!RC2:!3DES:!aNULL:!eNULL:+RC4:@STRENGTH",
    "RC4-SHA:AES+DH:!ADH",
    "HIGH:!ADH:!MD5:@STRENGTH",
    "DEFAULT",
    "ALL:COMPLEMENTOFALL",
    "DEFAULT:!kRSA:@SECLEVEL=3",
    "SUITEB128",
    "SUITEB128ONLY",
    # letter case: OpenSSL 4.0 reads these as HIGH, kECDHE, ADH, AECDH and the suite names
    "high:!anull",
    "kECDHe:aDH",
    "aECDH:ecdhe-rsa-aes128-gcm-sha256",
    "ECDHE-RSA-AES128-SHA256:!AES256-SHA:!kECDHe",
    "default:!aRSA:@seclevel=3",
    "Suiteb128only",
    "HIGH:@strength",
    # strength bits are a mask, not a set (the fuzzer's finds): the first word with them drops a
    # COMPLEMENTOFDEFAULT before it, two words keep the bits both have, a suite's name has its own
    "COMPLEMENTOFDEFAULT+HIGH",
    "HIGH+COMPLEMENTOFDEFAULT",
    "COMPLEMENTOFDEFAULT+ECDHE+HIGH",
    "COMPLEMENTOFDEFAULT+FIPS",
    "FIPS+HIGH",
    "COMPLEMENTOFDEFAULT+RSA-PSK-CHACHA20-POLY1305",
    "COMPLEMENTOFDEFAULT+ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256+COMPLEMENTOFDEFAULT",
    "MEDIUM+ECDHE-RSA-AES128-GCM-SHA256",
]


def corpus_strings() -> list[str]:
    found: set[str] = set()
    pattern = re.compile(r"""\bssl_ciphers\s+(?:"([^"]*)"|'([^']*)'|([^;\s]+))""")
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file():
            text = path.read_text(errors="replace")
            found.update(
                next(g for g in m.groups() if g is not None) for m in pattern.finditer(text)
            )
    return sorted(found)


def mozilla_strings() -> list[str]:
    found: set[str] = set()
    for path in sorted(GUIDELINES.glob("*.json")):
        for config in json.loads(path.read_text())["configurations"].values():
            found.add(":".join(config["ciphers"]["openssl"]))
    return sorted(s for s in found if s)


def real(build: Build, text: str, usable: bool = False) -> list[str] | None:
    args = ["ciphers", *(["-s"] if usable else []), "-ciphersuites", "", "--", text]
    done = build.openssl(*args)
    if done.returncode != 0:
        return None
    out = done.stdout.strip()
    return out.split(":") if out else []


def ours(model: CipherModel, text: str, usable: bool = False) -> list[str] | None:
    result = evaluate(text, model)
    if result.error:
        return None
    if usable:
        return [s.name for s in result.usable()]
    return result.names


def assert_same(build: Build, text: str) -> None:
    model = load_model(MODELS[build.name])
    assert ours(model, text) == real(build, text), f"{model.name}: {text!r}"
    assert ours(model, text, usable=True) == real(build, text, usable=True), (
        f"{model.name} -s: {text!r}"
    )


BUILDS = pytest.mark.parametrize("build", list(MODELS), indirect=True)


@BUILDS
@pytest.mark.parametrize("text", FROM_THE_ISSUE)
def test_strings_from_real_configs(build: Build, text: str) -> None:
    assert_same(build, text)


@BUILDS
def test_every_corpus_string(build: Build) -> None:
    strings = corpus_strings()
    assert len(strings) >= 5, "the corpus has ssl_ciphers lines"
    for text in strings:
        assert_same(build, text)


@BUILDS
def test_mozilla_lists(build: Build) -> None:
    strings = mozilla_strings()
    assert len(strings) >= 3, "one list per Mozilla profile"
    for text in strings:
        assert_same(build, text)


# The grammar: aliases, suite names, unknown words, prefixes, `+` joins, @ commands, separators
# and the odd character outside the alphabet.
WORDS = sorted(load_model("openssl-3.5").aliases)
WORDS = [w for w in WORDS if not w.startswith("_")]
SUITES = [s.name for s in load_model("openssl-3.5").suites]
word = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(SUITES),
    st.sampled_from(WORDS + SUITES).map(str.lower),
    st.sampled_from(WORDS + SUITES).map(str.swapcase),
    st.sampled_from(["aDH", "aECDH", "kECDHe", "kECDHr", "kDHr", "kDHd", "aGOST01"]),
    st.sampled_from(["DEFAULT", "EXP", "EXPORT", "SSLv2", "TLSv1.3", "FOO", "aGOST", "kGOST"]),
    st.sampled_from(["TLS_AES_128_GCM_SHA256", "eNULL", "LOW", "MEDIUM"]),
)
element = st.one_of(
    st.builds(
        lambda prefix, words: prefix + "+".join(words),
        st.sampled_from(["", "", "!", "-", "+"]),
        st.lists(word, min_size=1, max_size=3),
    ),
    st.sampled_from(["@STRENGTH", "@SECLEVEL=0", "@SECLEVEL=1", "@SECLEVEL=3", "@SECLEVEL=5"]),
    st.sampled_from(["@STRENGTHX", "+", "!", "_x", "#", "@", "RC4+"]),
)
cipher_string = st.builds(
    lambda first, rest: first + "".join(sep + e for sep, e in rest),
    element,
    st.lists(st.tuples(st.sampled_from([":", ":", ":", ",", " ", ";", "::"]), element), max_size=8),
)


@BUILDS
@settings(
    max_examples=500,  # per build: the test run's share, within CI's half hour
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=cipher_string)
def test_generated_strings(build: Build, text: str) -> None:
    model = load_model(MODELS[build.name])
    assert ours(model, text) == real(build, text), f"{model.name}: {text!r}"


@BUILDS
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=cipher_string)
def test_generated_strings_usable_subset(build: Build, text: str) -> None:
    model = load_model(MODELS[build.name])
    assert ours(model, text, usable=True) == real(build, text, usable=True), text


@BUILDS
@pytest.mark.parametrize(
    "text",
    [
        "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256",
        "TLS_AES_256_GCM_SHA384:NOPE:TLS_AES_128_CCM_8_SHA256",
        "NOPE",
        "TLS_AES_128_GCM_SHA256:TLS_AES_128_GCM_SHA256",
    ],
)
def test_tls13_ciphersuites(build: Build, text: str) -> None:
    model = load_model(MODELS[build.name])
    result = evaluate_ciphersuites(text, model)
    done = build.openssl("ciphers", "-ciphersuites", text, "-tls1_3", "-s")
    if done.returncode != 0:
        assert result.error is not None
        return
    expected = [n for n in done.stdout.strip().split(":") if n.startswith("TLS_")]
    assert [s.name for s in result.usable()] == expected


def test_the_30_to_35_difference_is_data() -> None:
    """CCM8 is HIGH in 3.0 and MEDIUM (64 strength bits) in 3.5: only the tables differ."""
    old, new = load_model("openssl-3.0"), load_model("openssl-3.5")
    assert len(evaluate("HIGH:!ADH:!MD5:@STRENGTH", old).suites) == 127
    assert len(evaluate("HIGH:!ADH:!MD5:@STRENGTH", new).suites) == 117
    changed = {
        s.name
        for s in new.suites
        if (s.strength, s.strength_bits)
        != (old.by_name[s.name].strength, old.by_name[s.name].strength_bits)
    }
    assert changed and all("CCM8" in name for name in changed)


@pytest.mark.parametrize("name", ["openssl-3.0", "openssl-3.5", "openssl-4.0"])
def test_each_alias_has_the_suites_that_match_it(name: str) -> None:
    """The indexed alias sets (a lint's start-up) against each suite tested alias by alias."""
    from nginxgen.ciphers.model import _alias, _data

    model = load_model(name)
    universe = {
        key: {getattr(s, key) for s in model.suites}
        for key in ("kx", "au", "enc", "mac", "strength")
    }
    checked = 0
    for alias_name in model.aliases:
        alias = _alias(alias_name, _data()["aliases"][alias_name], universe)
        scanned = frozenset(s.name for s in model.suites if alias.matches(s))
        assert model.aliases[alias_name] == scanned, alias_name
        checked += bool(scanned)
    assert checked >= 40  # most aliases match some suite: the sets are not all empty
