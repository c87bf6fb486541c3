"""Which of a port's sockets answers a connection to an address (nginxgen/base/sockets.py):
the address's own socket, else its family's wildcard, as nginx finds the configuration of the
connection's local address."""

from __future__ import annotations

from nginxgen.base.sockets import socket_answering


def test_the_address_own_socket_then_its_family_wildcard() -> None:
    both = ["[::1]:443", "127.0.0.1:443"]
    assert socket_answering(both, "127.0.0.1") == "127.0.0.1:443"
    assert socket_answering(both, "[::1]") == "[::1]:443"
    assert socket_answering(both, "::1") == "[::1]:443"
    wild = ["[::]:443", "*:443"]
    assert socket_answering(wild, "192.0.2.7") == "*:443"
    assert socket_answering(wild, "2001:db8::1") == "[::]:443"
    assert socket_answering(["0.0.0.0:443", "[::]:443"], "10.0.0.1") == "0.0.0.0:443"
    # an address none of them serves, or none given: the first, as before
    assert socket_answering(["192.0.2.1:443", "192.0.2.2:443"], "10.0.0.1") == "192.0.2.1:443"
    assert socket_answering(both, None) == "[::1]:443"
    assert socket_answering([], "127.0.0.1") is None
