"""Reference check-digit computations for the country identifier tests, written from the
authorities' definitions independently of govcore's detectors: each ``complete_*`` takes the
digits (or characters) before the check and returns the whole value, so a test builds valid
values and, by changing the check, near misses."""

from __future__ import annotations

import hashlib


def wrong_last(value: str) -> str:
    """``value`` with its last digit changed (a digit that fails any single-digit check)."""
    last = value[-1]
    return value[:-1] + ("1" if last == "0" else "0") if last.isdigit() else value[:-1] + "Q"


def complete_tfn(first8: str) -> str:
    """A TFN: the ninth digit that makes the 1,4,3,7,5,8,6,9,10 weighted sum divide by 11."""
    for check in "0123456789":
        number = first8 + check
        if (
            sum(int(n) * w for n, w in zip(number, [1, 4, 3, 7, 5, 8, 6, 9, 10], strict=False)) % 11
            == 0
        ):
            return number
    raise ValueError(f"no TFN check digit for {first8}")


def complete_abn(last9: str) -> str:
    """An ABN from its last nine digits: the two leading check digits (10 to 99) that make the
    weighted sum (first digit less one) divide by 89."""
    for lead in range(10, 100):
        number = f"{lead}{last9}"
        digits = [int(number[0]) - 1] + [int(c) for c in number[1:]]
        weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
        if sum(d * w for d, w in zip(digits, weights, strict=False)) % 89 == 0:
            return number
    raise ValueError(f"no ABN for {last9}")


def abn_ok(number: str) -> bool:
    """Whether an eleven-digit number is an ABN (the first digit less one, weighted, mod 89)."""
    if len(number) != 11 or number[0] == "0":
        return False
    weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
    values = [int(number[0]) - 1] + [int(c) for c in number[1:]]
    return sum(v * w for v, w in zip(values, weights, strict=False)) % 89 == 0


def complete_acn(first8: str) -> str:
    total = sum(int(c) * (8 - i) for i, c in enumerate(first8))
    return first8 + str((10 - total % 10) % 10)


def complete_medicare(first8: str, issue: str = "1") -> str:
    weights = [1, 3, 7, 9, 1, 3, 7, 9]
    return first8 + str(sum(int(c) * w for c, w in zip(first8, weights, strict=False)) % 10) + issue


_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_P1 = [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]  # the position permutation; position k applies it k times
_INVERSE = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def _permute(value: int, times: int) -> int:
    for _ in range(times % 8):
        value = _P1[value]
    return value


def complete_verhoeff(body: str) -> str:
    """``body`` and its Verhoeff check digit (the check sits at position 0 from the right)."""
    c = 0
    for position, char in enumerate(reversed(body), start=1):
        c = _D[c][_permute(int(char), position)]
    return body + str(_INVERSE[c])


def complete_gstin(first14: str) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    total = 0
    for index, char in enumerate(first14):
        product = alphabet.index(char) * (2 if index % 2 else 1)
        total += product // 36 + product % 36
    return first14 + alphabet[-total % 36]


def complete_nric(prefix: str, digits7: str) -> str:
    total = sum(int(c) * w for c, w in zip(digits7, [2, 7, 6, 5, 4, 3, 2], strict=False))
    total += {"S": 0, "T": 4, "F": 0, "G": 4, "M": 3}[prefix]
    if prefix in "ST":
        table = "JZIHGFEDCBA"
    elif prefix in "FG":
        table = "XWUTRQPNMLK"
    else:
        return prefix + digits7 + "KLJNPQRTUWX"[10 - total % 11]
    return prefix + digits7 + table[total % 11]


def complete_uen_business(digits8: str) -> str:
    total = sum(int(c) * w for c, w in zip(digits8, [10, 4, 9, 3, 8, 2, 7, 1], strict=False))
    return digits8 + "XMKECAWLJDB"[total % 11]


def complete_uen_local(digits9: str) -> str:
    total = sum(int(c) * w for c, w in zip(digits9, [10, 8, 6, 4, 9, 7, 5, 3, 1], strict=False))
    return digits9 + "ZKCMDNERGWH"[total % 11]


def complete_uen_other(first9: str) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWX0123456789"
    total = sum(
        alphabet.index(c) * w for c, w in zip(first9, [4, 3, 5, 3, 10, 2, 2, 5, 7], strict=False)
    )
    return first9 + alphabet[(total - 5) % 11]


def complete_rrn(first12: str) -> str:
    weights = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    total = sum(int(c) * w for c, w in zip(first12, weights, strict=False))
    return first12 + str((11 - total % 11) % 10)


def complete_tnin(first12: str) -> str:
    total = sum(int(c) * (13 - i) for i, c in enumerate(first12))
    return first12 + str((11 - total % 11) % 10)


def complete_tckn(first9: str) -> str:
    d = [int(c) for c in first9]
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    eleventh = (sum(d) + tenth) % 10
    return f"{first9}{tenth}{eleventh}"


def luhn_complete(body: str) -> str:
    for check in "0123456789":
        number = body + check
        total = 0
        for i, c in enumerate(reversed(number)):
            v = int(c) * (2 if i % 2 else 1)
            total += v // 10 + v % 10
        if total % 10 == 0:
            return number
    raise AssertionError("unreachable")


def complete_aba(first8: str) -> str:
    weights = [3, 7, 1, 3, 7, 1, 3, 7]
    total = sum(int(c) * w for c, w in zip(first8, weights, strict=False))
    return first8 + str(-total % 10)


def complete_ph_tin(first8: str) -> str | None:
    remainder = sum(int(c) * w for c, w in zip(first8, [9, 8, 7, 6, 5, 4, 3, 2], strict=False)) % 11
    return None if remainder == 10 else first8 + str(remainder)


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check(version: int, payload: bytes) -> str:
    """A Base58Check string of ``version`` and ``payload`` (Bitcoin's address encoding)."""
    raw = bytes([version]) + payload
    raw += hashlib.sha256(hashlib.sha256(raw).digest()).digest()[:4]
    number = int.from_bytes(raw, "big")
    out = ""
    while number:
        number, rest = divmod(number, 58)
        out = _B58[rest] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        b = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i, g in enumerate([0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]):
            chk ^= g if (b >> i) & 1 else 0
    return chk


def segwit(version: int, program: bytes, hrp: str = "bc", *, bech32m: bool | None = None) -> str:
    """A segwit address (BIP 173/350); the checksum variant follows the version unless given."""
    data = [version]
    acc = bits = 0
    for byte in program:
        acc = (acc << 8) | byte
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    constant = 0x2BC830A3 if (version > 0 if bech32m is None else bech32m) else 1
    expanded = [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp]
    mod = _polymod(expanded + data + [0] * 6) ^ constant
    checksum = [(mod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_CHARSET[d] for d in data + checksum)
