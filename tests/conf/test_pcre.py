"""nginx's regexes (PCRE) as Python reads them: named groups in PCRE's forms (trial 12)."""

from __future__ import annotations

import pytest

from nginxgen.base.pcre import compiled, to_python


@pytest.mark.parametrize(
    ("pcre", "python"),
    [
        (r"^(?<lang>nl\.|en\.)?example\.com$", r"^(?P<lang>nl\.|en\.)?example\.com$"),
        (r"^(?'sub'\w+)\.example\.com$", r"^(?P<sub>\w+)\.example\.com$"),
        (r"(?<a>x)\k<a>\k'a'\k{a}", r"(?P<a>x)(?P=a)(?P=a)(?P=a)"),
        (r"(?<=a)b(?<!c)", r"(?<=a)b(?<!c)"),  # lookbehinds stay
        (r"\(?<x>", r"\(?<x>"),  # an escaped parenthesis is no group
        (r"\\(?<x>y)", r"\\(?P<x>y)"),  # an escaped backslash, then a group
    ],
)
def test_pcre_named_groups_read_as_python_reads_them(pcre: str, python: str) -> None:
    assert to_python(pcre) == python
    assert compiled(pcre) is not None
