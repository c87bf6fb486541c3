"""Whether nginx's setters read a directive's value, and nginx's words when they do not: the one
place NGX010 asks (through _grammar).

nginx's generic setters (ngx_conf_file.c) read on/off in any letter case, sizes, offsets (a
size that may also end in g), times, numbers and their bounds, and enum and bitmask names in
any letter case; the names and bounds of each release are nginx_values.json, read off the
release tags. Custom setters' grammars are written once in nginx_values.toml with the source
lines they follow: ssl_session_cache, listen, keepalive_timeout, add_header's `always`, and
the `*_ssl_verify` that needs trusted certificates where a pass goes to TLS.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen import knowledge
from nginxgen.conf.load import Stmt
from nginxgen.records import record
from nginxgen.target import Target
from nginxgen.values import parse_size, parse_time

VALUE_ERRORS = {"size": "invalid value", "msec": "invalid value", "sec": "invalid value",
                "num": "invalid number"}  # fmt: skip
_MAX_ATOI = 2**63 - 1


@record(frozen=True)
class Refusal:
    """nginx's message, and the word it refuses (named in the finding's fix)."""

    message: str
    value: str


def atoi(text: str) -> int | None:
    """ngx_atoi: ASCII digits only, at least one, no overflow."""
    if not text or not (text.isdigit() and text.isascii()):
        return None
    value = int(text)
    return value if value <= _MAX_ATOI else None


def refusal(
    target: Target, stmt: Stmt, modules: frozenset[str], kinds: set[str | None]
) -> Refusal | None:
    """What nginx says refusing the statement's value (None: its setters read it). `modules`
    are the modules whose definition of the directive takes this many arguments here; `kinds`
    their generic setters (flag, size, msec, sec, num)."""
    message = _refusal(target, stmt, modules, kinds)
    if message is None:
        return None
    quoted = re.findall(r'"([^"]*)"', message)
    # nginx quotes the word it refuses, except in the setters' "invalid value" of one argument
    named = [q for q in quoted if q != stmt.directive and q != "listen"]
    return Refusal(message, named[0] if named else " ".join(stmt.args))


def _refusal(
    target: Target, stmt: Stmt, modules: frozenset[str], kinds: set[str | None]
) -> str | None:
    name, args = stmt.directive, stmt.args
    custom = knowledge.custom_grammars()
    if name in custom.session_cache.directives:
        return _session_cache(custom.session_cache, args)
    if name in custom.arguments:
        grammar = custom.arguments[name]
        for value, parser in zip(args, grammar.reads, strict=False):
            if not reads(parser, value):
                return grammar.message.format(directive=name, value=value)
        return None
    if name in custom.last_word:
        last = custom.last_word[name]
        if len(args) >= last.position and args[last.position - 1] not in last.words:
            return last.message.format(value=args[last.position - 1])
        return None
    tables = [t for t in knowledge.value_tables(target, name) if t.module in modules]
    if tables:
        # a snippet's directive may belong to several modules: refused when all refuse it
        messages = [_table(custom.listen, t, stmt, kinds) for t in tables]
        return messages[0] if all(messages) else None
    kind = next(iter(kinds)) if len(kinds) == 1 else None
    return _generic(name, args, kind) if len(args) == 1 else None


def _generic(name: str, args: list[str], kind: str | None, offset: bool = False) -> str | None:
    value = args[0]
    if kind == "flag":
        if value.lower() in ("on", "off"):
            return None
        return f'invalid value "{value}" in "{name}" directive, it must be "on" or "off"'
    readable = reads("offset" if offset and kind == "size" else kind or "any", value)
    return None if readable else f'"{name}" directive {VALUE_ERRORS[kind or "size"]}'


def reads(kind: str, text: str) -> bool:
    """Whether nginx's parser of this kind reads the text: size (ngx_parse_size), offset
    (ngx_parse_offset), msec and sec (ngx_parse_time), num and number (ngx_atoi), positive
    (ngx_atoi, not 0), ipv6only (n or ff); any other kind is not judged."""
    if kind in ("size", "offset"):
        return parse_size(text, offset=kind == "offset") is not None
    if kind in ("msec", "sec"):
        return parse_time(text, is_sec=kind == "sec") is not None
    if kind in ("num", "number"):
        return atoi(text) is not None
    if kind == "positive":
        return bool(atoi(text))
    if kind == "ipv6only":
        return text in ("n", "ff")
    return True


def _table(
    listen: knowledge.ListenGrammar, table: knowledge.ValueTable, stmt: Stmt, kinds: set[str | None]
) -> str | None:
    args = stmt.args
    if table.words or table.prefixes:
        return _listen(listen, table, args)
    names = table.enum if table.enum is not None else table.bitmask
    if names is not None:
        # ngx_conf_set_enum_slot reads one argument, the bitmask slot each; both ngx_strcasecmp
        folded = {n.lower() for n in names}
        for value in args if table.bitmask is not None else args[:1]:
            if value.lower() not in folded:
                return f'invalid value "{value}"'
        return None
    kind = next(iter(kinds)) if len(kinds) == 1 else None
    if len(args) != 1:
        return None
    if table.offset:
        return _generic(stmt.directive, args, "size", offset=True)
    refused = _generic(stmt.directive, args, kind)
    if refused or table.bounds is None:
        return refused
    low, high = table.bounds
    number = atoi(args[0])
    if number is None or (number >= low and (high is None or number <= high)):
        return None
    if high is None:
        return f"value must be equal to or greater than {low}"
    return f"value must be between {low} and {high}"


def _session_cache(grammar: knowledge.SessionCacheGrammar, args: list[str]) -> str | None:
    for value in args:
        if value in grammar.words:
            continue
        if value.startswith("builtin:") and len(value) > len("builtin:"):
            if atoi(value[len("builtin:") :]) is None:
                return grammar.invalid.format(value=value)
            continue
        if value.startswith("shared:") and len(value) > len("shared:"):
            zone, colon, size_text = value[len("shared:") :].partition(":")
            size = parse_size(size_text)
            if not zone or not colon or size is None:
                return grammar.invalid.format(value=value)
            if size < grammar.min_shared_size:
                return grammar.too_small.format(value=value)
            continue
        return grammar.invalid.format(value=value)
    return None


def _port(address: str) -> str | None:
    """The port ngx_parse_url reads from a listen address (None: none, a range, a socket)."""
    if address.startswith("unix:"):
        return None
    if address.startswith("["):
        _, bracket, rest = address.partition("]")
        return rest[1:] if bracket and rest.startswith(":") else None
    _, colon, port = address.rpartition(":")
    if not colon:
        return address if address.isdigit() else None  # a bare name is a host
    return None if "-" in port else port  # ranges came in 1.27.3: not judged here


def _listen(
    grammar: knowledge.ListenGrammar, table: knowledge.ValueTable, args: list[str]
) -> str | None:
    port = _port(args[0]) if args else None
    if port is not None:
        number = atoi(port)
        if number is None or not 1 <= number <= 65535:
            return grammar.port.format(value=args[0])
    for value in args[1:]:
        if value in table.words:
            continue
        prefix = next((p for p in table.prefixes if value.startswith(p)), None)
        if prefix is None:
            return grammar.invalid.format(value=value)
        known = grammar.prefixes.get(prefix)
        if known is None or known.message is None:
            continue
        if not reads(known.reads, value[len(prefix) :]):
            return known.message.format(value=value, rest=value[len(prefix) - 1 :])
    return None


def unmet_requirements(statements: list[Stmt]) -> Iterator[tuple[Stmt, str]]:
    """(the `switch` statement in effect, nginx's message) for each pass to TLS whose
    verification is on with no trusted certificates in effect (checked at merge time)."""
    requirements = knowledge.custom_grammars().requires
    by_pass = {r.pass_directive: r for r in requirements}
    # (statements of a block, the settings in effect around it: name -> its last statement)
    stack: list[tuple[list[Stmt], dict[str, Stmt]]] = [(statements, {})]
    while stack:
        block, around = stack.pop()
        here = dict(around)
        for stmt in block:
            if stmt.block is None:
                here[stmt.directive] = stmt
        for stmt in block:
            if stmt.block is not None:
                stack.append((stmt.block, here))
                continue
            wanted = by_pass.get(stmt.directive)
            if wanted is None or not stmt.args:
                continue
            target = stmt.args[0]
            if not target.lower().startswith(wanted.schemes) and "$" not in target:
                continue
            switch = here.get(wanted.switch)
            if switch is None or [a.lower() for a in switch.args] != ["on"]:
                continue
            if wanted.needs not in here:
                yield switch, wanted.message
