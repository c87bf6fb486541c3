"""An `ssl_conf_command` the target's OpenSSL refuses: an unknown command, or a value it does
not take.

nginx hands each `ssl_conf_command NAME VALUE` to SSL_CONF_cmd() and stops when it fails
(`SSL_CONF_cmd("Options", "Bogus") failed (SSL: ... bad value)`): a command OpenSSL does not
have (`Option`, `SessionTicket`), an `Options` value it does not know in that version
(IgnoreUnexpectedEOF is not a value in 3.0; LegacyECPointFormats in none of 3.0-3.5), values
separated by spaces instead of commas, `Ciphersuites` naming no TLS 1.3 suite of the library,
a `CipherString` that matches no suite (as NGX408 and NGX410 judge ssl_ciphers),
`MinProtocol TLSv13` or any word not in OpenSSL's `versions` table, a `VerifyMode` or `Protocol`
word it does not have, a signature algorithm it refuses (`RSA+MD5`, a typo such as `ed225519`,
`Rsa+SHA256` before OpenSSL 3.5, which compares names exactly), an `ECDHParameters` that is not
`automatic` or one group the library has. Command names and Options values are
case-insensitive, suite names are not. What each version takes is measured with nginx -t on the real builds
(nginxgen/knowledge/tls_tables/); a version no build answers for is not judged. Groups and
Curves are NGX201/NGX202's; libraries without SSL_CONF_cmd are NGX501's.

In a whole config, only the commands nginx hands to the library are judged: `ssl_conf_command`
in a server nginx sets TLS up for (certificates in effect, or ssl_reject_handshake on), and
`proxy_ssl_conf_command` (grpc_, uwsgi_) only where a pass goes to TLS (https://, grpcs://,
suwsgi://, a variable; in stream, `proxy_ssl on`): nginx calls SSL_CONF_cmd() when it sets
that context up (ngx_http_proxy_set_ssl), and a line that reaches none of them starts fine.

Fail (OpenSSL 3.0): ssl_conf_command Options KTLS,IgnoreUnexpectedEOF;
Fix:  ssl_conf_command Options KTLS;

Sources: OpenSSL ssl/ssl_conf.c (ssl_conf_cmds, ssl_option_list) and SSL_CONF_cmd.pod; nginx
ngx_ssl_conf_commands(); nginx -t on the builds (scripts/build_library_tables.py;
tests/knowledge/test_library_tables.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.knowledge import library_tables
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules import ngx410_cipher_string_refused as ngx410
from nginxgen.lint.rules._ciphers import evaluate_text
from nginxgen.lint.rules._groups import parse_groups, verdict
from nginxgen.lint.rules._values import applied_tls_lines

RULE = Rule(
    code="NGX504",
    name="conf-command-refused",
    severity=Severity.ERROR,
    fix="use a command and value the library has (SSL_CONF_cmd(3) of its version)",
    triggers=(
        "ssl_conf_command",
        "proxy_ssl_conf_command",
        "grpc_ssl_conf_command",
        "uwsgi_ssl_conf_command",
    ),
)
UNKNOWN = "unknown cmd name"
# Commands whose value is a comma-separated list of words of one table of ssl/ssl_conf.c
# (ssl_option_list, ssl_protocol_list, ssl_vfy_list), each word measured alone: another word
# is refused (the reason given when no build names one)
LISTS = {"options": "not an option", "protocol": "bad value", "verifymode": "bad value"}
# Commands whose value is one word of the `versions` table, compared exactly (strcmp)
CLOSED = frozenset({"minprotocol", "maxprotocol"})


def refusal(commands: dict[str, str | None], name: str, value: str) -> str | None:
    """Why SSL_CONF_cmd refuses `name value`, judged from the measured pairs; None if taken or
    not measured. Command names compare in any case (SSL_CONF_cmd does, in file mode); values
    as measured: exactly, Options values also in any case where `Options ktls` was taken."""
    pairs = {(k.split(" ", 1)[0].lower(), k.split(" ", 1)[1]): r for k, r in commands.items()}
    if name.lower() not in {c for (c, _), r in pairs.items() if r != UNKNOWN}:
        return f"there is no command {name!r} ({UNKNOWN})"
    command = name.lower()
    if (command, value) in pairs:
        reason = pairs[(command, value)]
        return f"{name} {value!r} ({reason})" if reason else None
    # ssl_match_option compares list words in any case where `Options ktls` was taken
    any_case = pairs.get(("options", "ktls"), "") is None
    if command in LISTS:
        words = {(v.lower() if any_case else v): r for (c, v), r in pairs.items() if c == command}
        for item in (i.strip().lstrip("-+") for i in value.split(",")):
            answer = words.get(item.lower() if any_case else item, LISTS[command])
            if answer:
                return f"{name} value {item!r} ({answer})"
    if command in CLOSED:
        taken = {v for (c, v), r in pairs.items() if c == command and r is None}
        if taken and value not in taken:
            return f"{name} {value!r} (bad value: not one of {', '.join(sorted(taken))})"
    if command == "recordpadding" and (command, "abc") in pairs:
        return _record_padding(pairs[(command, "abc")] is not None, name, value)
    if command == "ciphersuites" and value:
        suites = {v for (c, v), r in pairs.items() if c == command and r is None and ":" not in v}
        # OpenSSL 4.0 reads suite names in any case: there the lower-case name was taken
        named = value
        if pairs.get((command, "tls_aes_128_gcm_sha256"), "") is None:
            suites = {v.lower() for v in suites}
            named = value.lower()
        if not set(named.split(":")) & suites:
            return f"Ciphersuites {value!r} names no TLS 1.3 suite it has (no cipher match)"
    return None


def _record_padding(strict: bool, name: str, value: str) -> str | None:
    """`RecordPadding`: a block size of 0 to 16384 (SSL_CTX_set_block_padding: at most one
    record's plain text). OpenSSL before 3.5 reads it with atoi (`abc` is 0, `512,x` is 512);
    from 3.5 (where the table shows `abc` refused) with strtol, one or two sizes split at a
    `,`, each of which must open with a number (`5x` is 5)."""
    for part in value.split(",", 1) if strict else [value]:
        number = re.match(r"\s*([+-]?\d+)", part)
        if number is None and strict:
            return f"{name} {value!r} (bad value: not a number)"
        size = int(number.group(1)) if number else 0
        if not 0 <= size <= 16384:
            return f"{name} {value!r} (bad value: a block size of 0 to 16384)"
    return None


def sigalg_refusal(table: library_tables.LibraryTable, name: str, value: str) -> str | None:
    """Why the library refuses a `SignatureAlgorithms`/`ClientSignatureAlgorithms` list
    (tls1_set_sigalgs_list: one parser for both), or None where it takes it or nothing measured
    says. Each `:` element is a scheme name or SIG+HASH (openssl ssl/t1_lib.c sig_cb), judged
    from what the build took alone (knowledge/tls_tables `sigalgs`): see _sigalg_taken."""
    if not table.sigalgs:
        return None
    if value.strip() == "":
        return f"{name} '' (bad value: an empty list)"
    seen: set[str] = set()
    for raw in value.split(":"):
        element = raw.strip(" ")  # CONF_parse_list drops the spaces around an element
        if not element:
            return f"{name} {value!r} (bad value: an empty element)"
        if element.startswith("?") and table.sigalg_syntax.get("question"):
            continue  # `?` skips what the library does not know
        if not _sigalg_taken(table, element):
            return f"{name} value {element!r} (bad value: no signature algorithm of the library)"
        # the same element twice: OpenSSL 3.0 refuses a repeated algorithm
        if element in seen and table.sigalg_syntax.get("duplicate") is False:
            return f"{name} value {element!r} listed twice (bad value)"
        seen.add(element)
    return None


def _sigalg_taken(table: library_tables.LibraryTable, element: str) -> bool:
    """Whether the library takes one element. A name (no `+`) as probed, or in another letter
    case where the library took it in all four cases probed (it compares that name in any
    case; else strcmp: only the exact names). SIG+HASH, split at the first `+` as sig_cb does:
    one half a SIG word and the other a HASH word (each exact, or in any case where the
    library took the word in all four cases with its partner), and that pair, in that order,
    taken. Nothing else is in any library's table or providers: refused."""
    measured = table.sigalgs
    if element in measured:
        return measured[element]
    sigs, hashes = table.sigalg_words
    if "+" not in element:
        return all(measured.get(v, False) for v in _four_cases(element)[1:])
    first, second = element.split("+", 1)
    partner = table.sigalg_partners

    def word(text: str, words: tuple[str, ...], probe: str) -> str | None:
        for known in words:
            if text == known:
                return known
        for known in words:
            if text.lower() == known.lower() and all(
                measured.get(probe.format(v), False) for v in _four_cases(known)
            ):
                return known
        return None

    as_sig = f"{{}}+{partner['sig']}"
    as_hash = f"{partner['hash']}+{{}}"
    sig_first, hash_second = word(first, sigs, as_sig), word(second, hashes, as_hash)
    if sig_first and hash_second:
        return measured.get(f"{sig_first}+{hash_second}", False)
    hash_first, sig_second = word(first, hashes, as_hash), word(second, sigs, as_sig)
    if hash_first and sig_second:
        return measured.get(f"{hash_first}+{sig_second}", False)
    return False


def _four_cases(word: str) -> list[str]:
    return [word, word.lower(), word.upper(), word.capitalize()]


def ecdh_parameters_refusal(ctx: Context, name: str, value: str) -> str | None:
    """Why `ECDHParameters VALUE` is refused (ssl/ssl_conf.c cmd_ECDHParameters): in a
    configuration file (nginx's mode) `automatic` and `+automatic` in any case are taken, a
    `:` is refused (one group only), anything else is one name for SSL_CTX_set1_groups_list,
    judged as NGX201 judges a group."""
    if value.lower() in ("automatic", "+automatic"):
        return None
    if ":" in value:
        return f"{name} {value!r} (bad value: it takes one group)"
    for entry in parse_groups(value):
        answer = verdict(ctx.target.library, entry)
        if answer in ("unknown", "unavailable", "spelling", "refused"):
            return f"{name} {value!r} (bad value: {ctx.library()} has no group {entry.name!r})"
        if entry.name.lower() == "auto":  # nginx's word (ssl_ecdh_curve), not the library's
            return f"{name} {value!r} (bad value: not a group name)"
    return None


def check(ctx: Context) -> Iterator[Finding]:
    table = library_tables.library_table(ctx.target.library)
    if table is None or table.conf_refused:
        return
    applied = applied_tls_lines(ctx.config.loaded.statements, ctx.target, "conf_command")
    for stmt in ctx.named(*ctx.names_ending("ssl_conf_command")):
        if not stmt.directive.endswith("ssl_conf_command") or len(stmt.args) != 2:
            continue
        if applied is not None and id(stmt) not in applied:
            continue
        name, value = stmt.args
        if name.lower() in ("groups", "curves"):
            continue
        why = refusal(table.conf_commands, name, value)
        if why is None and name.lower() in ("signaturealgorithms", "clientsignaturealgorithms"):
            why = sigalg_refusal(table, name, value)
        if why is None and name.lower() == "ecdhparameters":
            why = ecdh_parameters_refusal(ctx, name, value)
        if why is None and name.lower() == "cipherstring":
            why = _cipher_string(ctx, value)
        if why:
            yield ctx.finding(RULE, stmt, f"{ctx.library()}: {why}: nginx -t fails")


def _cipher_string(ctx: Context, text: str) -> str | None:
    """Why SSL_CONF_cmd("CipherString") refuses the string: what SSL_CTX_set_cipher_list would
    say of it as ssl_ciphers (NGX410's measured refusals, NGX408's empty list)."""
    why = ngx410.refusal(ctx.target.library, text)
    if why:
        return f"CipherString {why}"
    result = evaluate_text(ctx, text).result
    if result.error and not result.suites:
        return f"CipherString {text!r} matches no suite (no cipher match)"
    return None
