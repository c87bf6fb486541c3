"""OpenSSL's cipher-string algebra: an `ssl_ciphers` string to the ordered list the library uses.

The steps follow ssl/ssl_ciph.c: every known TLS <= 1.2 suite starts in collection order
(descending code point), the library's default preference order is laid over it, everything
is switched off, and then the string's elements are applied in turn: a name or `A+B+C`
(intersection) adds, `-` deletes (it may come back), `!` kills (for good), `+` moves to the
end, `@STRENGTH` sorts by strength, `@SECLEVEL=n` sets the level. A string that opens with
DEFAULT first applies the default rule; SUITEB* replace the whole string. Unknown words are
ignored; a character outside the cipher-string alphabet, or a bad `@` command, fails the whole
string, as does a result without any TLS <= 1.2 suite ("no cipher match", which nginx reports
as a failed SSL_CTX_set_cipher_list()).
"""

from __future__ import annotations

import re

from nginxgen.base.records import field, record
from nginxgen.ciphers.model import CipherModel, CipherSuite, LazyAliases

SEPARATORS = ":, ;"


@record
class CipherList:
    """The result of one string for one model."""

    model: CipherModel
    suites: list[CipherSuite]
    seclevel: int | None = None  # from @SECLEVEL=n
    error: str | None = None  # the library refuses the string
    unknown: list[str] = field(default_factory=list)  # words matching nothing known
    unknown_added: list[str] = field(default_factory=list)  # ... of elements that add suites

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.suites]

    def usable(self) -> list[CipherSuite]:
        """The suites the security level leaves (`openssl ciphers -s`)."""
        level = self.seclevel if self.seclevel is not None else self.model.default_seclevel
        # No PSK or SRP: neither `openssl ciphers -s` nor nginx sets the callbacks they need.
        return [s for s in self.suites if allowed_at(s, level, self.model) and not s.psk_or_srp]


def allowed_at(suite: CipherSuite, level: int, model: CipherModel) -> bool:
    """ssl_security_default_callback() for a cipher (SSL_SECOP_CIPHER_SUPPORTED)."""
    if level <= 0:
        return True
    rules = model.seclevel
    min_bits = rules.min_bits[min(level, len(rules.min_bits) - 1)]
    if suite.strength_bits < min_bits or suite.au == "None" or suite.mac == "MD5":
        return False
    if min_bits > rules.sha1_bits and suite.mac == "SHA1":
        return False
    if level >= rules.forward_secret_from_level and not suite.tls13:
        return suite.kx in rules.forward_secret_kx
    return True


class _Order:
    """The doubly linked list of ssl_ciph.c as a Python list plus an active set. A suite's name
    is its identity here: a model's TLS <= 1.2 names are unique, as OpenSSL's are."""

    def __init__(self, suites: tuple[CipherSuite, ...]) -> None:
        self.order = list(suites)
        self.active: set[str] = set()

    def apply(self, op: str, members: frozenset[str] | set[str]) -> None:
        active = self.active
        if op == "ADD":
            moved = [s for s in self.order if s.name in members and s.name not in active]
            self._to_tail(moved)
            active.update(s.name for s in moved)
        elif op == "ORD":
            self._to_tail([s for s in self.order if s.name in members and s.name in active])
        elif op in ("DEL", "BUMP"):
            # Walked from the tail, each moved to the head: relative order is kept.
            moved = [s for s in self.order if s.name in members and s.name in active]
            self._to_head(moved)
            if op == "DEL":
                active.difference_update(s.name for s in moved)
        elif op == "KILL":
            self.order = [s for s in self.order if s.name not in members]
            active.difference_update(members)

    def strength_sort(self) -> None:
        used = sorted({s.strength_bits for s in self.order if s.name in self.active}, reverse=True)
        for bits in used:
            self.apply("ORD", {s.name for s in self.order if s.strength_bits == bits})

    def _to_tail(self, moved: list[CipherSuite]) -> None:
        if moved:  # most steps of the default order move nothing or everything they name
            names = {s.name for s in moved}
            self.order = [s for s in self.order if s.name not in names] + moved

    def _to_head(self, moved: list[CipherSuite]) -> None:
        if moved:
            names = {s.name for s in moved}
            self.order = moved + [s for s in self.order if s.name not in names]

    def result(self) -> list[CipherSuite]:
        return [s for s in self.order if s.name in self.active]


def _lookup(model: CipherModel, word: str) -> frozenset[str] | None:
    """The suites a single word names; None for a word the library does not know."""
    if model.any_case:
        word = model.folded.get(word.lower(), word)
    if word in model.aliases:
        return model.aliases[word]
    suite = model.by_name.get(word)
    if suite is None and model.standard_names:
        suite = model.by_iana.get(word)
    if suite is not None and not suite.tls13:
        return frozenset({suite.name})
    return None


# The default order depends only on the model: laid out once per model, not once per string.
_DEFAULT_ORDERS: dict[str, tuple[CipherSuite, ...]] = {}


def _default_order(model: CipherModel) -> _Order:
    if model.name not in _DEFAULT_ORDERS:
        order = _Order(model.suites)
        for op, expression in model.default_order:
            if op == "STRENGTH":
                order.strength_sort()
                continue
            members: frozenset[str] | None = None
            for word in expression.split("+"):
                found = model.aliases[word]
                members = found if members is None else members & found
            order.apply(op, members or frozenset())
        _DEFAULT_ORDERS[model.name] = tuple(order.order)
    # After the final "DEL everything" nothing is active: only the order carries over.
    return _Order(_DEFAULT_ORDERS[model.name])


PREFIX_OPS = {"-": "DEL", "+": "ORD", "!": "KILL", "@": "SPECIAL"}


def _word_end(text: str, start: int, model: CipherModel) -> int:
    extra = "-.=_" if model.standard_names else "-.="
    end = start
    while end < len(text) and text[end].isascii() and (text[end].isalnum() or text[end] in extra):
        end += 1
    return end


def _skip_element(text: str, position: int) -> int:
    while position < len(text) and text[position] not in SEPARATORS:
        position += 1
    return position


def _process(text: str, order: _Order, model: CipherModel, result: CipherList) -> bool:
    """ssl_cipher_process_rulestr(), character by character; False when the string is refused.

    A word ends at any character outside [A-Za-z0-9.=-] (plus `_` where IANA names are
    accepted); `+` joins words, any other character
    ends the element (so `ALL!aNULL` is two elements) and an empty word refuses the string.
    """
    position = 0
    while position < len(text):
        char = text[position]
        op = PREFIX_OPS.get(char, "ADD")
        if op != "ADD":
            position += 1
        if char in SEPARATORS:
            position += 1
            continue
        element = _element(text, position, op, model, result)
        if element is None:
            return False
        position, word, members = element
        if op == "SPECIAL":
            if not _command(word, order, model, result):
                return False
            position = _skip_element(text, position)
        elif members:
            order.apply(op, members)
        else:
            position = _skip_element(text, position)
    return True


def _element(
    text: str, position: int, op: str, model: CipherModel, result: CipherList
) -> tuple[int, str, frozenset[str] | None] | None:
    """The element's words from `position`, joined by `+` (the suites in every one of them;
    an unknown word is noted in `result`): where reading stopped, the last word read, and the
    suites (None or empty: none). A SPECIAL element is its one word. None when a word is empty:
    the string is refused.

    Each field of the words is combined as a mask, as ssl_cipher_process_rulestr() does: for
    kx, au, enc and mac that is the suites' intersection, but the strength bits are not. Two
    words with strength bits keep the bits both have (HIGH+FIPS: none, so nothing matches),
    and the first word with strength bits replaces whatever strength mask was there, dropping
    a COMPLEMENTOFDEFAULT before it: COMPLEMENTOFDEFAULT+HIGH is all of HIGH,
    HIGH+COMPLEMENTOFDEFAULT only the suites outside DEFAULT (openssl ciphers, OpenSSL 3.0 to
    4.0)."""
    members: frozenset[str] | None = None  # the other fields' suites
    strong: frozenset[str] | None = None  # the strength bits (None: no word had any)
    not_default = False
    while True:
        start = position
        position = _word_end(text, start, model)
        word = text[start:position]
        if not word:
            result.error = f"invalid command at column {start + 1}"
            return None
        if op == "SPECIAL":
            return position, word, None
        multi = position < len(text) and text[position] == "+"
        if multi:
            position += 1
        parts = _lookup_parts(model, word)
        if parts is None:
            result.unknown.append(word)
            if op == "ADD":
                result.unknown_added.append(word)
            return position, word, None
        named, bits, flag = parts
        members = named if members is None else members & named
        if bits is not None:
            if strong is None:
                strong, not_default = bits, False  # `algo_strength = ...`: the flag goes too
            else:
                strong &= bits
        not_default |= flag
        if not members or strong == frozenset() or not multi:
            if strong == frozenset():
                return position, word, frozenset()
            return position, word, _masked(model, members, strong, not_default)


def _lookup_parts(
    model: CipherModel, word: str
) -> tuple[frozenset[str], frozenset[str] | None, bool] | None:
    """A word's suites by its other fields, its strength bits and its COMPLEMENTOFDEFAULT flag
    (LazyAliases.parts). A suite's name is that suite, with the suite's own strength bits and
    flag: COMPLEMENTOFDEFAULT+ECDHE-RSA-AES128-GCM-SHA256 is that suite, MEDIUM+ it nothing.
    None: a word the library does not know."""
    if model.any_case:
        word = model.folded.get(word.lower(), word)
    aliases = model.aliases
    if word in aliases and isinstance(aliases, LazyAliases):
        return aliases.parts(word)
    named = _lookup(model, word)
    if named is None:
        return None
    suite = model.by_name.get(word) or model.by_iana[word]
    bits = frozenset({suite.strength, "FIPS"} if suite.fips else {suite.strength})
    return named, bits, not suite.in_default


def _masked(
    model: CipherModel, members: frozenset[str], strong: frozenset[str] | None, not_default: bool
) -> frozenset[str]:
    if not members or (strong is None and not not_default):
        return members
    aliases = model.aliases
    assert isinstance(aliases, LazyAliases)
    kept = set(members)
    if strong is not None:
        kept &= aliases.strong(strong)
    if not_default:
        kept &= aliases.not_default()
    return frozenset(kept)


def _command(word: str, order: _Order, model: CipherModel, result: CipherList) -> bool:
    """An `@` command: @STRENGTH sorts, @SECLEVEL=n sets the level; any other refuses the
    string (False)."""
    command = word.upper() if model.any_case else word
    if command == "STRENGTH":
        order.strength_sort()
    elif re.fullmatch(r"SECLEVEL=[0-5]", command):
        result.seclevel = int(word[-1])
    else:
        result.error = f"unknown command @{word}"
        return False
    return True


def evaluate(text: str, model: CipherModel) -> CipherList:
    """The TLS <= 1.2 suites `ssl_ciphers TEXT` enables, in the library's order."""
    result = CipherList(model=model, suites=[])
    rule = text.strip()
    if model.equal_preference and "[" in rule:
        # each group's suites as a list of its own words would enable them (one preference
        # level: an order the list does not keep); an unclosed `[` stays, and is refused
        rule = re.sub(r"\[([^\[\]]*)\]", lambda group: group[1].replace("|", ":"), rule)
    opening = rule.upper() if model.any_case else rule
    # the longest first, as check_suiteb_cipher_list tries SUITEB128ONLY before SUITEB128
    for prefix, replacement in sorted(model.suiteb.items(), key=lambda kv: -len(kv[0])):
        if opening.startswith(prefix):
            rule = opening = replacement
            break
    order = _default_order(model)
    ok = True
    if opening.startswith("DEFAULT"):
        ok = _process(model.default_rule, order, model, result)
        rule = rule[7:].removeprefix(":")
    if ok and rule:
        ok = _process(rule, order, model, result)
    if not ok:
        return result
    result.suites = order.result()
    if not result.suites:
        result.error = "no cipher match: the string enables no TLS 1.2 or older suite"
    return result


def evaluate_ciphersuites(text: str, model: CipherModel) -> CipherList:
    """A TLS 1.3 `Ciphersuites` list: exact IANA names (any case in OpenSSL 4.0), unknown ones
    dropped while one is valid."""
    result = CipherList(model=model, suites=[])
    fold = str.lower if model.any_case else str
    known = {fold(s.name): s for s in model.tls13}
    for name in text.split(":"):
        if not name:
            continue
        suite = known.get(fold(name))
        if suite is None:
            result.unknown.append(name)
        elif not model.any_case or suite not in result.suites:
            result.suites.append(suite)  # OpenSSL 3 keeps a repeated name twice, 4.0 once
    if text and not result.suites:
        result.error = "no TLS 1.3 suite in the list"
    return result
