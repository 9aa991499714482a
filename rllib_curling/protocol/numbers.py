"""Numbers on the wire: how floats are written (``format_float``) and how tokens are read
(``parse_number``, and ``plain_floats``, the decoder's fast path), with the checks a message's
numeric fields go through (``checked_number``) and the kept texts of stone coordinates
(``coord_texts``)."""

from __future__ import annotations

import math
import re
from typing import Any

from rllib_curling.errors import ProtocolError

#: Floats are written with at most this many decimals (1 µm for positions), never an exponent.
FLOAT_DECIMALS = 6

_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NON_FINITE = {"nan", "inf", "infinity"}


def format_float(value: float, decimals: int = FLOAT_DECIMALS) -> str:
    """Wire form of a float: ``-1.5``, ``2.375``, ``0``; no exponent, no ``-0``, no padding."""
    value = float(value)
    if value == 0.0:
        return "0"  # most POSITION numbers: stones not in play
    if not math.isfinite(value):
        raise ProtocolError(f"cannot send the number {value!r}; allowed: finite floats")
    return _fixed_point(value, decimals)


def _fixed_point(value: float, decimals: int = FLOAT_DECIMALS) -> str:
    """``format_float`` of a finite non-zero Python float (the checks done by the caller)."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")  # "%.Nf" always has the point
    return "0" if text == "-0" else text


#: ``format_float`` of coordinates sent lately (stones at rest are in every POSITION until
#: they move); at most ``_COORD_TEXT_MAX`` entries, then it starts again.
_COORD_TEXT: dict[float, str] = {}
_COORD_TEXT_MAX = 4096


def _coord_text(value: float) -> str:
    """``format_float`` of a finite Python float, remembered in ``_COORD_TEXT``."""
    if len(_COORD_TEXT) >= _COORD_TEXT_MAX:
        _COORD_TEXT.clear()
    text = _COORD_TEXT[value] = "0" if value == 0.0 else _fixed_point(value)
    return text


def coord_texts(coords: tuple[float, ...]) -> list[str]:
    """``format_float`` of each coordinate, finite Python floats (checked by the caller); stones
    at rest are sent again every shot, so their texts are kept (``_COORD_TEXT``)."""
    known = _COORD_TEXT
    return [known.get(c) or _coord_text(c) for c in coords]


def parse_number(token: str, what: str, *, integer: bool = False) -> float | int:
    """Parse one token like ``3``, ``3.0``, ``-2.``, ``1e-05``; NaN, inf and junk raise.

    With ``integer=True`` the value must be integral (``3.`` is fine: numpy prints it) and an
    ``int`` is returned.
    """
    if token.lower().lstrip("+-") in _NON_FINITE:
        raise ProtocolError(f"{what} is {token!r}: NaN and infinity are not allowed")
    if not _NUMBER_RE.fullmatch(token):
        raise ProtocolError(
            f"{what} is {token!r}, not a number; allowed: decimals like 3, 3.0, -2., 1e-05"
        )
    value = float(token)
    if not math.isfinite(value):
        raise ProtocolError(f"{what} is {token!r}, which overflows to infinity")
    if integer:
        if not value.is_integer():
            raise ProtocolError(f"{what} is {token!r}; allowed: an integer")
        return int(value)
    return value


def plain_floats(args: str, count: int) -> list[float] | None:
    """The fast path of decoding: ``count`` finite numbers in the protocol's syntax, or None
    (the caller's strict path then decides and words the error). Python's ``float`` accepts
    a superset of ``_NUMBER_RE`` (``nan``, ``inf``, ``1_0``, non-ASCII digits): ASCII without
    ``_`` and a finite sum rule those out, so this accepts exactly what the strict path does."""
    if not args.isascii() or "_" in args:
        return None
    tokens = args.split()
    if len(tokens) != count:
        return None
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        return None
    return values if math.isfinite(sum(values)) else None


def checked_number(what: str, value: Any, integer: bool) -> float | int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ProtocolError(f"{what} is {value!r}; allowed: a number") from None
    if not math.isfinite(number):
        raise ProtocolError(f"{what} is {value!r}; allowed: finite numbers")
    if not integer:
        return number
    if isinstance(value, bool) or not number.is_integer():
        raise ProtocolError(f"{what} is {value!r}; allowed: an integer")
    return int(number)
