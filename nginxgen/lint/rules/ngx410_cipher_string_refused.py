"""An `ssl_ciphers` string the target's library refuses, though OpenSSL would take it.

nginx passes the string to SSL_CTX_set_cipher_list() and stops when the library refuses it.
BoringSSL and AWS-LC have no security levels: any `@SECLEVEL=N` is INVALID_COMMAND there (so the
`ALL:@SECLEVEL=0` that legacy-client configs carry stops nginx), and a string whose every word
matches nothing in them fails (`eNULL` alone: they have no NULL suites; `HIGH:eNULL` passes).
OpenSSL refuses `@SECLEVEL=6` and above. BoringSSL and AWS-LC refuse a string that matches no
suite: DHE, ARIA and CAMELLIA suites are not theirs, and a typo or a name in lower case matches
nothing. What each library does with each word (every keyword and suite name alone) and command is
measured with nginx -t on the real builds (nginxgen/knowledge/tls_tables/); a target no build
answers for is judged by libraries.toml (`security_levels`). On BoringSSL and AWS-LC, whose
suites were measured one by one, a string that OpenSSL's rules (the cipher engine) leave with
none of their suites is refused too (`ECDSA:!ALL:DHE-RSA-AES256-GCM-SHA384`: they have no DHE);
AWS-LC reads DEFAULT, HIGH and FIPS only as the first word, so `!NULL-SHA:FIPS` enables nothing
there.

Fail (BoringSSL, AWS-LC): ssl_ciphers ALL:@SECLEVEL=0;
Fix:  ssl_ciphers ECDHE+AESGCM:ECDHE+CHACHA20;

Sources: OpenSSL SSL_CTX_set_security_level.pod (levels 0-5); BoringSSL ssl/ssl_cipher.cc
(ssl_create_cipher_list: no `@SECLEVEL`); nginx -t on the builds (scripts/build_library_tables.py;
tests/knowledge/test_library_tables.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.ciphers.engine import evaluate
from nginxgen.ciphers.model import load_model
from nginxgen.knowledge import libraries, library_tables
from nginxgen.knowledge.target import Library
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import BACKEND_LINES, all_cipher_lines

RULE = Rule(
    code="NGX410",
    name="cipher-string-refused",
    severity=Severity.ERROR,
    fix="write a string the library takes (no @SECLEVEL on BoringSSL and AWS-LC; suites it has)",
    triggers=("ssl_ciphers", *BACKEND_LINES),
)


def refusal(library: Library, text: str) -> str | None:
    """Why the library refuses this ssl_ciphers string, or None where it takes it (or nothing
    measured says otherwise)."""
    table = library_tables.library_table(library)
    strings = table.cipher_strings if table is not None else {}
    if text in strings:
        reason = strings[text]
        return f"{text} ({reason})" if reason else None
    stop = libraries.cipher_string_stop(library, text)
    if stop is not None:  # trial 14: nano's `$` at the end of a cut line
        return f"{text}: {stop!r} is no command, separator or word character (INVALID_COMMAND)"
    # OpenSSL 4.0 reads `@seclevel=` in any case; elsewhere such a word is NGX408's
    for level in re.findall(r"@SECLEVEL=([^:, ]*)", text, flags=re.IGNORECASE):
        measured = strings.get(f"DEFAULT:@SECLEVEL={level}")
        if measured:
            return f"@SECLEVEL={level} ({measured})"
        if table is None and not libraries.has(library, "security_levels"):
            return f"@SECLEVEL={level} ({libraries.capability(library, 'security_levels').refusal})"
    # words that add suites; `!`/`-` remove them, `+` moves them, `@` commands order them
    # (the separators of OpenSSL's and BoringSSL's ITEM_SEP: `:` `,` space and `;`)
    added = [w for w in re.split(r"[:, ;]+", text) if w and w[0] not in "!-+@"]
    if added and all(_matches_nothing(library, strings, w) for w in added):
        reason = next((strings[w] for w in added if strings.get(w)), "NO_CIPHER_MATCH")
        return f"{', '.join(added)} match no suite there ({reason})"
    if table is not None and table.names_measured and not libraries.has(library, "security_levels"):
        return _leaves_nothing(table, text)
    return None


def _leaves_nothing(table: library_tables.LibraryTable, text: str) -> str | None:
    """Where the library's suites are measured one by one (BoringSSL, AWS-LC): whether the
    string, read with OpenSSL's rules (the cipher engine), leaves none of the suites the build
    took alone. Each suite's fate depends only on the words that match it, so the engine's list
    cut down to the library's suites is the library's. Words the library reads only at the
    start (AWS-LC: DEFAULT, HIGH and FIPS, measured as refused after a word that adds nothing)
    match nothing anywhere else."""
    strings = table.cipher_strings
    leading = {
        w for w in ("DEFAULT", "HIGH", "FIPS")
        if strings.get(w, "") is None and strings.get(f"NOSUCHWORD:{w}")
    }  # fmt: skip
    parts = re.split(r"([:, ;]+)", text.strip())
    if leading:
        parts = [p if i == 0 or p not in leading else "NOSUCHWORD" for i, p in enumerate(parts)]
    result = evaluate("".join(parts), load_model("openssl-3.5"))
    if result.error and not result.suites and not result.error.startswith("no cipher match"):
        return None  # a string OpenSSL refuses for its syntax: not this rule's to judge
    have = {name for name, reason in strings.items() if reason is None}
    if any(s.name in have for s in result.suites):
        return None
    if blind_word(table, "".join(parts)):
        return None
    return f"{text} leaves none of the suites the library has (NO_CIPHER_MATCH)"


def blind_word(table: library_tables.LibraryTable, text: str) -> str | None:
    """A word of the string the library took alone whose suites no OpenSSL table names (3DES:
    AWS-LC and BoringSSL keep DES-CBC3-SHA, OpenSSL 3.5's table has none): what the cipher
    engine says of such a string is blind to those suites."""
    model = load_model("openssl-3.5")
    strings = table.cipher_strings
    have = {name for name, reason in strings.items() if reason is None}
    for element in re.split(r"[:, ;]+", text):
        for word in element.lstrip("!-+").split("+"):
            if (
                strings.get(word, "") is None
                and word not in model.by_name
                and not any(s.name in have for s in evaluate(word, model).suites)
            ):
                return word
    return None


def _matches_nothing(library: Library, strings: dict[str, str | None], word: str) -> bool:
    """Whether a word of the string adds no suite in the library: measured so alone, or, where
    every suite name and keyword was measured and the library has no security levels
    (BoringSSL, AWS-LC: the cipher engine only approximates them, and no `@SECLEVEL` can make
    a word match more), a plain word none of them is (a typo, a name in another letter case:
    the libraries compare names exactly and skip unknown words)."""
    if word in strings:
        return strings[word] is not None
    table = library_tables.library_table(library)
    plain = re.fullmatch(r"[A-Za-z0-9_.-]+", word) is not None  # no `+` compound, no [a|b]
    return (
        plain
        and table is not None
        and table.names_measured
        and not libraries.has(library, "security_levels")
    )


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    for stmt, ev in all_cipher_lines(ctx):
        why = refusal(library, " ".join(stmt.args))
        result = ev.result
        if why is None or (result.error and not result.suites):
            continue  # accepted, or NGX408 already says nothing matches
        yield ctx.finding(RULE, stmt, f"{ctx.library()} refuses {why}: nginx -t fails")
