"""Strategies for generator input: mostly models the validators should accept, with enough
unusual and wrong values mixed in that refusals are exercised too, for assorted targets."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from nginxgen.base.sockets import normalize_socket
from nginxgen.ciphers import suites as cipher_suites

# Targets with a real build (nginx -t runs there) and library families without one.
TARGETS = (
    ("1.22.1", "openssl-3.0.22"),
    ("1.26.3", "openssl-3.5.7"),
    ("1.31.3", "openssl-3.3.7"),
    ("1.18.0", "openssl-1.1.1w"),
    ("1.27.4", "boringssl"),
    ("1.29.2", "aws-lc-1.40.0"),
    ("1.25.5", "libressl-4.3.0"),
    ("1.24.0", "quictls-3.1.5"),
)
PROTOCOLS = ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3")
STRONG_CIPHERS = (
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    "DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384", "DHE-RSA-CHACHA20-POLY1305",
)  # fmt: skip
TLS13_SUITES = (
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_AES_128_CCM_SHA256",
)  # fmt: skip
GROUPS = (
    "X25519", "prime256v1", "secp384r1", "?X25519MLKEM768", "X25519MLKEM768",
    "?SecP256r1MLKEM768", "SecP384r1MLKEM1024", "MLKEM768", "X448", "secp256r1", "P-256",
    "P-384", "secp521r1", "ffdhe2048", "X25519Kyber768Draft00", "brainpoolP256r1", "x25519",
    "?NoSuchGroup", "NoSuchGroup",
)  # fmt: skip
SWITCH = st.sampled_from(("auto", "auto", "off", "on"))
PORTABLE_GROUPS = GROUPS[:4]

_label = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
_host = st.builds(lambda parts: ".".join(parts), st.lists(_label, min_size=1, max_size=3))
_domain = _host | _host.map(lambda h: "*." + h)
_plain_path = st.from_regex(r"/[A-Za-z0-9_./-]{1,30}", fullmatch=True)
# Spaces, non-ASCII and the like are fine in a path (they get quoted); these characters are
# refused by the model, and JUNK brings them in.
_odd_path = st.text(
    alphabet=st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters=";{}\"'#$\\"
    ),
    min_size=1,
).map(lambda s: "/" + s)
_path = st.one_of(_plain_path, _plain_path, _plain_path, _odd_path)
_port = st.integers(1, 65535).map(str)
_socket = st.one_of(
    _port,
    _port.map(lambda p: f"127.0.0.1:{p}"),
    _port.map(lambda p: f"[::]:{p}"),
    _port.map(lambda p: f"[::1]:{p}"),
    st.sampled_from(("443", "[::]:443", "*:443", "8443", "unix:/run/x.sock")),
)
# Values no field should take: each corrupt case puts one of them into one field.
JUNK = st.one_of(
    st.text(max_size=12),
    st.sampled_from(("", "999999", "1x", "big", "a b", "x;y", "{", "$host", "\n", "-1")),
    st.integers(-5, 10**7),
    st.none(),
    st.lists(st.text(max_size=4), max_size=2),
)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def _policy(draw: st.DrawFn) -> dict[str, Any]:
    suite_names = st.sampled_from(STRONG_CIPHERS) | st.sampled_from(sorted(cipher_suites.suites()))
    strong_only = draw(st.integers(0, 4)) != 2
    ciphers = st.sampled_from(STRONG_CIPHERS) if strong_only else suite_names
    groups = st.sampled_from(GROUPS)
    modern = st.lists(st.sampled_from(PROTOCOLS[2:]), min_size=1, max_size=2, unique=True)
    any_protocols = st.lists(st.sampled_from(PROTOCOLS), min_size=1, max_size=4, unique=True)
    protocols = draw(st.one_of(modern, modern, modern, any_protocols))
    legacy = bool({"TLSv1", "TLSv1.1"} & set(protocols))
    cipher_list = draw(
        st.lists(ciphers, min_size=protocols != ["TLSv1.3"], max_size=6, unique=True)
    )
    dhe = any(name.startswith("DHE-") for name in cipher_list)
    policy: dict[str, Any] = {
        "protocols": protocols,
        "ciphers": cipher_list,
        "seclevel": 0
        if legacy and draw(st.integers(0, 4)) != 2
        else draw(_maybe(st.integers(0, 1))),
        "ciphersuites": draw(
            st.just([]) | st.lists(st.sampled_from(TLS13_SUITES), max_size=3, unique=True)
        ),
        "groups": draw(
            st.one_of(
                st.lists(st.sampled_from(PORTABLE_GROUPS), min_size=1, max_size=4, unique=True),
                st.lists(groups, min_size=1, max_size=4, unique_by=lambda g: g.lstrip("?").lower()),
            )
        ),
        "pq_enforce": draw(SWITCH),
        "server_preference": draw(st.booleans()),
        "prioritize_chacha": draw(SWITCH),
        "session": {
            "cache_size_mb": draw(_maybe(st.integers(1, 64))),
            "timeout": draw(st.sampled_from(("1d", "4h", "600s", "10m"))),
            "tickets": draw(SWITCH),
        },
        "ktls": draw(SWITCH),
        "early_data": draw(st.booleans()),
        "ocsp_stapling": draw(st.booleans()),
        "ocsp_trusted_certificate": draw(_maybe(_path)),
        "resolver": draw(st.lists(st.sampled_from(("1.1.1.1", "9.9.9.9", "[2606::1]")))),
        "dhparam": "/etc/nginx/dhparam.pem" if dhe != (draw(st.integers(0, 9)) == 7) else None,
        "buffer_size": draw(_maybe(st.sampled_from(("4k", "16k", "1m")))),
        "keepalive": {
            "timeout": draw(st.integers(1, 3600)),
            "requests": draw(st.integers(100, 10_000)),
        },
    }
    if policy["ocsp_stapling"] and not policy["resolver"] and draw(st.booleans()):
        policy["resolver"] = ["1.1.1.1"]
    return policy


@st.composite
def _site(draw: st.DrawFn) -> dict[str, Any]:
    # a max_age under six months is refused (Hsts): drawn for one site in ten, as with two in
    # five every third case was refused for it alone and few reached nginx -t
    short = draw(st.integers(0, 9)) == 7
    ages = (0, 86400) if short else (15768000, 31536000, 63072000)
    hsts = draw(
        _maybe(
            st.fixed_dictionaries(
                {"max_age": st.sampled_from(ages), "include_subdomains": st.booleans()}
            )
        )
    )
    if hsts and hsts["include_subdomains"] and hsts["max_age"] >= 31536000:
        hsts["preload"] = draw(st.booleans())
    site: dict[str, Any] = {
        "domains": draw(st.lists(_domain, min_size=1, max_size=3, unique=True)),
        "certificates": draw(
            st.lists(st.fixed_dictionaries({"cert": _path, "key": _path}), min_size=1, max_size=2)
        ),
        "http2": draw(st.booleans()),
        "http3": draw(st.integers(0, 7)) == 3,  # one in eight: builds without HTTP/3 refuse it
        "redirect": draw(st.booleans()),
        "root": draw(_path),
        "hsts": hsts,
    }
    if draw(st.booleans()):
        sockets = draw(st.lists(_socket, min_size=1, max_size=4, unique_by=normalize_socket))
        cut = draw(st.integers(1, len(sockets)))
        site["listen"], site["http_listen"] = sockets[:cut], sockets[cut:]
    if draw(st.integers(0, 2)) == 2:
        site["upstream"] = draw(_upstream())
    if draw(st.integers(0, 2)) == 2:
        site["client_certificates"] = draw(_client_certificates)
    return site


_backend_port = st.integers(1, 65535)
# hosts nginx -t can resolve (it resolves a backend's name when it reads the config), and
# addresses, which need a name to verify
_backend = st.one_of(
    _backend_port.map(lambda p: ("localhost", f"localhost:{p}")),
    _backend_port.map(lambda p: ("127.0.0.1", f"127.0.0.1:{p}")),
    _backend_port.map(lambda p: ("[::1]", f"[::1]:{p}")),
    st.just(("localhost", "localhost")),
)


@st.composite
def _backend_tls(draw: st.DrawFn, address: bool) -> dict[str, Any]:
    tls: dict[str, Any] = {
        "trusted_certificate": draw(st.sampled_from(("system", "system")) | _path),
        "verify_depth": draw(st.integers(0, 33)),
        # `on` is refused off OpenSSL >= 3.5: drawn less, so that more cases render
        "post_quantum": draw(st.sampled_from(("auto", "auto", "auto", "off", "on"))),
        "session_reuse": draw(st.booleans()),
    }
    if address or draw(st.booleans()):
        tls["name"] = draw(_host)
    return tls


@st.composite
def _upstream(draw: st.DrawFn) -> dict[str, Any]:
    host, hostport = draw(_backend)
    scheme = draw(st.sampled_from(("https", "https", "grpcs")))
    path = draw(st.sampled_from(("", "/", "/app/"))) if scheme == "https" else ""
    upstream = draw(_backend_tls(address=host != "localhost"))
    upstream["url"] = f"{scheme}://{hostport}{path}"
    upstream["keepalive"] = draw(st.integers(0, 20))
    return upstream


_client_certificates = st.fixed_dictionaries(
    {
        "ca": _path,
        "verify": st.sampled_from(("required", "optional")),
        "depth": st.integers(0, 33),
        "crl": _maybe(_path),
        "ocsp": st.sampled_from(("off", "off", "off", "off", "on", "leaf")),
    }
)


@st.composite
def _stream(draw: st.DrawFn) -> dict[str, Any]:
    host, hostport = draw(_backend)
    unix = draw(st.integers(0, 5)) == 5
    stream: dict[str, Any] = {
        "name": draw(_host),
        "listen": [f"127.0.0.1:{draw(st.integers(1, 65535))}"],
        "certificates": draw(
            st.lists(st.fixed_dictionaries({"cert": _path, "key": _path}), min_size=1, max_size=2)
        ),
        "backend": "unix:/run/backend.sock"
        if unix
        else f"{hostport}:5432"
        if ":" not in hostport.removeprefix("[::1]")
        else hostport,
    }
    if draw(st.booleans()):
        stream["backend_tls"] = draw(_backend_tls(address=unix or host != "localhost"))
    return stream


def _corrupt(draw: st.DrawFn, data: dict[str, Any]) -> None:
    """Put a junk value into one field, anywhere in the tree."""
    node: Any = data
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            node = child
            continue
        node[key] = draw(JUNK)
        return


@st.composite
def generator_case(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[str, str]]:
    data = {
        "policy": draw(_policy()),
        "sites": draw(
            st.lists(_site(), min_size=1, max_size=3, unique_by=lambda s: s["domains"][0])
        ),
        "streams": draw(st.lists(_stream(), max_size=2, unique_by=lambda s: s["name"])),
        "default_server": {"reject_unknown_names": draw(st.booleans())},
        "comments": draw(st.booleans()),
    }
    if draw(st.integers(0, 4)) == 3:  # not 0: hypothesis draws zero far more often than 1 in 5
        _corrupt(draw, data)
    return data, draw(st.sampled_from(TARGETS))
