"""Read the logs with one format into one Tally; an input that ends early keeps the counts of
what could be read, and is reported."""

from __future__ import annotations

from nginxgen.errors import NginxgenError
from nginxgen.report.logformat import LogFormat, make_parser
from nginxgen.report.read import lines
from nginxgen.report.tally import Tally


def read_logs(logs: list[str], fmt: LogFormat) -> tuple[Tally, list[NginxgenError]]:
    """The counts, and the inputs that could not be read to their end (each one line)."""
    tally = Tally(fmt=fmt, roles=fmt.role_variables())
    parse = make_parser(fmt)
    problems: list[NginxgenError] = []
    for name in logs:
        try:
            tally.add_lines(name, lines(name), parse)
        except NginxgenError as exc:
            problems.append(exc)
    return tally, problems
