"""Strategies for nginx configuration trees a linter in pre-commit may meet: real configs and
mutations of them, random token streams, include loops and fan-outs, odd bytes and encodings."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from hypothesis import strategies as st

from tests.paths import example_and_corpus_files

MAX_SEED_BYTES = 64 * 1024  # keeps a case fast; the 20 MB input has its own test


@dataclass(frozen=True)
class Tree:
    """Files to write under a fresh folder, the one to lint, and the one a mutation touched
    (syntax errors may only be reported there: every other file is valid by construction)."""

    files: dict[str, bytes]
    main: str
    mutated: str | None = None


@functools.cache
def seed_texts() -> tuple[bytes, ...]:
    """Real configs to mutate: every example we ship and the shared corpus when it is beside us.
    Only files that parse cleanly are seeds, so any syntax error comes from the mutation."""
    from nginxgen.conf.load import _parse_text

    seeds = []
    for path in example_and_corpus_files():
        data = path.read_bytes()
        if len(data) > MAX_SEED_BYTES or b"\x00" in data or path.name == "README.md":
            continue
        text = data.decode("utf-8", errors="surrogateescape")
        if "include" in text or _parse_text(text, str(path))[1]:
            continue  # includes would point at files the tree does not have
        seeds.append(data)
    return tuple(seeds)


DIRECTIVES = (
    "http",
    "server",
    "location",
    "events",
    "upstream",
    "if",
    "map",
    "listen",
    "server_name",
    "ssl_certificate",
    "ssl_certificate_key",
    "ssl_protocols",
    "ssl_ciphers",
    "ssl_ecdh_curve",
    "ssl_conf_command",
    "ssl_session_cache",
    "ssl_session_timeout",
    "ssl_session_tickets",
    "ssl_session_ticket_key",
    "ssl_early_data",
    "ssl_stapling",
    "ssl_stapling_verify",
    "ssl_trusted_certificate",
    "ssl_prefer_server_ciphers",
    "ssl_dhparam",
    "ssl_reject_handshake",
    "ssl",
    "http2",
    "add_header",
    "add_header_inherit",
    "return",
    "root",
    "proxy_pass",
    "resolver",
    "keepalive_timeout",
    "keepalive_requests",
    "sendfile",
    "include",
    "ssl_key_log",
)
ARGUMENTS = (
    "on",
    "off",
    "443",
    "*:443",
    "[::]:443",
    "443 ssl",
    "ssl",
    "http2",
    "default_server",
    "quic",
    "TLSv1",
    "TLSv1.1",
    "TLSv1.2",
    "TLSv1.3",
    "SSLv3",
    "X25519",
    "X25519MLKEM768",
    "X25519MLKEM768/X25519",
    "?X25519MLKEM768",
    "*X25519",
    "secp256r1",
    "prime256v1",
    "X25519Kyber768Draft00",
    "HIGH:!aNULL:!MD5",
    "ALL:RC4",
    "@SECLEVEL=0",
    "DEFAULT",
    "shared:SSL:10m",
    "builtin",
    "none",
    "1d",
    "0",
    "Groups",
    "Ciphersuites",
    "Options",
    "KTLS",
    "PrioritizeChaCha",
    "Strict-Transport-Security",
    "max-age=31536000",
    "always",
    "example.com",
    "/etc/ssl/a.pem",
    "$host",
    "${var}",
    "~*",
    "=",
    "/",
    "444",
    "301",
)
PUNCTUATION = ("{", "}", ";", '"', "'", "\\", "#", "\n", "\x00", "$", "{{", "}}", ";;")

_word = st.sampled_from(DIRECTIVES) | st.sampled_from(ARGUMENTS)
_odd_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
)
_quoted = _odd_text.map(lambda s: '"' + s.replace('"', '\\"') + '"') | _odd_text.map(
    lambda s: "'" + s + "'"
)
_comment = _odd_text.map(lambda s: "# " + s.replace("\n", " ") + "\n")
token = st.one_of(_word, _word, _word, st.sampled_from(PUNCTUATION), _quoted, _comment, _odd_text)
separator = st.sampled_from((" ", " ", "\n", "\t", "\r\n", ""))


@st.composite
def token_stream(draw: st.DrawFn) -> bytes:
    tokens = draw(st.lists(token, max_size=120))
    return "".join(t + draw(separator) for t in tokens).encode("utf-8", "surrogateescape")


# --- mutations -------------------------------------------------------------------------------


def _splice(data: bytes, at: int, remove: int, insert: bytes) -> bytes:
    return data[:at] + insert + data[at + remove :]


@st.composite
def _mutation(draw: st.DrawFn, data: bytes) -> bytes:
    at = draw(st.integers(0, len(data)))
    kind = draw(
        st.sampled_from(
            (
                "drop-char",
                "double-char",
                "insert",
                "delete-span",
                "duplicate-span",
                "huge-argument",
                "deep-nesting",
                "encoding",
                "bytes",
                "truncate",
            )
        )
    )
    if kind == "drop-char":
        # Braces, semicolons and quotes are what a half-written config loses first.
        spots = [i for i, b in enumerate(data) if b in b"{};\"'"]
        if spots:
            at = draw(st.sampled_from(spots))
        return _splice(data, at, 1, b"")
    if kind == "double-char":
        spots = [i for i, b in enumerate(data) if b in b"{};\"'"] or [0]
        at = min(draw(st.sampled_from(spots)), max(len(data) - 1, 0))
        return _splice(data, at, 0, data[at : at + 1])
    if kind == "insert":
        piece = draw(st.sampled_from(PUNCTUATION) | token)
        return _splice(data, at, 0, piece.encode("utf-8", "surrogateescape"))
    if kind == "delete-span":
        return _splice(data, at, draw(st.integers(1, 200)), b"")
    if kind == "duplicate-span":
        length = draw(st.integers(1, 400))
        return _splice(data, at, 0, data[at : at + length])
    if kind == "huge-argument":
        size = draw(st.sampled_from((4096, 65536, 1 << 20)))
        quote = draw(st.sampled_from((b"", b'"')))
        return _splice(data, at, 0, b" add_header X " + quote + b"a" * size + quote + b";\n")
    if kind == "deep-nesting":
        depth = draw(st.integers(1, 5000))
        closing = depth if draw(st.booleans()) else draw(st.integers(0, depth))
        return _splice(data, at, 0, b"location / {" * depth + b"}" * closing)
    if kind == "encoding":
        codec = draw(st.sampled_from(("utf-16", "utf-16-le", "latin-1", "utf-8-sig", "cp1252")))
        text = data.decode("utf-8", "surrogateescape")
        return text.encode(codec, errors="replace")
    if kind == "bytes":
        return _splice(data, at, 0, draw(st.binary(min_size=1, max_size=16)))
    return data[:at]


@st.composite
def mutated(draw: st.DrawFn, data: bytes, max_mutations: int = 4) -> bytes:
    for _ in range(draw(st.integers(1, max_mutations))):
        data = draw(_mutation(data))
    return data


# --- trees -----------------------------------------------------------------------------------


@functools.cache
def http_seed_texts() -> tuple[bytes, ...]:
    """Seeds that also parse cleanly inside http{}: `server x;` is a line of an upstream{}
    snippet and a syntax error where include_tree puts its bodies."""
    from nginxgen.conf.load import _parse_text

    def clean(data: bytes) -> bool:
        text = data.decode("utf-8", errors="surrogateescape")
        return not _parse_text(f"events {{}}\nhttp {{\n{text}\n}}\n", "nginx.conf")[1]

    return tuple(seed for seed in seed_texts() if clean(seed))


_seed = st.deferred(lambda: st.sampled_from(seed_texts()) if seed_texts() else token_stream())
_http_seed = st.deferred(
    lambda: st.sampled_from(http_seed_texts()) if http_seed_texts() else token_stream()
)


@st.composite
def single_file(draw: st.DrawFn) -> Tree:
    source = draw(st.one_of(token_stream(), _seed.flatmap(mutated)))
    return Tree({"nginx.conf": source}, "nginx.conf", "nginx.conf")


@st.composite
def include_tree(draw: st.DrawFn) -> Tree:
    """A main file including others that include each other: cycles, self-includes, globs that
    match the includer, missing files, fan-outs; one file may then be mutated."""
    count = draw(st.integers(1, 5))
    names = [f"conf.d/f{i}.conf" for i in range(count)]
    targets = st.sampled_from([*names, "nginx.conf", "conf.d/*.conf", "conf.d/missing.conf", "*"])
    files: dict[str, bytes] = {}
    for name in ["nginx.conf", *names]:
        includes = draw(st.lists(targets, max_size=3))
        body = draw(_http_seed) if draw(st.booleans()) else b"server { listen 443 ssl; }\n"
        lines = [f"include {t};\n".encode() for t in includes]
        if name == "nginx.conf":
            files[name] = b"events {}\nhttp {\n" + b"".join(lines) + body + b"\n}\n"
        else:
            files[name] = b"".join(lines) + body
    mutated_name = None
    if draw(st.booleans()):
        mutated_name = draw(st.sampled_from(sorted(files)))
        files[mutated_name] = draw(mutated(files[mutated_name], max_mutations=2))
    return Tree(files, "nginx.conf", mutated_name)


@st.composite
def fan_out_tree(draw: st.DrawFn) -> Tree:
    """Each level includes the next several times: nginx would expand it exponentially (kept
    small here to keep cases fast; test_lint_inputs has the one that reaches the limit)."""
    levels, width = draw(st.integers(2, 8)), draw(st.integers(2, 3))
    files = {f"l{i}.conf": f"include l{i + 1}.conf;\n".encode() * width for i in range(levels)}
    files[f"l{levels}.conf"] = b"server { listen 443 ssl; ssl_ecdh_curve X25519; }\n"
    files["nginx.conf"] = b"events {}\nhttp {\ninclude l0.conf;\n}\n"
    return Tree(files, "nginx.conf", None)


# Any of the above, single files twice as often.
trees = st.one_of(single_file(), single_file(), include_tree(), fan_out_tree())
