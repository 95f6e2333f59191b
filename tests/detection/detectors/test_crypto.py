"""The ``crypto`` detector (govcore/detection/detectors/crypto.py): Base58Check and segwit
addresses of Bitcoin's main network, their checksums, and test-network addresses left alone."""

from __future__ import annotations

import sys

import pytest

from tests.detection.detectors.world_refs import base58check, segwit
from tests.detection.scanning import found, scanner

RULE = {"pii": "crypto"}
HASH = bytes.fromhex("751e76e8199196d454941c45d1b3a323f1433bd6")
P2PKH = base58check(0x00, HASH)
P2SH = base58check(0x05, bytes(range(20)))
P2WPKH = segwit(0, HASH)
P2WSH = segwit(0, bytes(range(32)))
TAPROOT = segwit(1, bytes(range(100, 132)))


@pytest.mark.parametrize("address", [P2PKH, P2SH, P2WPKH, P2WSH, TAPROOT, P2WPKH.upper()])
@pytest.mark.parametrize(
    "template", ["send to {} please", '{{"address": "{}"}}', "Adresse: {}.", "地址{}谢谢"]
)
def test_main_network_addresses_are_found(address: str, template: str) -> None:
    """Main-network P2PKH, P2SH, P2WPKH, P2WSH and Taproot addresses, upper-case segwit too, are found in prose, JSON and Chinese text."""
    assert found(RULE, template.format(address)) == [address]


def _flip(address: str) -> str:
    """One character changed to another of the same alphabet."""
    index = len(address) // 2
    swap = {"q": "p", "p": "q"}.get(address[index], "q" if address.startswith("bc1") else "2")
    if address[index] == swap:
        swap = "3"
    return address[:index] + swap + address[index + 1 :]


@pytest.mark.parametrize(
    "address",
    [
        _flip(P2PKH),
        _flip(P2WPKH),
        _flip(TAPROOT),
        base58check(0x6F, HASH),  # test network P2PKH (m..., n...)
        base58check(0xC4, HASH),  # test network P2SH (2...)
        base58check(0x06, HASH),  # starts with 3, but version 6 is no address type
        segwit(0, HASH, "tb"),  # test network segwit
        segwit(0, HASH, bech32m=True),  # version 0 with a Bech32m checksum
        segwit(1, HASH + bytes(12), bech32m=False),  # version 1 with a Bech32 checksum
        segwit(0, bytes(25)),  # version 0 with a 25-byte program
        P2WPKH[:3] + P2WPKH[3:].upper(),  # mixed case
        P2PKH + "x",
    ],
)
def test_near_misses_are_not_found(address: str) -> None:
    """A changed character, test-network addresses, the wrong checksum variant or program length, mixed case or glue are no address."""
    assert found(RULE, f"send to {address} please") == []


# Addresses printed with their EIP-55 checksum in the proposal's own examples.
EIP55 = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
]


@pytest.mark.parametrize("address", EIP55)
def test_ethereum_addresses_with_their_checksum_are_found(address: str) -> None:
    text = f"Send it to {address} today"
    [hit] = scanner(RULE).scan(text)
    assert text[hit.start : hit.end] == address
    assert hit.confidence == pytest.approx(0.9)


def test_an_ethereum_address_in_one_case_is_found_weaker() -> None:
    """Without mixed case there is no checksum: any 160-bit value printed after 0x."""
    for address in (EIP55[0].lower(), "0x" + EIP55[0][2:].upper()):
        [hit] = scanner(RULE).scan(f"wallet {address}")
        assert hit.confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize(
    "text",
    [
        EIP55[0][:-1] + EIP55[0][-1].swapcase(),  # one letter's case flipped: checksum fails
        EIP55[1][:10] + EIP55[1][10:].swapcase(),
        EIP55[0] + "1",  # 41 hex digits
        EIP55[0][:-1],  # 39
        "0X" + EIP55[0][2:],  # the prefix in capitals
        "x" + EIP55[0],  # glued
        "0x" + "0" * 40,  # the zero address
    ],
)
def test_ethereum_near_misses_are_not_found(text: str) -> None:
    assert found(RULE, f"to {text} now") == []


def test_without_pycryptodome_a_mixed_case_address_counts_as_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A broken install (or the abandoned pycrypto under the same name) does not fail a check:
    the address is reported as if it had no checksum."""
    from govcore.detection.detectors import crypto

    monkeypatch.setitem(sys.modules, "Crypto.Hash", None)
    crypto._keccak.cache_clear()
    try:
        [hit] = scanner(RULE).scan(f"to {EIP55[0]} now")
        assert hit.confidence == pytest.approx(0.9 * 0.7)
    finally:
        crypto._keccak.cache_clear()
