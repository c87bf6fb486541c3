"""`nginxgen report`: its flags resolved once into the record the command reads (every value
checked before a long log is read), and the run: read the logs with one format, summarise them,
print the report and write the HTML page."""

from __future__ import annotations

from pathlib import Path

from nginxgen.base.console import check_format, note, show
from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.report.logformat import LogFormat

EXIT_UNREADABLE = 2  # an input that could not be read to its end


@record
class ReportOptions:
    logs: list[str]  # files (plain or gzip), or - for stdin
    fmt: LogFormat  # the format every log is read with
    by: str | None  # a row per hour or day
    output: str  # text or json
    html: Path | None  # the page with charts, written too


def resolve_options(
    *,
    logs: list[str],
    log_format: str | None,
    config: Path | None,
    by: str | None,
    output: str,
    html: Path | None,
) -> ReportOptions:
    """The flags as given (each one named after its flag), checked, and the format resolved:
    --log-format's string, or its name in --config, else nginxgen's own."""
    from nginxgen.report.formats import resolve_format
    from nginxgen.report.summary import BY_CHOICES

    check_format(output)
    if by is not None and by not in BY_CHOICES:
        raise NginxgenError(f"unknown period {by!r}: use hour or day", where="--by")
    if html is not None and not html.parent.is_dir():  # before reading a long log, not after
        raise NginxgenError("its folder does not exist", where=str(html))
    fmt = resolve_format(log_format, str(config) if config else None, logs)
    return ReportOptions(logs=logs, fmt=fmt, by=by, output=output, html=html)


def run(options: ReportOptions) -> int:
    """The report on stdout and each unreadable input as an error line on stderr. A report of
    nothing is not printed: with no line read at all (the format is likely wrong) each input
    says why instead, and so when every input failed. The exit code: 2 when an input could not
    be read to its end."""
    from nginxgen.report.run import nothing_readable, read_logs, unreadable_inputs
    from nginxgen.report.summary import summarize
    from nginxgen.report.text import text_report

    tally, problems = read_logs(options.logs, options.fmt)
    if nothing_readable(tally):  # a report of nothing would hide that the format is wrong
        for problem in unreadable_inputs(tally, problems):
            note(f"error: {problem}")
        return EXIT_UNREADABLE
    result = summarize(tally, options.by)
    if options.html is not None:
        from nginxgen.files.writer import write_named_file
        from nginxgen.report.html import html_report

        # the page always charts over time: by hour unless --by day
        charted = result if options.by else summarize(tally, "hour")
        write_named_file(options.html, html_report(charted))
    if len(problems) < len(options.logs) or tally.lines:
        show(options.output, result, text_report)
    for problem in problems:
        note(f"error: {problem}")
    return EXIT_UNREADABLE if problems else 0
