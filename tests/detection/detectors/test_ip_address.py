"""The ``ip_address`` detector (govcore/detection/detectors/ip_address.py): IPv4 and IPv6 addresses,
next to ports and labels; versions and longer dotted runs are not addresses.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    IP,
    found,
)


@pytest.mark.parametrize(
    "address",
    [
        "192.168.1.1",
        "10.0.0.255",
        "8.8.8.8",
        "2001:db8::1",
        "::1",
        "fe80::1ff:fe23:4567:890a",
        "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        "１９２.１６８.１.１",
    ],
)
def test_ip_addresses_are_found(address: str) -> None:
    """Dotted quads and IPv6 addresses (also in full-width digits) are IP addresses."""
    assert found(IP, f"host {address} is up") == [address]


@pytest.mark.parametrize(
    "text",
    ["999.1.1.1", "256.1.1.1", "1.2.3", "1.2.3.4.5", "gggg::1", "12:30:45", "std::vector"],
)
def test_invalid_ip_addresses_are_not_found(text: str) -> None:
    """Octets above 255, too few or too many parts and non-hex groups are no IP address."""
    assert found(IP, text) == []


def test_ipv4_mapped_ipv6_address_is_found() -> None:
    """An IPv4-mapped IPv6 address (`::ffff:192.168.1.1`) is found as an IP address."""
    assert found(IP, "host ::ffff:192.168.1.1 is up") == ["::ffff:192.168.1.1"]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("connect to 10.1.2.3:8080 now", "10.1.2.3"),
        ("see http://10.1.2.3:8080/x", "10.1.2.3"),
        ("ip:10.1.2.3", "10.1.2.3"),
        ("::ffff:10.1.2.3", "::ffff:10.1.2.3"),
    ],
)
def test_ipv4_address_next_to_a_colon_is_found(text: str, address: str) -> None:
    """A port after a dotted quad, or a label before it, does not hide the address."""
    assert found(IP, text) == [address]


def test_version_numbers_are_not_ip_addresses() -> None:
    assert found(IP, "release 1.2.3.4.5 and v1.2.3.4") == []
