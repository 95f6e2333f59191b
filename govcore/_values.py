"""Small rules about JSON values that several layers share."""

from __future__ import annotations

from typing import Any

__all__ = ["integral", "json_equal"]


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON sees it: ``true`` is not ``1`` and ``false`` is not ``0``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return bool(left == right)


def integral(value: float) -> float | int:
    """``value`` as an ``int`` when it is a whole number (``3.0`` shows as ``3``), else as is."""
    return int(value) if float(value).is_integer() else value
