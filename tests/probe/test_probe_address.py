"""`nginxgen probe HOST[:PORT]`: the address as written, into a host and a port."""

from __future__ import annotations

import pytest

from nginxgen.base.errors import NginxgenError
from nginxgen.probe.cli import parse_address


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [
        ("example.com", "example.com", 443),
        ("example.com:8443", "example.com", 8443),
        ("127.0.0.1", "127.0.0.1", 443),
        ("127.0.0.1:4433", "127.0.0.1", 4433),
        ("::1", "::1", 443),  # more than one colon: an IPv6 address, no port
        ("2001:db8::1", "2001:db8::1", 443),
        ("[::1]", "::1", 443),
        ("[::1]:8443", "::1", 8443),
        ("[2001:db8::1]:443", "2001:db8::1", 443),
    ],
)
def test_host_and_port(text: str, host: str, port: int) -> None:
    assert parse_address(text) == (host, port)


@pytest.mark.parametrize("text", ["example.com:https", "example.com:-1", "[::1]:x"])
def test_a_port_that_is_no_number_is_one_line(text: str) -> None:
    with pytest.raises(NginxgenError) as caught:
        parse_address(text)
    assert str(caught.value) == f"probe: {text!r}: expected HOST or HOST:PORT"
