"""Which TLS <= 1.2 suites an `ssl_ciphers` string enables - a conservative evaluator.

It follows OpenSSL's cipher-string operations (`A:B`, `A+B`, `!`, `-`, `+`, `@STRENGTH`,
`@SECLEVEL`) over the suite and alias tables in the knowledge base, so the *set* of enabled suites
is right for the OpenSSL those tables were read from; the order is approximate. Names the
table does not know (RC4, 3DES and EXPORT suites are absent from OpenSSL 3 builds) are reported
in `asked_for_weak` so a rule can still flag a string that asks for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nginxgen import knowledge


@dataclass
class Evaluation:
    suites: list[knowledge.Suite]
    seclevel: int | None = None
    unknown: list[str] = field(default_factory=list)
    tls13_names: list[str] = field(default_factory=list)
    asked_for_weak: list[str] = field(default_factory=list)


def _members(word: str) -> set[str] | None:
    parts = word.split("+")
    result: set[str] | None = None
    for part in parts:
        alias = knowledge.cipher_alias(part)
        if alias is not None:
            found = set(alias)
        else:
            suite = knowledge.find_suite(part)
            found = {suite.name} if suite and not suite.tls13 else set()
            if not found and (knowledge.find_suite(part) is None):
                return None if len(parts) == 1 else set()
        result = found if result is None else result & found
    return result or set()


def evaluate(text: str) -> Evaluation:
    table = knowledge.suites()
    chosen: list[str] = []
    banned: set[str] = set()
    ev = Evaluation(suites=[])
    for raw in re.split(r"[:, ]+", text.strip()):
        if not raw:
            continue
        if raw.startswith("@"):
            match = re.match(r"@SECLEVEL=(\d)", raw)
            if match:
                ev.seclevel = int(match[1])
            elif raw == "@STRENGTH":
                chosen.sort(key=lambda n: -table[n].bits)
            continue
        op, word = (raw[0], raw[1:]) if raw[0] in "!-+" else ("", raw)
        suite = knowledge.find_suite(word)
        if suite is not None and suite.tls13:
            ev.tls13_names.append(word)
            continue
        members = _members(word)
        if members is None:
            ev.unknown.append(word)
            if op == "" and knowledge.is_weak_cipher_word(word):
                ev.asked_for_weak.append(word)
            continue
        if op == "" and knowledge.is_weak_cipher_word(word) and not members:
            ev.asked_for_weak.append(word)
        if op == "!":
            banned |= members
            chosen = [n for n in chosen if n not in members]
        elif op == "-":
            chosen = [n for n in chosen if n not in members]
        elif op == "+":
            chosen = [n for n in chosen if n not in members] + [n for n in chosen if n in members]
        else:
            ordered = [n for n in table if n in members and n not in banned and n not in chosen]
            chosen.extend(ordered)
    ev.suites = [table[n] for n in chosen]
    return ev
