"""Read the logs with one format into one Tally; an input that ends early keeps the counts of
what could be read, and is reported."""

from __future__ import annotations

from nginxgen.base.errors import NginxgenError
from nginxgen.report.logformat import LogFormat, make_parser
from nginxgen.report.read import lines
from nginxgen.report.tally import InputCount, Tally

# what a user can give instead, in the order the hint names them
FORMAT_CHOICES = (
    "--log-format combined, --config nginx.conf (the log_format of the access_log that writes "
    "it), or the format itself: --log-format '$remote_addr [$time_local] ...'"
)


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
    tally.settle()
    return tally, problems


def nothing_readable(tally: Tally) -> bool:
    """Lines were there, and the format read none of them in any input."""
    return tally.unreadable.count > 0 and not any(i.readable for i in tally.inputs)


def _unreadable_input(counted: InputCount, fmt: LogFormat) -> NginxgenError:
    from nginxgen.report.formats import COMBINED_FORMAT

    hint = f"give the format that wrote it: {FORMAT_CHOICES}"
    if fmt.text != COMBINED_FORMAT.text and make_parser(COMBINED_FORMAT)(
        counted.first_unreadable_text
    ):
        # Debian's and Ubuntu's default access_log: a likely cause worth naming first
        hint = f"its lines read as nginx's combined format: {hint}"
    return NginxgenError(
        f"no line reads as {fmt.label} (the first that does not: line "
        f"{counted.first_unreadable}); {hint}",
        where=counted.name,
    )


def unreadable_inputs(tally: Tally, problems: list[NginxgenError]) -> list[NginxgenError]:
    """When no line of any input was readable, in the order given: each input's line saying the
    format tried, its first line, and the formats to give instead, and the inputs that could not
    be read (to their end) as before."""
    failed = {problem.where: problem for problem in problems}
    out = []
    for counted in tally.inputs:
        if counted.unreadable:
            out.append(_unreadable_input(counted, tally.fmt))
        if counted.name in failed:
            out.append(failed[counted.name])
    return out
