"""The ``crypto`` detector (govcore/detection/detectors/crypto.py): Base58Check and segwit
addresses of Bitcoin's main network, their checksums, and test-network addresses left alone."""

from __future__ import annotations

import pytest

from tests.detection.detectors.world_refs import base58check, segwit
from tests.detection.scanning import found

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
