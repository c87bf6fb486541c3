"""Real `nginx -t` as the oracle for values (issue 36): one TLS-relevant directive with a drawn
value, in a config that is otherwise valid on the build, against lint with that build's target.

The words come from tests/data/value_vocabulary.json (scripts/build_value_vocabulary.py: nginx's
`ngx_command_t` entries, enum and bitmask tables, bounds and custom setters' literals at each
release tag; OpenSSL's and AWS-LC's name tables; the builds' own openssl binaries), never from
nginxgen's knowledge: an oracle must not share what it checks. Each case is a valid value or a
near miss (case, separator, typo, unit, bound, a name of another library or nginx release, a
context the directive does not allow), drawn from a random.Random seeded per case.

A disagreement: nginx refuses the config and lint has no error on the case's line, or nginx
reads it to "syntax is ok" and lint has an error on that line.
"""

from __future__ import annotations

import atexit
import functools
import json
import random
import re
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.fuzzing.generate_check import build_target, real_files
from tests.fuzzing.grammar import nginx_refuses
from tests.paths import DATA

VOCABULARY = DATA / "value_vocabulary.json"
# the contexts a case is written in: the http and stream blocks the issue names
CONTEXTS = ("http", "server", "location", "stream", "stream_server")
STREAM = ("stream", "stream_server")
ALL_RULES = Selection()
Entry = dict[str, Any]


@functools.cache
def vocabulary() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VOCABULARY.read_text())
    return data


def release_for(version: str) -> str:
    """The vocabulary's release for a build: its own, else the newest one before it."""
    releases = sorted(vocabulary()["nginx"], key=_version_key)
    older = [r for r in releases if _version_key(r) <= _version_key(version)]
    return str(older[-1] if older else releases[0])


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


# --- the config around a case ----------------------------------------------------------------

SKELETON = """\
events {}
http {
    access_log off;
    @http
    server {
        listen 127.0.0.1:8443 ssl;
        server_name example.test;
        ssl_certificate CERT;
        ssl_certificate_key KEY;
        @server
        location / {
            @location
            return 204;
        }
    }
}
"""
STREAM_SKELETON = """\
stream {
    @stream
    server {
        listen 127.0.0.1:9443 ssl;
        ssl_certificate CERT;
        ssl_certificate_key KEY;
        proxy_pass 127.0.0.1:9;
        @stream_server
    }
}
"""


@dataclass(frozen=True)
class Skeleton:
    """A build's config around a case, every build reading it to "syntax is ok"."""

    text: str
    contexts: tuple[str, ...]  # the contexts it has a place for (stream only with the module)

    def render(self, context: str, line: str) -> tuple[str, int]:
        """The config with the case's line in that context, and that line's number."""
        text = self.text
        for name in CONTEXTS:
            text = text.replace(f"@{name}\n", "\0\n" if name == context else "")
        number = text.split("\0")[0].count("\n") + 1  # the case's own line, not an equal one
        return text.replace("\0", line), number


def skeleton(build: Build, folder: Path) -> Skeleton:
    """The skeleton for this build; stream only where the build has the stream module."""
    pair = real_files().certificates[0]
    text = SKELETON
    contexts: tuple[str, ...] = ("http", "server", "location")
    with_stream = text + STREAM_SKELETON
    if nginx_refuses(build, _write(folder, _blank(with_stream, pair))) is None:
        text, contexts = with_stream, CONTEXTS
    text = _blank(text, pair, keep_marks=True)
    plain = _blank(text, pair)
    refused = nginx_refuses(build, _write(folder, plain))
    if refused is not None:
        raise RuntimeError(f"harness: the skeleton fails on {build.name}: {refused}")
    errors = _lint_errors(build, _write(folder, plain))
    if errors:
        raise RuntimeError(f"harness: lint finds errors in the skeleton on {build.name}: {errors}")
    return Skeleton(text, contexts)


def _blank(text: str, pair: dict[str, str], keep_marks: bool = False) -> str:
    text = text.replace("CERT;", f"{pair['cert']};").replace("KEY;", f"{pair['key']};")
    return text if keep_marks else re.sub(r"^\s*@\w+\n", "", text, flags=re.M)


def _write(folder: Path, text: str) -> Path:
    conf = folder / "nginx.conf"
    conf.write_text(text)
    return conf


def _lint_errors(build: Build, conf: Path) -> list[tuple[int, str]]:
    findings = lint(load_path(str(conf)), build_target(build), ALL_RULES, build_fixes=False)
    return [(f.line, f"{f.code} {f.message}") for f in findings if f.severity == "error"]


# --- drawing values --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    directive: str
    args: tuple[str, ...]
    context: str
    kind: str  # how the value was drawn: valid, case, separator, typo, unit, bound, ...

    @property
    def line(self) -> str:
        return " ".join((self.directive, *(_quoted(a) for a in self.args))) + ";"


def _quoted(arg: str) -> str:
    if arg == "" or re.search(r"[\s;{}#'\"]", arg):
        return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return arg


def typo(rng: random.Random, word: str) -> str:
    if not word:
        return "x"
    i = rng.randrange(len(word))
    how = rng.choice(("drop", "double", "swap", "replace"))
    if how == "drop" and len(word) > 1:
        return word[:i] + word[i + 1 :]
    if how == "double":
        return word[: i + 1] + word[i:]
    if how == "swap" and i + 1 < len(word):
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + rng.choice("aeio01_-.") + word[i + 1 :]


def recase(rng: random.Random, word: str) -> str:
    how = rng.choice((str.upper, str.lower, str.title, str.swapcase))
    changed = how(word)
    return changed if changed != word else word.swapcase()


TIMES_VALID = ("10s", "30", "1m", "1h", "500ms", "1d", "1w", "2M", "1y", "1h 30m", "0", "75s")
TIMES_NEAR = ("10S", "1H", "10sec", "10 s", "1.5s", "-1", "abc", "s", "1mo", "99999999999y",
              "1m1", "10secs", "")  # fmt: skip
SIZES_VALID = ("1k", "16k", "4096", "8K", "1m", "10M", "0", "1g", "512")
SIZES_NEAR = ("10mb", "1kb", "1.5k", "-1", "1 k", "k", "10 m", "99999999999999999999k", "1t",
              "abc", "")  # fmt: skip
NUMBERS_NEAR = ("-1", "99999999999999999999", "10k", "1.5", "abc", "0x10", "+5", "", "1e3")
FLAGS_NEAR = ("On", "OFF", "yes", "no", "1", "0", "true", "onn", "of", "")
HEADER_NAMES = ("Strict-Transport-Security", "X-Test", "X-Frame-Options", "Alt-Svc")
HEADER_VALUES = ("max-age=63072000", "max-age=63072000; includeSubDomains", "DENY", "$host", "")
ALPN = ("h2", "http/1.1", "http/1.0", "h3", "H2", "spdy/3", "h2c", "")
URLS = ("http://ocsp.example.test/", "https://ocsp.example.test/", "ocsp.example.test",
        "ftp://ocsp.example.test/", "http://", "")  # fmt: skip
# no host name but localhost: nginx looks a name up, and what DNS answers is not in the text
ADDRESSES = ("9444", "127.0.0.1:9444", "[::1]:9444", "*:9444", "localhost:9444", "70000",
             "127.0.0.1:0", "127.0.0.1", "unix:/tmp/nginxgen-value.sock", "0", "65536",
             "127.0.0.1:9444:1", "[::1]", "[::1:9444", "127.0.0.1:")  # fmt: skip
SEPARATORS = (",", ", ", ";", "|", "/")


# the values with the richest grammars (library names, custom setters) are drawn more often
RICH = re.compile(r"(_ciphers|_ecdh_curve|_conf_command|_protocols|ssl_session_cache|^listen"
                  r"|^keepalive_timeout|^add_header|^add_trailer|_verify_client|_ocsp)$")  # fmt: skip


def _weight(name: str, entries: list[Entry]) -> int:
    if RICH.search(name):
        return 4
    return 2 if any("words" in e or "literals" in e for e in entries) else 1


class Drawer:
    """Draws one case for a build from the vocabulary."""

    def __init__(self, build: Build, contexts: tuple[str, ...]) -> None:
        self.build = build
        self.contexts = contexts
        data = vocabulary()
        own = release_for(build.nginx_version)
        self.own: dict[str, list[Entry]] = data["nginx"][own]
        self.others: dict[str, list[Entry]] = {}
        for release, directives in data["nginx"].items():
            for name, entries in directives.items():
                if name not in self.own and release != own:
                    self.others.setdefault(name, entries)
        self.names = sorted(self.own)
        self.weights = [_weight(n, self.own[n]) for n in self.names]
        openssl, awslc = data["openssl"], data["aws-lc"]
        binaries = list(data.get("binaries", {}).values())
        self.groups = sorted(
            {*openssl["groups"], *awslc["groups"]}
            | {g for b in binaries for g in (*b["tls_groups"], *b["curves"])}
        )
        self.keywords: list[str] = sorted({*openssl["cipher_keywords"], *awslc["cipher_keywords"]})
        self.ciphers: list[str] = sorted({c for b in binaries for c in b["ciphers"]})
        self.openssl = openssl
        self.enums = sorted({w for ds in data["nginx"].values() for es in ds.values()
                             for e in es for w in e.get("words", ())})  # fmt: skip

    def draw(self, rng: random.Random) -> Case:
        if self.others and rng.random() < 0.08:  # a directive of another nginx release
            name = rng.choice(sorted(self.others))
            entries, suffix = self.others[name], " other-version"
        else:
            name = rng.choices(self.names, self.weights)[0]
            entries, suffix = self.own[name], ""
        entry = rng.choice(entries)
        # where any module's entry of the name allows it (ssl_verify_client: http's and stream's)
        allowed = sorted({c for e in entries for c in e["contexts"] if c in self.contexts})
        elsewhere = [c for c in self.contexts if c not in allowed]
        if elsewhere and (not allowed or rng.random() < 0.1):
            context, suffix = rng.choice(elsewhere), suffix + " context"
        else:
            context = rng.choice(allowed)
        kind, args = self.value(rng, name, entry)
        return Case(name, tuple(args), context, kind + suffix)

    # the value by setter; each returns (kind, args)
    def value(self, rng: random.Random, name: str, entry: Entry) -> tuple[str, list[str]]:
        setter = entry["setter"]
        if name.endswith("ssl_conf_command"):
            return self.conf_command(rng)
        if name.endswith("_ciphers"):
            return self.cipher_string(rng)
        if name.endswith("ssl_ecdh_curve"):
            return self.group_list(rng)
        if name == "listen":
            return self.listen(rng, entry)
        if name in ("add_header", "add_trailer"):
            return self.header(rng, entry)
        if name == "keepalive_timeout":
            return self.times(rng, rng.choice((1, 1, 2, 3)))
        if "words" in entry:
            bitmask = setter == "ngx_conf_set_bitmask_slot"
            return self.words(rng, entry["words"], bitmask)
        if setter == "ngx_conf_set_flag_slot":
            return self.one(rng, ("on", "off"), FLAGS_NEAR, "case")
        if setter == "ngx_conf_set_num_slot":
            return self.number(rng, entry.get("bounds"))
        if setter == "ngx_conf_set_size_slot":
            return self.one(rng, SIZES_VALID, SIZES_NEAR, "unit")
        if setter in ("ngx_conf_set_msec_slot", "ngx_conf_set_sec_slot"):
            return self.times(rng, 1)
        if re.search(r"(certificate|_key|dhparam|crl|_file)$", name) or "password" in name:
            return self.path(rng, name)
        if name.endswith("_responder"):
            return self.one(rng, URLS[:2], URLS[2:], "junk")
        if name.endswith("_alpn"):
            count = rng.choice(entry["args"] or [1])
            return "valid", [rng.choice(ALPN) for _ in range(max(count, 1))]
        return self.literals(rng, entry)

    def one(
        self, rng: random.Random, valid: tuple[str, ...], near: tuple[str, ...], kind: str
    ) -> tuple[str, list[str]]:
        if rng.random() < 0.5:
            return "valid", [rng.choice(valid)]
        if rng.random() < 0.3:
            return "typo", [typo(rng, rng.choice(valid))]
        return kind, [rng.choice(near)]

    def number(self, rng: random.Random, bounds: list[int] | None) -> tuple[str, list[str]]:
        low, high = bounds or (0, 100_000)
        if rng.random() < 0.5:
            return "valid", [str(rng.randint(low, min(high, low + 1000)))]
        if bounds and rng.random() < 0.5:
            return "bound", [str(rng.choice((low - 1, high + 1, low, high)))]
        return "junk", [rng.choice(NUMBERS_NEAR)]

    def times(self, rng: random.Random, count: int) -> tuple[str, list[str]]:
        near = rng.random() < 0.4
        pool = TIMES_NEAR if near else TIMES_VALID
        return ("unit" if near else "valid"), [rng.choice(pool) for _ in range(count)]

    def words(self, rng: random.Random, words: list[str], bitmask: bool) -> tuple[str, list[str]]:
        chosen = rng.sample(words, rng.randint(1, len(words)) if bitmask else 1)
        roll = rng.random()
        if roll < 0.4:
            return "valid", chosen
        if roll < 0.5:
            i = rng.randrange(len(chosen))
            return "case", [*chosen[:i], recase(rng, chosen[i]), *chosen[i + 1 :]]
        if roll < 0.62 and bitmask and len(chosen) > 1:
            return "separator", [rng.choice((*SEPARATORS, " ", ":")).join(chosen)]
        if roll < 0.75:
            i = rng.randrange(len(chosen))
            return "typo", [*chosen[:i], typo(rng, chosen[i]), *chosen[i + 1 :]]
        if roll < 0.87 and bitmask:  # protocol names of the library or of no release
            other = rng.choice((*self.openssl["min_max_protocols"], "TLSv13", "TLSv1.4",
                                "TLSv1_2", "SSLv1", "TLS1.3", "tlsv1.2"))  # fmt: skip
            return "other-library", [*chosen, other]
        return "other-table", [rng.choice(self.enums)]

    def conf_command(self, rng: random.Random) -> tuple[str, list[str]]:
        commands = self.openssl["conf_commands"]
        values: dict[str, Callable[[], str]] = {
            "Options": lambda: rng.choice(("", "-", "+")) + rng.choice(self.openssl["options"]),
            "Ciphersuites": lambda: ":".join(
                rng.sample([c for c in self.ciphers if c.startswith("TLS_")] or ["x"], 2)
            ),
            "CipherString": lambda: self.cipher_string(rng)[1][0],
            "Groups": lambda: self.group_list(rng)[1][0],
            "Curves": lambda: self.group_list(rng)[1][0],
            "MinProtocol": lambda: rng.choice(self.openssl["min_max_protocols"]),
            "MaxProtocol": lambda: rng.choice(self.openssl["min_max_protocols"]),
            "Protocol": lambda: rng.choice(("", "-")) + rng.choice(self.openssl["protocols"]),
            "VerifyMode": lambda: rng.choice(self.openssl["verify_modes"]),
            "NumTickets": lambda: rng.choice(("0", "1", "2", "-1", "abc")),
            "RecordPadding": lambda: rng.choice(("0", "512", "16384", "16385", "abc")),
            "SignatureAlgorithms": lambda: rng.choice(
                ("ECDSA+SHA256:RSA-PSS+SHA256", "ed25519", "ecdsa_secp256r1_sha256", "MD5+RSA")
            ),
        }
        roll = rng.random()
        # ServerInfoFile reads a file of "SERVERINFO FOR" blocks, which no real file here is:
        # what it holds is not in the text (like a missing file), so it is not drawn
        command = rng.choice(sorted(values) if roll < 0.7 else
                             [c for c in commands if c != "ServerInfoFile"])  # fmt: skip
        if FILE_COMMANDS.search(command):
            # a file a command names must be there: a missing one is refused for the file
            return "valid", [recase(rng, command) if roll < 0.2 else command, conf_file(command)]
        value = values[command]() if command in values else rng.choice(("x", "on", "1"))
        if roll < 0.5:
            return "valid", [command, value]
        if roll < 0.6:
            return "case", [recase(rng, command), value]
        if roll < 0.7:
            return "typo", [typo(rng, command), value]
        if roll < 0.85:
            return "other-library", [rng.choice(self.openssl["conf_switches"]), value]
        if roll < 0.92 and command == "Options":  # a list: OpenSSL takes commas
            options = rng.sample(self.openssl["options"], 2)
            return "separator", [command, rng.choice((",", ":", " ")).join(options)]
        return "typo", [command, typo(rng, value)]

    def cipher_string(self, rng: random.Random) -> tuple[str, list[str]]:
        def token() -> str:
            word = rng.choice(self.keywords + self.ciphers if self.ciphers else self.keywords)
            return rng.choice(("", "", "", "!", "-", "+")) + word

        tokens = [token() for _ in range(rng.randint(1, 5))]
        roll = rng.random()
        if roll < 0.15:
            tokens.append(f"@SECLEVEL={rng.choice((0, 1, 2, 3, 5, 6, -1))}")
        if roll < 0.55:
            return "valid", [":".join(tokens)]
        if roll < 0.7:
            return "separator", [rng.choice((",", " ", ";", "|")).join(tokens)]
        if roll < 0.8 and len(tokens) > 1:
            return "separator", [":".join(tokens[:1]), ":".join(tokens[1:])]
        if roll < 0.9:
            return "typo", [":".join([*tokens[:-1], typo(rng, tokens[-1])])]
        return "case", [":".join([*tokens[:-1], recase(rng, tokens[-1])])]

    def group_list(self, rng: random.Random) -> tuple[str, list[str]]:
        groups = rng.sample(self.groups, rng.randint(1, 4))
        roll = rng.random()
        if roll < 0.1:
            return "valid", ["auto"]
        if roll < 0.55:
            return "other-library", [":".join(groups)]  # names of some library or version
        if roll < 0.65:
            return "separator", [rng.choice((",", " ", ";")).join(groups)]
        if roll < 0.72:
            return "duplicate", [":".join([*groups, groups[0]])]
        if roll < 0.8:
            return "syntax", [":".join(rng.choice(("?", "*", "-", "")) + g for g in groups)]
        if roll < 0.85:
            return "syntax", [rng.choice(("DEFAULT", "X25519/secp256r1", "*X25519:P-256"))]
        if roll < 0.93:
            return "case", [":".join([*groups[:-1], recase(rng, groups[-1])])]
        return "typo", [":".join([*groups[:-1], typo(rng, groups[-1])])]

    def listen(self, rng: random.Random, entry: Entry) -> tuple[str, list[str]]:
        address = rng.choice(ADDRESSES[:5] if rng.random() < 0.7 else ADDRESSES)
        params = [self._literal_arg(rng, w) for w in rng.sample(
            entry["literals"], rng.randint(0, min(3, len(entry["literals"]))))]  # fmt: skip
        kind = "valid" if address in ADDRESSES[:5] else "bound"
        if params and rng.random() < 0.25:
            i = rng.randrange(len(params))
            params[i] = typo(rng, params[i]) if rng.random() < 0.6 else recase(rng, params[i])
            kind = "typo"
        return kind, [address, *params]

    def header(self, rng: random.Random, entry: Entry) -> tuple[str, list[str]]:
        args = [rng.choice(HEADER_NAMES), rng.choice(HEADER_VALUES)]
        roll = rng.random()
        if roll < 0.4:
            return "valid", args
        if roll < 0.7:
            return "valid", [*args, "always"]
        if roll < 0.8:
            return "case", [*args, recase(rng, "always")]
        if roll < 0.9:
            return "typo", [*args, typo(rng, "always")]
        return "junk", [*args, rng.choice(("on", "1", "never", ""))]

    def path(self, rng: random.Random, name: str) -> tuple[str, list[str]]:
        files = real_files()
        pair = files.certificates[rng.randrange(len(files.certificates))]
        if name.endswith(("certificate_key", "_key")):
            real = pair["key"]
        elif name.endswith("dhparam"):
            real = files.dhparam
        elif name.endswith("trusted_certificate") or name.endswith("client_certificate"):
            real = files.chain
        elif name.endswith("_crl"):
            real = str(crl())
        else:
            real = pair["cert"]
        # a file that is not there is refused by nginx for something the text does not say
        # (issue 27's grammar oracle leaves files out the same way): only real files here
        return "valid", [real]

    def literals(self, rng: random.Random, entry: Entry) -> tuple[str, list[str]]:
        """A custom setter's own words: its literals (with a value after `=` or `:`), numbers,
        sizes and times, and near misses of them."""
        literals = entry.get("literals") or ["on", "off"]
        count = rng.choice(entry["args"] or [1]) or 1
        args = []
        for _ in range(count):
            roll = rng.random()
            if roll < 0.7:
                args.append(self._literal_arg(rng, rng.choice(literals)))
            else:
                args.append(rng.choice((*SIZES_VALID, *TIMES_VALID, *SIZES_NEAR[:4])))
        roll = rng.random()
        if roll < 0.6:
            return "valid", args
        i = rng.randrange(len(args))
        if roll < 0.8:
            args[i] = typo(rng, args[i])
            return "typo", args
        args[i] = recase(rng, args[i])
        return "case", args

    def _literal_arg(self, rng: random.Random, word: str) -> str:
        if word.endswith("=o"):  # nginx reads "ipv6only=o" then "n" or "ff"
            return word + rng.choice(("n", "ff", "x", ""))
        if word.endswith("="):
            return word + rng.choice(("10", "512", "1k", "10m", "30s", "on", "abc", "-1", "",
                                      "1m:10:3", "65536"))  # fmt: skip
        if word.endswith(":"):
            name = rng.choice(("SSL", "tls_cache", "", "a:b"))
            size = rng.choice(("", ":10m", ":1m", ":10", ":1k", ":10M", ":0", ":abc", ":1mb"))
            return word + (name + size if word.startswith("shared") else rng.choice(
                ("1000", "0", "abc", "-1", "10m", "")))  # fmt: skip
        return word


# SSL_CONF commands whose value is a file, a folder or a store (ssl/ssl_conf.c: SSL_CONF_TYPE_FILE,
# SSL_CONF_TYPE_DIR, SSL_CONF_TYPE_STORE)
FILE_COMMANDS = re.compile(r"(File|Path|Store)$|^(Certificate|PrivateKey|DHParameters)$")


def conf_file(command: str) -> str:
    """A real file, folder or store for a file-taking SSL_CONF command: the skeleton's own
    certificate and key (another key would not match it), the DH parameters, else the CA
    chain (or its folder)."""
    files = real_files()
    pair = files.certificates[0]
    if command == "Certificate":
        return pair["cert"]
    if command == "PrivateKey":
        return pair["key"]
    if command == "DHParameters":
        return files.dhparam
    return str(Path(files.chain).parent) if command.endswith("Path") else files.chain


@functools.cache
def crl() -> Path:
    """An empty certificate revocation list nginx can load for ssl_crl (it reads the PEM and
    checks no signature at `nginx -t`)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    issuer = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "nginxgen test CA")])
    built = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer)
        .last_update(now)
        .next_update(now + datetime.timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    folder = tempfile.mkdtemp(prefix="nginxgen-values-crl-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "empty.crl"
    path.write_bytes(built.public_bytes(serialization.Encoding.PEM))
    return path


# --- the comparison --------------------------------------------------------------------------


@dataclass
class Verdict:
    build: str
    case: Case
    nginx: str  # accepted | refused
    message: str
    nginx_line: int | None
    line: int
    lint_here: list[str]
    lint_elsewhere: list[str]

    @property
    def agrees(self) -> bool:
        return bool(self.lint_here) == (self.nginx == "refused")

    @property
    def klass(self) -> str:
        """The disagreement's class: what lint missed or said, for which directive family."""
        family = re.sub(r"^(proxy|grpc|uwsgi)_ssl_", "upstream ssl_", self.case.directive)
        if self.nginx == "refused":
            shape = re.sub(r'"[^"]*"', '"…"', self.message.split(" (SSL:")[0])
            return f"missed: {family}: " + re.sub(r"\d+", "N", shape)
        codes = sorted({f.split()[0] for f in self.lint_here})
        return f"false error: {family}: {','.join(codes)}"


class Checker:
    """One build's skeleton and folders, for cases checked on two threads."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.root = Path(tempfile.mkdtemp(prefix=f"nginxgen-values-{build.name}-"))
        atexit.register(shutil.rmtree, self.root, True)
        self.skeleton = skeleton(build, self.root)
        self.local = threading.local()

    def folder(self) -> Path:
        if not hasattr(self.local, "folder"):
            self.local.folder = Path(tempfile.mkdtemp(dir=self.root))
        folder: Path = self.local.folder
        return folder

    def check(self, case: Case) -> Verdict:
        text, line = self.skeleton.render(case.context, case.line)
        conf = _write(self.folder(), text)
        refused = nginx_refuses(self.build, conf)
        errors = _lint_errors(self.build, conf)
        return Verdict(
            build=self.build.name,
            case=case,
            nginx="accepted" if refused is None else "refused",
            message=refused[0] if refused else "",
            nginx_line=refused[1] if refused else None,
            line=line,
            lint_here=[m for n, m in errors if n == line],
            lint_elsewhere=[f"{n}: {m}" for n, m in errors if n != line],
        )


def cases(checkers: list[Checker], count: int, seed: int) -> Iterator[tuple[Checker, Case]]:
    """`count` cases spread over the builds in turn (by name, so a seed draws the same cases
    whatever order the builds were given in), each drawn from its own seed."""
    checkers = sorted(checkers, key=lambda c: c.build.name)
    drawers = [Drawer(c.build, c.skeleton.contexts) for c in checkers]
    for i in range(count):
        which = i % len(checkers)
        yield checkers[which], drawers[which].draw(random.Random(f"{seed}:{i}"))


@dataclass
class Report:
    cases: int = 0
    seconds: float = 0.0
    by_build: Counter[str] = field(default_factory=Counter)
    nginx: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    classes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    disagreements: list[Verdict] = field(default_factory=list)

    def add(self, verdict: Verdict) -> None:
        self.cases += 1
        self.by_build[verdict.build] += 1
        self.nginx[verdict.nginx] += 1
        self.kinds[verdict.case.kind] += 1
        if verdict.agrees:
            return
        self.disagreements.append(verdict)
        self.classes[verdict.klass] += 1
        examples = self.examples.setdefault(verdict.klass, [])
        if len(examples) < 3:
            examples.append(describe(verdict))

    def summary(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "wall_s": round(self.seconds, 1),
            "cases_per_s": round(self.cases / self.seconds, 1) if self.seconds else None,
            "by_build": dict(self.by_build),
            "nginx": dict(self.nginx),
            "kinds": dict(self.kinds),
            "disagreements": len(self.disagreements),
            "classes": dict(self.classes.most_common()),
            "examples": self.examples,
        }


def describe(verdict: Verdict) -> dict[str, Any]:
    data = asdict(verdict)
    data["case"] = {"line": verdict.case.line, "context": verdict.case.context,
                    "kind": verdict.case.kind}  # fmt: skip
    return data


def run(
    builds: list[Build],
    count: int,
    seed: int,
    jobs: int = 2,
    progress: int = 0,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> Report:
    """`count` cases over these builds; nginx -t and lint on `jobs` threads."""
    started = time.monotonic()
    checkers = [Checker(b) for b in builds]
    report = Report()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for verdict in pool.map(lambda pair: pair[0].check(pair[1]), cases(checkers, count, seed)):
            report.add(verdict)
            if progress and on_progress and report.cases % progress == 0:
                report.seconds = time.monotonic() - started
                on_progress({"cases_so_far": report.cases, "disagreements":
                             len(report.disagreements), "wall_s": round(report.seconds, 1)})  # fmt: skip
    report.seconds = time.monotonic() - started
    return report
