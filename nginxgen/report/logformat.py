"""An nginx `log_format` string turned into a line parser.

A format whose text is a JSON object with one variable per value (the generated `nginxgen_tls`
format, and most JSON formats people write with `escape=json`) is read with orjson: measured on
1,000,000 lines here, orjson took 2.0 s where the standard json module took 6.4 s and a regular
expression 2.6 s (docs/benchmarks.md). Any other format becomes one regular expression: its literal
text matched exactly and each variable captured up to the next literal character, with a slower
fully general expression as the fallback for a line where a value holds that character.

The parser returns, for each wanted variable role (`ROLES`), the value of the first variable of
that role the format has, or None when the format has none.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from nginxgen.base.records import field, record
from nginxgen.knowledge import ech, logs

# What the report needs, and the variables that can supply each (first present wins).
ROLES: dict[str, tuple[str, ...]] = {
    "time": ("time_iso8601", "time_local", "msec"),
    "site": ("server_name",),  # the server{} that answered; empty for `server_name ""`
    "host": ("host", "ssl_server_name", "http_host"),  # the site when there is no server_name
    "protocol": ("ssl_protocol",),
    "cipher": ("ssl_cipher",),
    "curve": ("ssl_curve",),
    "curves": ("ssl_curves",),
    "reused": ("ssl_session_reused",),
    "early_data": ("ssl_early_data",),
    "requests": ("connection_requests",),
    # what tells TLS from plain HTTP: $ssl_protocol, else $ssl_cipher, ..., $https, $scheme
    "tls": tuple(m.variable for m in logs.tls_markers()),
    "ech": (ech.status().variable,),  # Encrypted Client Hello
}
Values = tuple[str | None, ...]  # one per role, in ROLES order
LineParser = Callable[[bytes], Values | None]

# nginx's predefined format (ngx_http_log_module docs)
COMBINED = (
    '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
    '"$http_referer" "$http_user_agent"'
)
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_JSON_PAIR = re.compile(r'"([^"\\]+)"\s*:\s*"?\$(?:\{(\w+)\}|(\w+))"?\s*(?=[,}])')


@record(frozen=True)
class LogFormat:
    name: str  # as the user knows it: a log_format name, or "given" for --log-format TEXT
    text: str  # the format with its strings joined, as nginx joins them
    escape: str = "default"  # default | json | none
    # how the user chose it, for messages: "the default nginxgen_tls format", ...
    origin: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        return self.origin or f"log_format {self.name}"

    @property
    def variables(self) -> list[str]:
        return [a or b for a, b in _VARIABLE.findall(self.text)]

    def role_variables(self) -> dict[str, str | None]:
        """Which variable of this format plays each role."""
        present = set(self.variables)
        return {
            role: next((v for v in candidates if v in present), None)
            for role, candidates in ROLES.items()
        }

    def tls_marker(self) -> logs.TlsMarker | None:
        """The variable that tells TLS from plain HTTP in this format (None: it cannot)."""
        variable = self.role_variables()["tls"]
        return next((m for m in logs.tls_markers() if m.variable == variable), None)

    def json_keys(self) -> dict[str, str] | None:
        """Variable -> key when the format is a flat JSON object of one variable per value."""
        text = self.text.strip()
        if not (text.startswith("{") and text.endswith("}")):
            return None
        pairs = _JSON_PAIR.findall(text)
        if not pairs or len(pairs) != len(self.variables):
            return None
        return {a or b: key for key, a, b in pairs}


def parse_log_format_args(name: str, args: list[str]) -> LogFormat:
    """`log_format NAME [escape=...] STRING...` from a config's arguments (after NAME)."""
    escape = "default"
    if args and args[0].startswith("escape="):
        escape = args[0].removeprefix("escape=")
        args = args[1:]
    return LogFormat(name=name, text="".join(args), escape=escape)


def make_parser(fmt: LogFormat) -> LineParser:
    roles = fmt.role_variables()
    keys = fmt.json_keys()
    if keys is not None:
        return _json_parser([keys.get(v) if v else None for v in roles.values()])
    return _regex_parser(fmt, list(roles.values()))


def _json_parser(slots: list[str | None]) -> LineParser:
    try:
        import orjson  # here: generate imports this module for the format's strings

        loads, invalid = orjson.loads, orjson.JSONDecodeError
    except ImportError:  # 4x slower, same records: an install without orjson (a browser page)
        import json

        # ValueError: json's for bad JSON and for bytes that are not UTF-8, which orjson's covers
        loads, invalid = json.loads, ValueError  # type: ignore[assignment]
    present = [(index, key) for index, key in enumerate(slots) if key is not None]
    empty: list[str | None] = [None] * len(slots)

    def parse(line: bytes) -> Values | None:
        try:
            record = loads(line)
        except invalid:
            return None
        if type(record) is not dict:
            return None
        out = empty.copy()
        for index, key in present:
            value = record.get(key)
            out[index] = value if value is None or type(value) is str else str(value)
        return tuple(out)

    return parse


def _pattern(fmt: LogFormat, general: bool) -> re.Pattern[str]:
    """The format as a regular expression with a named group for each variable's first use."""
    parts: list[str] = []
    seen: set[str] = set()
    pieces = _VARIABLE.split(fmt.text)  # literal, name, name, literal, ...
    literals = pieces[0::3]
    names = [a or b for a, b in zip(pieces[1::3], pieces[2::3], strict=True)]
    for index, name in enumerate(names):
        parts.append(re.escape(literals[index]))
        following = literals[index + 1]
        if general or not following:
            capture = ".*?" if index + 1 < len(names) or following else ".*"
        else:
            capture = f"[^{re.escape(following[0])}]*"
        group = f"(?P<{name}>{capture})" if name not in seen else f"(?:{capture})"
        seen.add(name)
        parts.append(group)
    parts.append(re.escape(literals[-1]))
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def _regex_parser(fmt: LogFormat, variables: list[str | None]) -> LineParser:
    fast = _pattern(fmt, general=False).match
    slow = _pattern(fmt, general=True).match

    def parse(line: bytes) -> Values | None:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        match = fast(text) or slow(text)
        if match is None:
            return None
        found = match.groupdict()
        return tuple(found[v] if v is not None else None for v in variables)

    return parse


def generated_format_strings(fields: list[tuple[str, str]]) -> list[str]:
    """The generated format as nginx strings, one field each: `'{"time":"$time_iso8601",'`."""
    last = len(fields) - 1
    return [
        "'" + ("{" if i == 0 else "") + f'"{key}":"${variable}"' + ("}" if i == last else ",") + "'"
        for i, (key, variable) in enumerate(fields)
    ]


def _generated_strings(everywhere: bool = False) -> tuple[str, list[str]]:
    """The generated format's name and strings, with every field the knowledge base lists (the
    newest nginx has them all; generate leaves out those an older target lacks); `everywhere`
    leaves out the fields only some TLS libraries fill ($ssl_ech_status: a line to paste into
    any nginx)."""
    fields = [f for f in logs.log_fields() if not (everywhere and f.capability)]
    strings = generated_format_strings([(f.key, f.variable) for f in fields])
    return logs.generated_log().format_name, strings


def generated_format(everywhere: bool = False) -> LogFormat:
    """`nginxgen_tls` as the newest nginx writes it (where its library serves ECH); with
    `everywhere`, as generate writes it for any current nginx."""
    name, strings = _generated_strings(everywhere)
    return LogFormat(name=name, text="".join(s.strip("'") for s in strings), escape="json")


def default_access_log_path(folder: str | None = None) -> str:
    """Our TLS log in `folder` ("." : the prefix itself, where a relative path starts), or in the
    distributions' usual log folder."""
    log = logs.generated_log()
    return log.file if folder == "." else posixpath.join(folder or log.folder, log.file)


def generated_log_directives() -> list[str]:
    """The http{}-level lines `nginxgen generate` writes for its log (templates/tls.conf.j2),
    shown to a user whose log records no TLS fields."""
    name, strings = _generated_strings(everywhere=True)
    return [
        f"log_format {name} escape=json",
        *(f"    {s}" for s in strings[:-1]),
        f"    {strings[-1]};",
        f"access_log {default_access_log_path()} {name};",
    ]
