"""The ``mac_address`` detector (govcore/detection/detectors/mac_address.py): colon, hyphen and
Cisco dotted forms of EUI-48 and EUI-64, one separator throughout, not part of a longer run, not
the broadcast address; pairs joined by spaces only after a word that names an address."""

from __future__ import annotations

import pytest

from tests.detection.scanning import found, scanner

RULE = {"pii": "mac_address"}


@pytest.mark.parametrize(
    ("text", "mac"),
    [
        ("ether 00:1A:2B:3C:4D:5E txqueuelen", "00:1A:2B:3C:4D:5E"),
        ("Physical Address. . . : 3C-52-82-7F-A1-09", "3C-52-82-7F-A1-09"),
        ("mac-address-table 001a.2b3c.4d5e", "001a.2b3c.4d5e"),
        ('{"mac":"f4:5c:89:ab:cd:ef"}', "f4:5c:89:ab:cd:ef"),
        ("Die MAC-Adresse ist a4:83:e7:12:34:56.", "a4:83:e7:12:34:56"),
        ("MACアドレスはa4:83:e7:12:34:56です", "a4:83:e7:12:34:56"),
        ("EUI-64 02:1a:2b:ff:fe:3c:4d:5e", "02:1a:2b:ff:fe:3c:4d:5e"),
        ("node 01-02-03-04-05-06-07-ab joined", "01-02-03-04-05-06-07-ab"),
        ("ieee 0102.0304.0506.07ab", "0102.0304.0506.07ab"),
    ],
)
def test_mac_addresses_are_found(text: str, mac: str) -> None:
    """MAC addresses (EUI-48 and EUI-64) are found in colon, hyphen and dotted forms, in logs, JSON and German or Japanese prose."""
    assert found(RULE, text) == [mac]


@pytest.mark.parametrize(
    "text",
    [
        "00:1A:2B:3C:4D",  # five pairs
        "00:1A:2B-3C:4D:5E",  # mixed separators
        "2001:db8:00:1a:2b:3c:4d:5e",  # inside an IPv6 address
        "fingerprint 00:1a:2b:3c:4d:5e:6f:70:81",  # a longer run of pairs
        "00:1A:2B:3C:4D:5G",  # G is no hex digit
        "x00:1A:2B:3C:4D:5E",
        "001a2b3c4d5e",  # twelve bare hex digits: anything
        "time 12:30:45",
        "00:1a:2b:3c:4d:5e:6f",  # seven pairs: neither EUI-48 nor EUI-64
        "01:02:03:04:05:06::ab",  # an IPv6-style "::" goes on with the run
        "Broadcast: FF:FF:FF:FF:FF:FF",  # names no device
        "ff-ff-ff-ff-ff-ff-ff-ff",
        "scores 10 20 30 40 50 60",  # spaced pairs, unnamed: numbers, words, dumps, logs
        "be ad de ed fa ce",
        "0000: 00 1a 2b 3c 4d 5e 6f 70 81 92",
        "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 41 42  |Hello, world!.AB|",
        "00000010: 6f 72 6c 64 21 0a  orld!.",
        "can0  123   [8]  DE AD BE EF 12 34 56 78",
        "Sent APDU: 00 A4 04 00 07 A0",
        "Samples in wells A1 A2 A3 A4 A5 A6 were discarded.",
        "exercises 1a 1b 1c 2a 2b 2c",
        "MAC A9C5 D4 9F EB D3 B6 65",  # named, but a hex group before the pairs: a longer run
        "00:1A:2B:3C:4D-5E-6F:70",  # the EUI-64 tail with other separators
    ],
)
def test_near_misses_are_not_found(text: str) -> None:
    """Five pairs, mixed separators, a longer run, a non-hex digit, glue, bare hex or a time are no MAC address."""
    assert found(RULE, text) == []


def test_space_separated_pairs_after_their_name() -> None:
    text = "BSSID A9 C5 D4 9F EB D3 seen"
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == "A9 C5 D4 9F EB D3"
    assert hit.confidence == pytest.approx(0.9)
    text = "MAC address: 01 02 03 04 05 06 07 ab"
    assert found(RULE, text) == ["01 02 03 04 05 06 07 ab"]
    assert found(RULE, "id A9 C5 D4 9F EB D3 seen") == []


@pytest.mark.parametrize(
    ("text", "mac"),
    [
        ("STA 00:1a:2b:3c:4d:5e 12:00:01 associated", "00:1a:2b:3c:4d:5e"),
        ("00-1a-2b-3c-4d-5e 10-20", "00-1a-2b-3c-4d-5e"),
        ("00:1A:2B:3C:4D:5E 12 34", "00:1A:2B:3C:4D:5E"),
    ],
)
def test_what_follows_with_another_separator_is_not_an_eui64_tail(text: str, mac: str) -> None:
    assert found(RULE, text) == [mac]
