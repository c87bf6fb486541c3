"""Whether nginx's setters read a directive's value, and nginx's words when they do not: the one
place NGX010 asks (through _grammar).

nginx's generic setters (ngx_conf_file.c) read on/off in any letter case, sizes, offsets (a
size that may also end in g), times, numbers and their bounds, and enum and bitmask names in
any letter case; the names and bounds of each release are nginx_values.json, read off the
release tags. Custom setters' grammars are written once in nginx_values.toml with the source
lines they follow: ssl_session_cache and ssl_ocsp_cache, listen, keepalive_timeout,
ssl_certificate_cache's parameters, the http2 post handlers' bounds, add_header's `always`,
and the `*_ssl_verify` that needs trusted certificates where a pass goes to TLS.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.base import sockets
from nginxgen.base.records import record
from nginxgen.base.version import Version, in_range
from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, nginx_values
from nginxgen.knowledge.equal_values import parse_size, parse_time
from nginxgen.knowledge.target import Target
from nginxgen.lint.rules._server_names import refused_name

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


def _resolver(grammar: nginx_values.ResolverGrammar, args: list[str], target: Target) -> str | None:
    """resolver's refusal (ngx_resolver_create): its parameters; the addresses not judged."""
    off: set[str] = set()
    for value in args:
        if value.startswith(grammar.valid):
            if parse_time(value[len(grammar.valid) :], is_sec=True) is None:
                return grammar.invalid.format(value=value)
            continue
        prefix = next((p for p in grammar.switches if value.startswith(p)), None)
        if prefix is None or target.nginx < Version(grammar.switches[prefix]):
            continue  # an address (a release without the switch reads it as one too)
        word = value[len(prefix) :]
        if word not in ("on", "off"):
            return grammar.invalid.format(value=value)
        if word == "off":
            off.add(prefix)
        else:
            off.discard(prefix)
    if len(off) == len(grammar.switches) and target.nginx >= Version(grammar.both_off_since):
        return grammar.both_off
    return None


def _named_size(text: str) -> tuple[str, int] | None:
    """A zone's NAME:SIZE as nginx's zone setters read it (the first `:`, ngx_parse_size after
    it); None: no `:`, or a size it does not read."""
    name, colon, size_text = text.partition(":")
    size = parse_size(size_text) if colon else None
    return None if size is None else (name, size)


def _cache_path(
    grammar: nginx_values.CachePath, name: str, args: list[str], target: Target
) -> str | None:
    """A cache path's refusal, in nginx's order (ngx_http_file_cache_set_slot)."""
    zone = False
    for value in args[1:]:
        prefix = next((p for p in grammar.prefixes if value.startswith(p)), None)
        since = grammar.since.get(prefix or "")
        if prefix is None or (since is not None and target.nginx < Version(since)):
            return grammar.invalid.format(value=value)
        text, kind = value[len(prefix) :], grammar.prefixes[prefix]
        if kind == "zone":
            named = _named_size(text)
            if named is None:
                return grammar.messages[prefix].format(value=value)
            if named[1] < grammar.zone_min:
                return grammar.too_small.format(value=value)
            zone = bool(named[0])
        elif not _cache_value(kind, text):
            return grammar.messages[prefix].format(value=value)
    return None if zone else grammar.missing.format(directive=name)


def _cache_value(kind: str, text: str) -> bool:
    if kind == "levels":  # ngx_http_file_cache_set_slot's own loop
        parts = text.split(":")
        return text == "" or (len(parts) <= 3 and all(p in ("1", "2") for p in parts))
    if kind == "switch":
        return text in ("on", "off")
    return reads(kind, text)


def _key_zone(grammar: nginx_values.KeyZone, name: str, args: list[str]) -> str | None:
    """limit_req_zone's and limit_conn_zone's refusal, in nginx's order (the key aside)."""
    named = False
    for value in args[1:]:
        if value.startswith("zone="):
            zone = _named_size(value[len("zone=") :])
            if zone is None:
                return grammar.invalid_size.format(value=value)
            if zone[1] < grammar.min_size:
                return grammar.too_small.format(value=value)
            named = bool(zone[0])
        elif grammar.rate and value.startswith("rate="):
            # ngx_strncmp of the last three bytes: `r/s` or `r/m` is cut off, anything else read
            number = value[len("rate=") : -3] if value[-3:] in ("r/s", "r/m") else value[5:]
            if not atoi(number):
                return grammar.invalid_rate.format(value=value)
        else:
            return grammar.invalid.format(value=value)
    return None if named else grammar.missing.format(directive=name)


def _log_levels(grammar: nginx_values.LogLevels, args: list[str]) -> str | None:
    """error_log's refusal (ngx_log_set_levels)."""
    if not args or args[0].startswith(grammar.unjudged):
        return None
    level, debug = False, False
    for value in args[1:]:
        if value in grammar.levels:
            if level or debug:
                return grammar.duplicate.format(value=value)
            level = True
        elif value in grammar.debug:
            if level:
                return grammar.invalid.format(value=value)
            debug = True
        else:
            return grammar.invalid.format(value=value)
    return None


def _access_log(grammar: nginx_values.AccessLogGrammar, args: list[str]) -> str | None:
    """access_log's parameters after the format, as ngx_http_log_set_log reads them."""
    read = access_log_buffer(grammar, args)
    return read if isinstance(read, str) else None


def access_log_buffer(
    grammar: nginx_values.AccessLogGrammar, args: list[str]
) -> str | tuple[int, int, int]:
    """An access_log line's buffer as ngx_http_log_set_log reads its parameters: (its size, the
    flush time in milliseconds, the gzip level), all 0 for an unbuffered log; or nginx's words
    for the parameter it refuses."""
    if args[:1] == ["off"] and len(args) > 1:
        return grammar.parameter.format(value=args[1])  # `off` takes nothing after it
    size = flush = gzip = 0
    for word in args[2:]:
        if word.startswith("buffer="):
            size = parse_size(word[7:]) or 0
            if not size:
                return grammar.buffer.format(value=word[7:])
        elif word.startswith("flush="):
            flush = parse_time(word[6:], is_sec=False) or 0
            if not flush:
                return grammar.flush.format(value=word[6:])
        elif word == "gzip" or word.startswith("gzip="):
            size = size or 64 * 1024
            level = atoi(word[5:]) if word != "gzip" else 1
            if level is None or not 1 <= level <= 9:
                return grammar.level.format(value=word[5:])
            gzip = level
        elif not word.startswith("if="):
            return grammar.parameter.format(value=word)
    if flush and not size:
        return grammar.no_buffer.format(value=args[0])
    if size and "$" in args[0]:
        return grammar.variables
    if size and args[0].startswith("syslog:"):
        return grammar.syslog
    return size, flush, gzip


def _expires(grammar: nginx_values.ExpiresGrammar, name: str, args: list[str]) -> str | None:
    """expires' refusal (ngx_http_headers_expires, ngx_http_parse_expires)."""
    modified = len(args) == 2
    if modified and args[0] != grammar.modified:
        return grammar.invalid.format(directive=name)
    value = args[-1]
    if "$" in value or (not modified and value in grammar.words):
        return None  # read per request, or a word
    daily = value.startswith("@")
    if daily and modified:
        return grammar.daily_modified.format(directive=name)
    milliseconds = parse_time(value[1:] if value[:1] in ("@", "+", "-") else value, is_sec=True)
    if milliseconds is None:
        return grammar.invalid.format(directive=name)
    if daily and milliseconds > grammar.day * 1000:
        return grammar.daily_too_long.format(directive=name)
    return None


def _status_codes(grammar: nginx_values.StatusCodes, args: list[str]) -> str | None:
    """error_page's refusal, in nginx's order: the `=[code]` second to last (not the first
    argument), then each code before it (ngx_http_core_error_page)."""
    codes = args[:-1]
    if len(args) >= 2 and args[-2].startswith("="):
        response = args[-2]
        if len(args) == 2 or (response != "=" and atoi(response[1:]) is None):
            return grammar.invalid.format(value=response)
        codes = args[:-2]
    for code in codes:
        status = atoi(code)
        if status is None or status in grammar.refused:
            return grammar.invalid.format(value=code)
        if not grammar.low <= status <= grammar.high:
            return grammar.out_of_range.format(value=code)
    return None


def condition_words(stmt: Stmt, line: str | None) -> list[str]:
    """An `if` condition's words as written, `line` the text of its line. The loader takes the
    parentheses off (as crossplane does) where the first word opens with `(` and the last closes
    with `)`: then its first word no longer opens with one, and its line shows whether one was
    there (an `if` whose line shows `(` or nothing after it: yes). Without the text (stdin, a
    dump): yes."""
    args = stmt.args
    if args and args[0].startswith("("):
        return args  # the last word did not close: nothing was taken off
    if line is not None:
        after = [m.group(1) for m in re.finditer(r"(?:^|[\s;{}])if\b\s*(.?)", line)]
        if after and all(ch not in ("(", "") for ch in after):
            return args
    return ["(", *args, ")"]


def if_condition(grammar: nginx_values.IfCondition, args: list[str]) -> str | None:
    """nginx's words for an `if` condition it cannot read, or None (ngx_http_rewrite_if_condition,
    step by step: the parentheses come off the first and last words, then the words between
    are a variable alone, a variable, an operator and a value, or a file test and a value). What
    the variable and the regex are is NGX011's and NGX024's."""
    if not args:
        return None  # NGX009's
    words = list(args)
    if not words[0].startswith("("):
        return grammar.invalid.format(value=words[0])
    cur = 1 if words[0] == "(" else 0
    if cur == 0:
        words[0] = words[0][1:]
    last = len(words) - 1
    if not words[last].endswith(")"):
        return grammar.invalid.format(value=words[last])
    if words[last] == ")":
        last -= 1
    else:
        words[last] = words[last][:-1]
    word = words[cur]
    if len(word) > 1 and word[0] == "$":
        if cur != last and cur + 2 != last:
            return grammar.invalid.format(value=word)
        operator = words[cur + 1] if cur != last else None
        if operator is None or operator in grammar.comparisons | grammar.regex_matches:
            return None
        return grammar.unexpected.format(value=operator)
    if word in grammar.file_tests and cur + 1 == last:
        return None
    return grammar.invalid.format(value=word)


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
    custom = nginx_values.custom_grammars()
    if name in custom.build_options and target.modules is not None and args:
        for needs in custom.build_options[name]:
            word = args[0]
            matches = any(
                word == w or (w.endswith("=") and word.startswith(w)) for w in needs.words
            )
            if matches and needs.option not in target.modules:
                return needs.message
    if name in custom.caches:
        return _shared_cache(custom.caches[name], args)
    if name in custom.parameters:
        return _parameters(custom.parameters[name], name, args)
    if name in custom.addresses and len(args) == 1:
        return _address(custom.addresses[name], args[0])
    if name in custom.arguments:
        grammar = custom.arguments[name]
        for value, parser in zip(args, grammar.reads, strict=False):
            if not reads(parser, value):
                return grammar.message.format(directive=name, value=value)
        return None
    if name in custom.resolver.directives:
        return _resolver(custom.resolver, args, target)
    if name in custom.cache_paths:
        return _cache_path(custom.cache_paths[name], name, args, target)
    if name in custom.key_zones:
        return _key_zone(custom.key_zones[name], name, args)
    if name in custom.log_levels.directives:
        return _log_levels(custom.log_levels, args)
    if name in custom.variable_first.directives and args and not args[0].startswith("$"):
        return custom.variable_first.message.format(value=args[0])
    if name in custom.access_log.directives:
        return _access_log(custom.access_log, args)
    if name in custom.expires.directives:
        return _expires(custom.expires, name, args)
    if name in custom.status_codes:
        return _status_codes(custom.status_codes[name], args)
    if name == "server_name":
        bad = next((a for a in args if refused_name(a)), None)
        return custom.server_name_invalid.format(name=bad) if bad is not None else None
    if name in custom.last_word:
        last = custom.last_word[name]
        if len(args) >= last.position and args[last.position - 1] not in last.words:
            return last.message.format(value=args[last.position - 1])
        return None
    tables = [t for t in nginx_values.value_tables(target, name) if t.module in modules]
    if tables:
        # a snippet's directive may belong to several modules: refused when all refuse it
        messages = [_table(custom.listen, t, stmt, kinds, target) for t in tables]
        refused = messages[0] if all(messages) else None
    else:
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        refused = _generic(name, args, kind) if len(args) == 1 else None
    if refused is None and name in custom.post and len(args) == 1:
        return _post(custom.post[name], name, args[0])
    return refused


def _address(grammar: nginx_values.AddressGrammar, value: str) -> str | None:
    """A pass's address without a URI: host[:port] after the module's scheme (ngx_parse_url
    without uri_part); a variable is read per request, a unix: socket is a path."""
    if "$" in value:
        return None
    address = value
    for scheme in grammar.schemes:
        if address[: len(scheme)].lower() == scheme:
            address = address[len(scheme) :]
            break
    if address[:5].lower() == "unix:":
        return None
    if address.startswith("["):  # ngx_parse_inet6_url: a URI after the `]`
        close = address.find("]")
        refused = close >= 0 and "/" in address[close:]
    else:
        refused = "/" in address or "?" in address
    return grammar.message.format(value=address) if refused else None


def _post(checks: tuple[nginx_values.PostCheck, ...], name: str, value: str) -> str | None:
    """The first of a post handler's checks the value (a number or size the slot read) fails."""
    number = atoi(value)
    if number is None:
        number = parse_size(value)
    if number is None:
        return None
    for check in checks:
        passed = {
            "more_than": number > check.number,
            "at_least": number >= check.number,
            "at_most": number <= check.number,
            "multiple_of": number % check.number == 0,
            "power_of_two": number > 0 and number & (number - 1) == 0,
        }[check.test]
        if not passed:
            return check.message.format(directive=name)
    return None


def _parameters(grammar: nginx_values.ParametersGrammar, name: str, args: list[str]) -> str | None:
    given = set()
    for value in args:
        if value in grammar.words:
            given.add(value)
            continue
        prefix = next((p for p in grammar.prefixes if value.startswith(p)), None)
        if prefix is None or not reads(grammar.prefixes[prefix], value[len(prefix) :]):
            return grammar.invalid.format(value=value)
        given.add(prefix)
    if grammar.required and grammar.required not in given and not given & grammar.unless:
        return grammar.missing.format(directive=name)
    return None


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
    (ngx_atoi, not 0), ipv6only (n or ff), flag (on or off in any case); any other kind is not
    judged."""
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
    if kind == "flag":
        return text.lower() in ("on", "off")
    if kind == "so_keepalive":
        return _so_keepalive(text)
    return True


def _so_keepalive(text: str) -> bool:
    """ngx_http_core_listen's so_keepalive=: on, off, or idle:interval:count, each part may be
    empty; idle and interval ngx_parse_time in seconds, count ngx_atoi; not all of them 0."""
    if text in ("on", "off"):
        return True
    idle, _, rest = text.partition(":")
    interval, _, count = rest.partition(":")
    numbers = []
    for part, read in ((idle, "sec"), (interval, "sec"), (count, "num")):
        if part and not reads(read, part):
            return False
        numbers.append(atoi(part) if read == "num" else parse_time(part, True) if part else 0)
    return any(numbers)


def _table(
    listen: nginx_values.ListenGrammar,
    table: nginx_values.ValueTable,
    stmt: Stmt,
    kinds: set[str | None],
    target: Target,
) -> str | None:
    args = stmt.args
    if table.words or table.prefixes:
        if table.module.endswith("_upstream_module"):  # an upstream block's server line
            values = nginx_values.custom_grammars().server_values
            for value in args[1:]:
                prefix = next((p for p in values if value.startswith(p)), None)
                if not table.reads_parameter(value) or (
                    prefix is not None and not reads(values[prefix], value[len(prefix) :])
                ):
                    return listen.invalid.format(value=value)
            return None
        return _listen(listen, table, args, target)
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


def _shared_cache(grammar: nginx_values.SharedCacheGrammar, args: list[str]) -> str | None:
    for value in args:
        if value in grammar.words:
            continue
        if grammar.builtin and value.startswith("builtin:") and len(value) > len("builtin:"):
            if atoi(value[len("builtin:") :]) is None:
                return grammar.invalid.format(value=value)
            continue
        if value.startswith("shared:") and len(value) > len("shared:"):
            zone = _named_size(value[len("shared:") :])
            if zone is None or not zone[0]:
                return grammar.invalid.format(value=value)
            if zone[1] < grammar.min_shared_size:
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
    _, colon, port = address.partition(":")  # ngx_parse_inet_url: the first ":" (9444:1 fails)
    if not colon:
        return address if address.isdigit() else None  # a bare name is a host
    return None if "-" in port else port  # ranges came in 1.27.3: not judged here


def _listen(
    grammar: nginx_values.ListenGrammar,
    table: nginx_values.ValueTable,
    args: list[str],
    target: Target,
) -> str | None:
    address = args[0] if args else ""
    if address.startswith("["):
        _, bracket, rest = address.partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return grammar.host.format(value=address)
    port = _port(address) if address else None
    if port is not None:
        number = atoi(port)
        if number is None or not 1 <= number <= 65535:
            return grammar.port.format(value=args[0])
    link_local = sockets.link_local(address)
    if link_local is not None:
        return grammar.link_local.format(address=f"[{link_local}]:{port or 80}")
    for value in args[1:]:
        if value in table.words:
            continue
        if not table.reads_parameter(value):
            return grammar.invalid.format(value=value)
        prefix = next(p for p in table.prefixes if value.startswith(p))
        known = grammar.prefixes.get(prefix)
        if known is not None and known.only_on is not None:  # not compiled in on Linux
            return grammar.invalid.format(value=value)
        if known is None or known.message is None:
            continue
        if not reads(known.reads, value[len(prefix) :]):
            return known.message.format(
                value=value, rest=value[len(prefix) - 1 :], tail=value[len(prefix) :]
            )
    refused: tuple[str, ...] = ()
    message = ""
    if "quic" in args[1:] and table.module == "ngx_http_core_module":
        refused, message = grammar.refused_beside_quic(target.nginx), grammar.quic_message
    elif "udp" in args[1:] and table.module == "ngx_stream_core_module":
        refused, message = grammar.refused_beside_udp(target.nginx), grammar.udp_message
    for parameter in refused:
        if any(a == parameter or (parameter.endswith("=") and a.startswith(parameter))
               for a in args[1:]):  # fmt: skip
            return message.format(parameter=parameter.rstrip("="))
    return None


def upstream_tls(statements: list[Stmt]) -> Iterator[tuple[Stmt, dict[str, list[Stmt]]]]:
    """(the statement that sends traffic to TLS, the settings in effect there by name) for each
    place nginx sets an upstream TLS context up when it merges a block: an http pass whose
    target has a TLS scheme (nginx_values.toml, requires) or a variable (nginx cannot read it
    before a request), a stream server with `proxy_ssl on` (ngx_stream_proxy_merge_srv_conf).
    Elsewhere the proxy_ssl_* settings are never handed to the library."""
    schemes = {r.pass_directive: r.schemes for r in nginx_values.custom_grammars().requires}
    # (statements of a block, the settings in effect around it, http or stream, the block's owner)
    stack: list[tuple[list[Stmt], dict[str, list[Stmt]], str | None, str | None]] = [
        (statements, {}, None, None)
    ]
    while stack:
        block, around, module, owner = stack.pop()
        here = {**around, **_by_name(block)}
        if module == "stream" and owner == "server":
            switch = here.get("proxy_ssl")
            if switch and flag_on(switch[-1].args):
                yield switch[-1], here
        for stmt in block:
            if stmt.block is not None:
                inner = stmt.directive if stmt.directive in ("http", "stream") else module
                stack.append((stmt.block, here, inner, stmt.directive))
            elif module == "http" and stmt.directive in schemes and stmt.args:
                target = stmt.args[0]
                if target.lower().startswith(schemes[stmt.directive]) or "$" in target:
                    yield stmt, here


def applied_tls_lines(statements: list[Stmt], target: Target, suffix: str) -> set[int] | None:
    """The ids of the lines nginx hands to the library for one TLS setting `suffix` (ciphers,
    conf_command): `ssl_SUFFIX` in effect in a server nginx sets TLS up for, `proxy_ssl_SUFFIX`
    (grpc_, uwsgi_) in effect where a pass goes to TLS. None for a snippet (no http{} or
    stream{}), where which blocks include it is not known, so every line counts."""
    if not any(s.directive in ("http", "stream") for s in statements):
        return None
    places = [(f"ssl_{suffix}", s.settings) for s in tls_servers(statements, target)]
    places += [
        (f"{sender.directive.split('_')[0]}_ssl_{suffix}", here)
        for sender, here in upstream_tls(statements)
    ]
    return {id(stmt) for name, here in places for stmt in here.get(name, ())}


def unmet_requirements(statements: list[Stmt], present: set[str]) -> Iterator[tuple[Stmt, str]]:
    """(the `switch` statement in effect, nginx's message) for each pass to TLS whose
    verification is on with no trusted certificates in effect (checked at merge time);
    `present`: the directive names of the tree (without a switch, nothing to walk)."""
    by_pass = {r.pass_directive: r for r in nginx_values.custom_grammars().requires}
    if present.isdisjoint(r.switch for r in by_pass.values()):
        return
    for sender, here in upstream_tls(statements):
        wanted = by_pass.get(sender.directive)
        if wanted is None:
            continue
        switch = here.get(wanted.switch)
        if not switch or not flag_on(switch[-1].args):
            continue
        if not here.get(wanted.needs):
            yield switch[-1], wanted.message


def backend_certificate_refusals(
    statements: list[Stmt], target: Target, present: set[str]
) -> Iterator[tuple[Stmt, str, str]]:
    """(the certificate's statement in effect, nginx's message, a fix) for each pass to TLS
    whose client certificate nginx refuses when it merges the block (nginx_values.toml,
    backend_certificates): one without its key, and in the releases that read an empty value
    as a certificate, "" with a key nginx loads then (no variable in it)."""
    fact = nginx_values.custom_grammars().backend_certificates
    if present.isdisjoint(fact.senders.values()):
        return
    empty_read = in_range(
        target.nginx, fact.empty_is_certificate_since, fact.empty_is_certificate_until
    )
    for sender, here in upstream_tls(statements):
        name = fact.senders.get(sender.directive)
        lines = here.get(name) if name else None
        if not name or not lines or not lines[-1].args:
            continue
        certificate, value = lines[-1], lines[-1].args[0]
        if value == "" and not empty_read:
            continue  # no certificate: it cancels one inherited
        keys = here.get(f"{name}_key")
        if not keys or not keys[-1].args:
            message = fact.missing_key.format(key=f"{name}_key", value=value)
            yield certificate, message, f"add {name}_key beside it, or remove it"
        elif value == "" and "$" not in keys[-1].args[0]:
            fix = f"remove {name} (nginx {target.nginx} takes an empty one for a file)"
            yield certificate, fact.empty_unloadable.format(value=value), fix


@record(frozen=True)
class TlsServer:
    """A server nginx sets TLS up for when it merges its settings (nginx_values.toml,
    [tls_servers]), with the statements in effect there by name: the server's own lines of a
    name, else those of the http or stream block around it."""

    module: str  # http | stream
    stmt: Stmt
    settings: dict[str, list[Stmt]]


def _by_name(block: list[Stmt]) -> dict[str, list[Stmt]]:
    out: dict[str, list[Stmt]] = {}
    for stmt in block:
        if stmt.block is None:
            out.setdefault(stmt.directive, []).append(stmt)
    return out


def tls_servers(
    statements: list[Stmt], target: Target, modules: tuple[str, ...] = ("http", "stream")
) -> Iterator[TlsServer]:
    """The servers of `modules` (http, stream) whose TLS settings nginx merges and applies."""
    since = Version(nginx_values.custom_grammars().stream_by_certificate_since)
    for top in statements:
        if top.directive not in modules or top.block is None:
            continue
        around = _by_name(top.block)
        for stmt in top.block:
            if stmt.directive != "server" or stmt.block is None:
                continue
            own = _by_name(stmt.block)
            here = {**around, **own}
            if top.directive == "stream" and target.nginx < since:
                sets_up = any("ssl" in s.args[1:] for s in own.get("listen", ()))
            else:
                reject = here.get("ssl_reject_handshake", [])
                sets_up = bool(here.get("ssl_certificate")) or (
                    bool(reject) and flag_on(reject[-1].args)
                )
            if sets_up:
                yield TlsServer(top.directive, stmt, here)


def merge_refusals(
    statements: list[Stmt], target: Target, present: set[str]
) -> Iterator[tuple[Stmt, str, str]]:
    """(the switch's statement in effect, nginx's message, a fix) for each TLS server whose
    merge nginx refuses (nginx_values.toml, server_requires and server_unsupported);
    `present`: the directive names of the tree (without a switch, nothing to walk)."""
    checks = [
        c for c in nginx_values.custom_grammars().server_checks
        if in_range(target.nginx, c.since, c.until) and c.switch in present
    ]  # fmt: skip
    if not checks:
        return
    for server in tls_servers(statements, target):
        for check in checks:
            switch = server.settings.get(check.switch)
            if not switch or [a.lower() for a in switch[-1].args[:1]] not in (
                [v] for v in check.values
            ):
                continue
            if check.capability is not None:
                if not libraries.has(target.library, check.capability):
                    yield switch[-1], check.message, f"remove {check.switch}: the library lacks it"
            elif not any(server.settings.get(n) for n in check.needs):
                fix = f"set {' or '.join(check.needs)} where {check.switch} applies, or turn it off"
                yield switch[-1], check.message, fix
