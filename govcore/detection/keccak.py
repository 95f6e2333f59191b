"""Keccak-256, the hash Ethereum's address checksum (EIP-55) is computed with.

Python's ``hashlib.sha3_256`` runs the same permutation (Keccak-f[1600]) but pads the message
with the SHA-3 domain bits (``0x06``) where Ethereum, which predates the standard, pads with
``0x01``; so its digests differ and it cannot be used. This is the permutation as the Keccak
team specified it, with the round constants and rotation offsets derived from their
definitions rather than tabulated. It runs in pure Python, which is slow (about a hundred
microseconds a hash), and is used only on the rare candidates that need it.
"""

from __future__ import annotations

__all__ = ["keccak_256", "keccak_f1600"]

_MASK = (1 << 64) - 1
_RATE = 136  # bytes absorbed per permutation for a 256-bit digest (1600 - 2 * 256 bits)


def _round_constants() -> tuple[int, ...]:
    """The 24 iota constants: bit 2^j - 1 of round i's constant is output 7i + j of the
    linear feedback shift register x^8 + x^6 + x^5 + x^4 + 1."""
    register = 1
    constants = []
    for _ in range(24):
        constant = 0
        for j in range(7):
            if register & 1:
                constant |= 1 << ((1 << j) - 1)
            register = ((register << 1) ^ 0x71) & 0xFF if register & 0x80 else register << 1
        constants.append(constant)
    return tuple(constants)


def _rotation_offsets() -> tuple[int, ...]:
    """Rho's offset of lane (x, y), at index x + 5y: (t + 1)(t + 2) / 2 modulo 64 for the t-th
    lane of the walk (x, y) -> (y, 2x + 3y) from (1, 0); lane (0, 0) is not rotated."""
    offsets = [0] * 25
    x, y = 1, 0
    for t in range(24):
        offsets[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return tuple(offsets)


_ROUND_CONSTANTS = _round_constants()
_ROTATIONS = _rotation_offsets()
# Pi moves lane (x, y) to (y, 2x + 3y): the destination of each source index.
_PI_TARGET = tuple(y + 5 * ((2 * x + 3 * y) % 5) for y in range(5) for x in range(5))
_PI_SOURCE = tuple(x + 5 * y for y in range(5) for x in range(5))


def _rotl(lane: int, shift: int) -> int:
    return ((lane << shift) | (lane >> (64 - shift))) & _MASK if shift else lane


def keccak_f1600(state: list[int]) -> None:
    """Permute the 25 lanes of ``state`` (index x + 5y, 64-bit integers) in place."""
    moved = [0] * 25
    for constant in _ROUND_CONSTANTS:
        # theta: each column's parity, mixed into its two neighbours.
        parity = [state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20]
                  for x in range(5)]  # fmt: skip
        for x in range(5):
            mix = parity[(x - 1) % 5] ^ _rotl(parity[(x + 1) % 5], 1)
            for y in range(0, 25, 5):
                state[x + y] ^= mix
        # rho and pi: rotate each lane and move it.
        for source, target in zip(_PI_SOURCE, _PI_TARGET, strict=True):
            moved[target] = _rotl(state[source], _ROTATIONS[source])
        # chi: the only non-linear step, along rows.
        for y in range(0, 25, 5):
            row = moved[y : y + 5]
            for x in range(5):
                state[x + y] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5])
        # iota
        state[0] ^= constant


def keccak_256(data: bytes, *, domain: int = 0x01) -> bytes:
    """The 32-byte Keccak-256 digest of ``data`` (``domain=0x06`` gives SHA3-256)."""
    padded = bytearray(data)
    padded.append(domain)
    padded.extend(bytes(-len(padded) % _RATE))
    padded[-1] |= 0x80
    state = [0] * 25
    for offset in range(0, len(padded), _RATE):
        for lane in range(_RATE // 8):
            start = offset + 8 * lane
            state[lane] ^= int.from_bytes(padded[start : start + 8], "little")
        keccak_f1600(state)
    return b"".join(lane.to_bytes(8, "little") for lane in state[:4])
