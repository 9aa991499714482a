"""Building blocks of the protocol messages: number formatting and parsing, base classes.

The message classes themselves are in :mod:`rllib_curling.protocol.messages`; import everything
from :mod:`rllib_curling.protocol`. A message class mixes one of the argument shapes below into
``ServerMessage`` or ``ClientMessage``; the shape supplies validation, ``to_text`` (wire text
without terminator) and ``parse_args`` (the text after the keyword → message):

- ``_Numbers``: arguments are the dataclass fields in order (``int`` or ``float``);
- ``_Coords``: 32 floats, ``coords`` (POSITION, RESETPOSITION);
- ``_Seat``: ``Player1|Player2`` ↔ ``seat`` 0/1 (CONNECTNAME, legacy NAME);
- ``_Word``: one word of ``ALLOWED`` (GAMEOVER, CENTERLINE_CHOICE).

Constructors raise :class:`ProtocolError` naming the field, the value and what is allowed.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

import numpy as np

from rllib_curling.errors import ProtocolError

#: Floats are written with at most this many decimals (1 µm for positions), never an exponent.
FLOAT_DECIMALS = 6
#: POSITION / RESETPOSITION carry 16 stones × (x, y).
N_COORDS = 32
#: Empty messages in a row that end a session: the platform sends 5 and clients quit after 5.
EMPTIES_TO_CLOSE = 5

_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NON_FINITE = {"nan", "inf", "infinity"}
_C = TypeVar("_C", bound="_Coords")


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


def split_key(key: str) -> tuple[str, int | None]:
    """Split a connection key and its level suffix: ``"localtest:3"`` → ``("localtest", 3)``.

    ``:0`` asks for the debug robot and ``:1`` … ``:8`` for built-in AI n (protocol.md §2); the
    range is the server's business. Without a numeric suffix: ``"abc"`` → ``("abc", None)``.
    """
    base, sep, suffix = key.rpartition(":")
    if sep and suffix.isascii() and suffix.isdigit():
        return base, int(suffix)
    return key, None


def _plain_floats(args: str, count: int) -> list[float] | None:
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


def _checked_number(what: str, value: object, integer: bool) -> float | int:
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


def _check_text(msg: object, value: str) -> None:
    if "\0" in value:
        raise ProtocolError(f"{type(msg).__name__} text {value!r} contains NUL; not allowed")


@dataclass(frozen=True)
class Message:
    """Base of every message. ``KEYWORD`` is the first token on the wire."""

    KEYWORD: ClassVar[str] = ""
    #: Whether ``encode`` puts a space before the NUL by default (the platform's habit).
    TRAILING_SPACE: ClassVar[bool] = False

    def to_text(self) -> str:
        """The message text, without trailing space or terminator."""
        return self.KEYWORD

    @classmethod
    def parse_args(cls, args: str) -> Message:
        """Build the message from the text after its keyword (raises ProtocolError)."""
        return cls()


@dataclass(frozen=True)
class ServerMessage(Message):
    """A message the server sends to a client: NUL-terminated on the wire, with a space before
    the NUL (``GO \0``, ``POSITION x0 … y15 \0``), which every course client accepts: the
    template strips each message, 2020-era clients need the space (docs/protocol_notes.md)."""

    TRAILING_SPACE: ClassVar[bool] = True


@dataclass(frozen=True)
class ClientMessage(Message):
    """A message a client sends to the server (bare text on the wire)."""


@dataclass(frozen=True)
class Empty(Message):
    """A bare NUL (either direction). ``EMPTIES_TO_CLOSE`` in a row end a session."""


@dataclass(frozen=True)
class Unknown(Message):
    """A message with a keyword this direction does not know: log it and carry on."""

    text: str

    def __post_init__(self) -> None:
        _check_text(self, self.text)

    def to_text(self) -> str:
        return self.text


@functools.cache
def _fields(cls: type) -> tuple[Any, ...]:
    """``dataclasses.fields`` of a message class, computed once."""
    return fields(cls)


@functools.cache
def _number_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """``(name, is_int)`` of each field of a ``_Numbers`` class, computed once."""
    return tuple((f.name, f.type in ("int", int)) for f in _fields(cls))


class _Numbers:
    """Arguments are the dataclass fields in order; ``int`` fields integral, ``float`` finite."""

    KEYWORD: ClassVar[str]

    def __post_init__(self) -> None:
        for name, is_int in _number_fields(type(self)):
            value = getattr(self, name)
            if type(value) is (int if is_int else float) and (is_int or math.isfinite(value)):
                continue  # already the field's type and valid (the common case)
            what = f"{type(self).__name__}.{name}"
            object.__setattr__(self, name, _checked_number(what, value, is_int))

    def to_text(self) -> str:
        values = [getattr(self, name) for name, _ in _number_fields(type(self))]
        tokens = [str(v) if isinstance(v, int) else format_float(v) for v in values]
        return " ".join([self.KEYWORD, *tokens])

    @classmethod
    def parse_args(cls, args: str) -> _Numbers:
        integer = [is_int for _, is_int in _number_fields(cls)]
        numbers = _plain_floats(args, len(integer))
        if numbers is not None:
            pairs = list(zip(numbers, integer, strict=True))
            if all(v.is_integer() for v, is_int in pairs if is_int):
                return cls(*(int(v) if is_int else v for v, is_int in pairs))
        tokens, names = args.split(), [f.name for f in _fields(cls)]
        if len(tokens) != len(names):
            raise ProtocolError(
                f"{cls.KEYWORD} takes {len(names)} number{'s' * (len(names) > 1)} "
                f"({' '.join(names)}), received {len(tokens)}"
            )
        integer = [f.type in ("int", int) for f in _fields(cls)]
        values = [
            parse_number(tok, f"{cls.KEYWORD} {name}", integer=is_int)
            for tok, name, is_int in zip(tokens, names, integer, strict=True)
        ]
        return cls(*values)


class _Coords:
    """``coords``: 32 floats x0 y0 … x15 y15, row k = stone k of the end in throwing order."""

    KEYWORD: ClassVar[str]
    coords: tuple[float, ...]

    def __post_init__(self) -> None:
        coords = self.coords
        if (
            type(coords) is tuple
            and len(coords) == N_COORDS
            and all(type(c) is float and math.isfinite(c) for c in coords)
        ):
            return  # already 32 finite Python floats (the decoder's output)
        name = type(self).__name__
        try:
            flat = np.asarray(self.coords, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise ProtocolError(f"{name}.coords must be {N_COORDS} numbers") from None
        if flat.size != N_COORDS:
            raise ProtocolError(f"{name}.coords needs {N_COORDS} numbers, received {flat.size}")
        if not np.isfinite(flat).all():
            bad = flat[~np.isfinite(flat)][0]
            raise ProtocolError(f"{name}.coords has {bad!r}; allowed: finite numbers")
        object.__setattr__(self, "coords", tuple(float(c) for c in flat))

    def to_array(self) -> np.ndarray:
        """The stones as a ``(16, 2)`` float64 array: row k = stone k, columns x, y (metres)."""
        return np.array(self.coords, dtype=np.float64).reshape(N_COORDS // 2, 2)

    @classmethod
    def from_array(cls: type[_C], array: np.ndarray) -> _C:
        """Build from a ``(16, 2)`` (or flat ``(32,)``) array of stone positions."""
        return cls(tuple(np.asarray(array, dtype=np.float64).reshape(-1).tolist()))

    def to_text(self) -> str:
        # The coordinates are finite Python floats (checked when built): format_float's work
        # without its checks, and stones at rest are sent again every shot: their text is kept.
        known = _COORD_TEXT
        tokens = [known.get(c) or _coord_text(c) for c in self.coords]
        return " ".join([self.KEYWORD, *tokens])

    @classmethod
    def parse_args(cls, args: str) -> _Coords:
        numbers = _plain_floats(args, N_COORDS)
        if numbers is not None:
            return cls(tuple(numbers))
        tokens = args.split()
        if len(tokens) != N_COORDS:
            raise ProtocolError(
                f"{cls.KEYWORD} takes {N_COORDS} numbers (x0 y0 … x15 y15), received {len(tokens)}"
            )
        names = [f"{xy}{k}" for k in range(N_COORDS // 2) for xy in "xy"]
        values = [parse_number(t, f"{cls.KEYWORD} {n}") for t, n in zip(tokens, names, strict=True)]
        return cls(tuple(values))


class _Seat:
    """``seat``: 0 = Player1 (throws first in end 1), 1 = Player2; wire ``Player1|Player2``."""

    KEYWORD: ClassVar[str]
    seat: int

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or self.seat not in (0, 1):
            raise ProtocolError(f"{type(self).__name__}.seat is {self.seat!r}; allowed: 0 or 1")
        object.__setattr__(self, "seat", int(self.seat))

    @property
    def player(self) -> str:
        """``"Player1"`` or ``"Player2"``."""
        return f"Player{self.seat + 1}"

    def to_text(self) -> str:
        return f"{self.KEYWORD} {self.player}"

    @classmethod
    def parse_args(cls, args: str) -> _Seat:
        tokens = args.split()
        match = re.fullmatch(r"player([12])", tokens[0], re.IGNORECASE) if tokens else None
        if match is None:
            got = repr(tokens[0]) if tokens else "nothing"
            raise ProtocolError(f"{cls.KEYWORD} takes Player1 or Player2, received {got}")
        return cls(int(match.group(1)) - 1)


class _Word:
    """One field holding one of ``ALLOWED`` (upper case; decoding is case-insensitive)."""

    KEYWORD: ClassVar[str]
    ALLOWED: ClassVar[tuple[str, ...]]

    def _word(self) -> str:
        return getattr(self, fields(self)[0].name)

    def __post_init__(self) -> None:
        if self._word() not in self.ALLOWED:
            name = f"{type(self).__name__}.{fields(self)[0].name}"
            raise ProtocolError(f"{name} is {self._word()!r}; allowed: {'/'.join(self.ALLOWED)}")

    def to_text(self) -> str:
        return f"{self.KEYWORD} {self._word()}"

    @classmethod
    def parse_args(cls, args: str) -> _Word:
        tokens = args.split()
        if not tokens or tokens[0].upper() not in cls.ALLOWED:
            got = repr(tokens[0]) if tokens else "nothing"
            raise ProtocolError(f"{cls.KEYWORD} takes {'/'.join(cls.ALLOWED)}, received {got}")
        return cls(tokens[0].upper())
