"""The base classes of the protocol's messages and the shapes of their arguments.

The message classes themselves are in :mod:`rllib_curling.protocol.messages`; import everything
from :mod:`rllib_curling.protocol`. A message class mixes one of the argument shapes below into
``ServerMessage`` or ``ClientMessage``; the shape supplies validation, ``to_text`` (wire text
without terminator) and ``parse_args`` (the text after the keyword → message):

- ``NumberArgs``: arguments are the dataclass fields in order (``int`` or ``float``);
- ``StateArgs``: the four ints of the game state (SETSTATE, RESETSTATE);
- ``CoordArgs``: 32 floats, ``coords`` (POSITION, RESETPOSITION);
- ``SeatArg``: ``Player1|Player2`` ↔ ``seat`` 0/1 (CONNECTNAME, legacy NAME);
- ``WordArg``: one word of ``ALLOWED`` (GAMEOVER, CENTERLINE_CHOICE).

Constructors raise :class:`ProtocolError` naming the field, the value and what is allowed.
"""

from __future__ import annotations

import math
import re
from dataclasses import Field, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from rllib_curling.errors import ProtocolError
from rllib_curling.protocol.numbers import (
    checked_number,
    coord_texts,
    format_float,
    parse_number,
    plain_floats,
)

#: POSITION / RESETPOSITION carry 16 stones × (x, y).
N_COORDS = 32
#: Empty messages in a row that end a session: the platform sends 5 and clients quit after 5.
EMPTIES_TO_CLOSE = 5

_M = TypeVar("_M", bound="Message")
_N = TypeVar("_N", bound="NumberArgs")
_C = TypeVar("_C", bound="CoordArgs")
_S = TypeVar("_S", bound="SeatArg")
_W = TypeVar("_W", bound="WordArg")


def check_text(msg: object, value: str) -> None:
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
    def parse_args(cls: type[_M], args: str) -> _M:
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
        check_text(self, self.text)

    def to_text(self) -> str:
        return self.text


_FIELDS: dict[type[Message], tuple[Field[Any], ...]] = {}
_NUMBER_FIELDS: dict[type[Message], tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type[Message]) -> tuple[Field[Any], ...]:
    """``dataclasses.fields`` of a message class, computed once."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = fields(cls)
    return found


def _number_fields(cls: type[Message]) -> tuple[tuple[str, bool], ...]:
    """``(name, is_int)`` of each field of a ``NumberArgs`` class, computed once."""
    found = _NUMBER_FIELDS.get(cls)
    if found is None:
        found = tuple((f.name, f.type in ("int", int)) for f in _fields(cls))
        _NUMBER_FIELDS[cls] = found
    return found


class NumberArgs(Message):
    """Arguments are the dataclass fields in order; ``int`` fields integral, ``float`` finite."""

    KEYWORD: ClassVar[str]

    def __post_init__(self) -> None:
        for name, is_int in _number_fields(type(self)):
            value = getattr(self, name)
            if type(value) is (int if is_int else float) and (is_int or math.isfinite(value)):
                continue  # already the field's type and valid (the common case)
            what = f"{type(self).__name__}.{name}"
            object.__setattr__(self, name, checked_number(what, value, is_int))

    def to_text(self) -> str:
        values = [getattr(self, name) for name, _ in _number_fields(type(self))]
        tokens = [str(v) if isinstance(v, int) else format_float(v) for v in values]
        return " ".join([self.KEYWORD, *tokens])

    if TYPE_CHECKING:  # the message classes are dataclasses: their fields, in order

        def __init__(self, *values: Any) -> None: ...

    @classmethod
    def parse_args(cls: type[_N], args: str) -> _N:
        integer = [is_int for _, is_int in _number_fields(cls)]
        numbers = plain_floats(args, len(integer))
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


@dataclass(frozen=True)
class StateArgs(NumberArgs):
    """``shot end total next_seat`` (SETSTATE, RESETSTATE): ``shot`` 0–15 = next stone, 16
    once the 16th has stopped; ``end`` from 0; ``total`` ends 4, 8 or -1 (unlimited);
    ``next_seat`` 0 = Player1 / 1 = Player2 throws next."""

    shot: int
    end: int
    total: int
    next_seat: int


@dataclass(frozen=True)
class CoordArgs(Message):
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
        # The coordinates are finite Python floats (checked when built).
        return " ".join([self.KEYWORD, *coord_texts(self.coords)])

    @classmethod
    def parse_args(cls: type[_C], args: str) -> _C:
        numbers = plain_floats(args, N_COORDS)
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


@dataclass(frozen=True)
class SeatArg(Message):
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
    def parse_args(cls: type[_S], args: str) -> _S:
        tokens = args.split()
        match = re.fullmatch(r"player([12])", tokens[0], re.IGNORECASE) if tokens else None
        if match is None:
            got = repr(tokens[0]) if tokens else "nothing"
            raise ProtocolError(f"{cls.KEYWORD} takes Player1 or Player2, received {got}")
        return cls(int(match.group(1)) - 1)


class WordArg(Message):
    """One field holding one of ``ALLOWED`` (upper case; decoding is case-insensitive)."""

    KEYWORD: ClassVar[str]
    ALLOWED: ClassVar[tuple[str, ...]]

    if TYPE_CHECKING:  # the message classes are dataclasses of one field, the word

        def __init__(self, word: str) -> None: ...

    def _word(self) -> str:
        return str(getattr(self, _fields(type(self))[0].name))

    def __post_init__(self) -> None:
        if self._word() not in self.ALLOWED:
            name = f"{type(self).__name__}.{_fields(type(self))[0].name}"
            raise ProtocolError(f"{name} is {self._word()!r}; allowed: {'/'.join(self.ALLOWED)}")

    def to_text(self) -> str:
        return f"{self.KEYWORD} {self._word()}"

    @classmethod
    def parse_args(cls: type[_W], args: str) -> _W:
        tokens = args.split()
        if not tokens or tokens[0].upper() not in cls.ALLOWED:
            got = repr(tokens[0]) if tokens else "nothing"
            raise ProtocolError(f"{cls.KEYWORD} takes {'/'.join(cls.ALLOWED)}, received {got}")
        return cls(tokens[0].upper())
