"""The ``crypto`` detector: cryptocurrency wallet addresses.

- Bitcoin addresses of the main network: Base58Check (P2PKH ``1...``, P2SH ``3...``) with their
  double-SHA-256 checksum, and segwit addresses (``bc1...``) with their Bech32 (witness version
  0, BIP 173) or Bech32m (versions 1 to 16, BIP 350) checksum. Test-network addresses (``m``,
  ``n``, ``2``, ``tb1``) hold no value and fill documentation, so they are not reported.
- Ethereum addresses (``0x`` and 40 hex digits, also those of the networks that share Ethereum's
  format). Written in mixed case, the case of each letter is a checksum (EIP-55), which must
  hold; in one case throughout there is no checksum, and the value is reported weaker: 40 hex
  digits after ``0x`` can be any 160-bit value.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from govcore.detection.chars import glues
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded
from govcore.detection.secrets.token_checks import BECH32_ALPHABET, bech32_residue

__all__ = ["DETECTOR", "base58check_address", "eip55_checksum_ok", "segwit_address"]

_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_VALUE = {char: value for value, char in enumerate(_BASE58)}
# Version bytes of main-network addresses: 0x00 pay-to-public-key-hash, 0x05 pay-to-script-hash.
_MAINNET_VERSIONS = (0x00, 0x05)
_BECH32_RESIDUE, _BECH32M_RESIDUE = 1, 0x2BC830A3


def base58check_address(address: str) -> bool:
    """Whether ``address`` decodes to 25 bytes: a main-network version byte, a 20-byte hash and
    the first four bytes of the double SHA-256 of the 21 before them."""
    number = 0
    for char in address:
        value = _BASE58_VALUE.get(char)
        if value is None:
            return False
        number = number * 58 + value
    zeros = len(address) - len(address.lstrip("1"))  # each leading "1" is a zero byte
    size = (number.bit_length() + 7) // 8
    if zeros + size != 25:
        return False
    raw = bytes(zeros) + number.to_bytes(size, "big")
    digest = hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()
    return raw[0] in _MAINNET_VERSIONS and digest[:4] == raw[21:]


def segwit_address(address: str) -> bool:
    """Whether ``address`` (lower case) is a main-network segwit address: ``bc1``, a witness
    version, a witness program of the length that version allows, and the checksum that version
    uses."""
    if not 14 <= len(address) <= 90 or not address.startswith("bc1"):
        return False
    data = address[3:]
    if any(char not in BECH32_ALPHABET for char in data) or len(data) < 7:
        return False
    residue = bech32_residue(address)
    values = [BECH32_ALPHABET.index(char) for char in data[:-6]]
    version, program = values[0], _regroup(values[1:])
    if program is None or version > 16 or not 2 <= len(program) <= 40:
        return False
    if version == 0:
        return residue == _BECH32_RESIDUE and len(program) in (20, 32)
    return residue == _BECH32M_RESIDUE


def _regroup(values: list[int]) -> bytes | None:
    """Five-bit groups as bytes; None when the padding left over is more than four bits or not
    zero (BIP 173)."""
    accumulator, bits, out = 0, 0, bytearray()
    for value in values:
        accumulator = accumulator << 5 | value
        bits += 5
        if bits >= 8:
            bits -= 8
            out.append(accumulator >> bits & 0xFF)
    if bits >= 5 or accumulator & ((1 << bits) - 1):
        return None
    return bytes(out)


@functools.cache
def _keccak() -> Any:
    """pycryptodome's Keccak, imported at the first mixed-case candidate rather than with
    govcore (its native library costs tens of milliseconds that most processes never need);
    ``None`` when it cannot be imported (a broken install, or the abandoned ``pycrypto``, which
    uses the same package name): then mixed-case addresses count as unchecked rather than
    failing a check. (pycryptodome is a dependency of govcore, so only a broken install gets
    here; this layer does no logging.)"""
    try:
        from Crypto.Hash import keccak
    except ImportError:
        return None
    return keccak


def eip55_checksum_ok(hex_digits: str) -> bool | None:
    """EIP-55: a letter of the address is a capital exactly where the matching hex digit of the
    Keccak-256 hash of the lower-case address is 8 or more. ``None`` when it cannot be told
    (see :func:`_keccak`)."""
    keccak = _keccak()
    if keccak is None:
        return None
    lower = hex_digits.lower()
    digest = keccak.new(digest_bits=256, data=lower.encode("ascii")).hexdigest()
    expected = "".join(
        char.upper() if nibble in _HIGH_NIBBLES else char
        for char, nibble in zip(lower, digest, strict=False)
    )
    return expected == hex_digits


_HIGH_NIBBLES = frozenset("89abcdef")

# Without the mixed-case checksum an address is only a shape: reported below the blocking
# confidence.
_UNCHECKED_ETHEREUM_FACTOR = 0.7


def _ethereum(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues) or text[start + 1] != "x":
        return None  # "0X..." is no address as printed
    hex_digits = text[start + 2 : end]
    if hex_digits.count("0") == len(hex_digits):
        return None  # the zero address: a placeholder and a burn address, nobody's wallet
    letters = [char for char in hex_digits if char.isalpha()]
    if any(char.isupper() for char in letters) and any(char.islower() for char in letters):
        verified = eip55_checksum_ok(hex_digits)
        if verified is None:
            return start, end, _UNCHECKED_ETHEREUM_FACTOR
        return (start, end, 1.0) if verified else None
    return start, end, _UNCHECKED_ETHEREUM_FACTOR


def _base58(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    return (start, end, 1.0) if base58check_address(text[start:end]) else None


def _segwit(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    if not (candidate.islower() or candidate.isupper()):
        return None  # BIP 173: one case throughout
    return (start, end, 1.0) if segwit_address(candidate.lower()) else None


DETECTOR = Detector(
    kind="crypto",
    explanation="contains a cryptocurrency address",
    replacement="[crypto address removed]",
    example="1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    patterns=(
        # Base58 is case-sensitive; the scanner's patterns fold case unless told not to.
        CandidatePattern(r"(?-i:[13][1-9A-HJ-NP-Za-km-z]{25,34})", _base58),
        CandidatePattern(r"bc1[02-9ac-hj-np-z]{11,87}", _segwit),
        CandidatePattern(r"\b0x[0-9a-f]{40}", _ethereum),
    ),
)
