"""Keccak-256 (govcore/detection/keccak.py), checked against two oracles it does not share code
with: the published digest of the empty message, and Python's SHA3-256, which is the same
permutation with the SHA-3 padding."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from govcore.detection.keccak import keccak_256

# Keccak-256 of the empty message, as published with the Keccak submission and used by
# Ethereum (the hash of empty code).
EMPTY = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"


def test_the_digest_of_the_empty_message() -> None:
    assert keccak_256(b"").hex() == EMPTY


@given(st.binary(max_size=600))
def test_with_the_sha3_padding_it_is_sha3_256(data: bytes) -> None:
    """Lengths around and across the 136-byte rate: one block, exactly full, several."""
    assert keccak_256(data, domain=0x06) == hashlib.sha3_256(data).digest()


def test_the_padding_is_what_tells_keccak_from_sha3() -> None:
    assert keccak_256(b"abc") != hashlib.sha3_256(b"abc").digest()
