"""The messages of the digital-curling protocol (protocol.md §3), one frozen dataclass each.

Import them from :mod:`rllib_curling.protocol` (which adds ``encode``, ``decode`` and the stream
decoder). ``NAME`` means two things: from the server it is the legacy seat message ``Name``, from
a client the team name ``TeamName``; the decoding direction tells them apart.

| wire                     | server → client (ServerMessage) | client → server (ClientMessage)  |
|--------------------------|---------------------------------|----------------------------------|
| CONNECTNAME PlayerN      | ConnectName(seat), seat 0 / 1   |                                  |
| NAME …                   | Name(seat): legacy seat message | TeamName(name)                   |
| ISREADY / READYOK        | IsReady()                       | ReadyOk()                        |
| NEWGAME, GO              | NewGame(), Go()                 |                                  |
| POSITION x0 y0 … y15     | Position(coords), 32 floats     |                                  |
| SETSTATE s e t n         | SetState(shot, end, total,      |                                  |
|                          |          next_seat)             |                                  |
| MOTIONINFO x y vx vy w   | MotionInfo(x, y, vx, vy, w)     |                                  |
| SCORE s                  | Score(points)                   |                                  |
| TOTALSCORE a b           | TotalScore(player1, player2)    |                                  |
| GAMEOVER r               | GameOver(result)                |                                  |
| CENTERLINE_…             | CenterlineViolation()           | CenterlineChoice(choice)         |
| Error …                  | Error(text)                     |                                  |
| CONNECTKEY:key           |                                 | ConnectKey(key)                  |
| BESTSHOT v h w           |                                 | BestShot(v, h, w)                |
| SWEEP d                  |                                 | Sweep(distance)                  |
| RESETPOSITION + 32       |                                 | ResetPosition(coords)            |
| RESETSTATE + 4 ints      |                                 | ResetState(shot, end, total,     |
|                          |                                 |            next_seat)            |
| EXPMODE n                |                                 | ExpMode(mode)                    |
| bare NUL                 | Empty() (either direction)      | Empty()                          |
| unknown keyword          | Unknown(text) (either)          | Unknown(text)                    |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rllib_curling.protocol.base import (
    ClientMessage,
    CoordArgs,
    NumberArgs,
    SeatArg,
    ServerMessage,
    StateArgs,
    WordArg,
    check_text,
)

GAME_RESULTS = ("WIN", "LOSE", "DRAW")
CENTERLINE_CHOICES = ("RESET", "KEEP")


def split_key(key: str) -> tuple[str, int | None]:
    """Split a connection key and its level suffix: ``"localtest:3"`` → ``("localtest", 3)``.

    ``:0`` asks for the debug robot and ``:1`` … ``:8`` for built-in AI n (protocol.md §2); the
    range is the server's business. Without a numeric suffix: ``"abc"`` → ``("abc", None)``.
    """
    base, sep, suffix = key.rpartition(":")
    if sep and suffix.isascii() and suffix.isdigit():
        return base, int(suffix)
    return key, None


# ----------------------------------------------------------------------------- server → client


@dataclass(frozen=True)
class ConnectName(SeatArg, ServerMessage):
    """``CONNECTNAME Player1|Player2``, the reply to CONNECTKEY: ``seat`` 0 / 1.

    Player1 (seat 0) throws first in end 1; Player2 has the hammer.
    """

    KEYWORD: ClassVar[str] = "CONNECTNAME"


@dataclass(frozen=True)
class Name(SeatArg, ServerMessage):
    """``NAME Player1|Player2``: the legacy (2020) seat message. Not the client's TeamName."""

    KEYWORD: ClassVar[str] = "NAME"


@dataclass(frozen=True)
class IsReady(ServerMessage):
    """``ISREADY``: the match is about to start; answer ``READYOK`` and ``NAME team``."""

    KEYWORD: ClassVar[str] = "ISREADY"


@dataclass(frozen=True)
class NewGame(ServerMessage):
    """``NEWGAME``: a game starts (arguments, if any, are ignored)."""

    KEYWORD: ClassVar[str] = "NEWGAME"


@dataclass(frozen=True)
class Position(CoordArgs, ServerMessage):
    """``POSITION x0 y0 … x15 y15``: metres, stones in this end's throwing order.

    Even k = the team throwing first this end; ``0 0`` = not thrown yet or out of play.
    ``to_array()`` / ``Position.from_array(a)`` convert to and from a ``(16, 2)`` array.
    """

    KEYWORD: ClassVar[str] = "POSITION"


@dataclass(frozen=True)
class SetState(StateArgs, ServerMessage):
    """``SETSTATE shot end total next`` (the fields: ``StateArgs``)."""

    KEYWORD: ClassVar[str] = "SETSTATE"


@dataclass(frozen=True)
class Go(ServerMessage):
    """``GO``: your turn; answer ``BESTSHOT`` (2 minutes in formal play)."""

    KEYWORD: ClassVar[str] = "GO"


@dataclass(frozen=True)
class MotionInfo(NumberArgs, ServerMessage):
    """``MOTIONINFO x y vx vy w``: the thrown stone at the mid-sheet line (m, m/s, rad/s)."""

    KEYWORD: ClassVar[str] = "MOTIONINFO"
    x: float
    y: float
    vx: float
    vy: float
    w: float


@dataclass(frozen=True)
class Score(NumberArgs, ServerMessage):
    """``SCORE s``: points of the end just played, receiver's view (> 0 = I scored)."""

    KEYWORD: ClassVar[str] = "SCORE"
    points: int


@dataclass(frozen=True)
class TotalScore(NumberArgs, ServerMessage):
    """``TOTALSCORE a b``: match totals of Player1 and Player2 (not receiver-relative)."""

    KEYWORD: ClassVar[str] = "TOTALSCORE"
    player1: int
    player2: int


@dataclass(frozen=True)
class GameOver(WordArg, ServerMessage):
    """``GAMEOVER WIN|LOSE|DRAW``, receiver's view."""

    KEYWORD: ClassVar[str] = "GAMEOVER"
    ALLOWED: ClassVar[tuple[str, ...]] = GAME_RESULTS
    result: str


@dataclass(frozen=True)
class CenterlineViolation(ServerMessage):
    """``CENTERLINE_VIOLATION``: the opponent broke the no-tick rule; answer CENTERLINE_CHOICE."""

    KEYWORD: ClassVar[str] = "CENTERLINE_VIOLATION"


@dataclass(frozen=True)
class Error(ServerMessage):
    """``Error <text>``: the server refuses the connection (e.g. no seat free) and closes, or,
    during a turn, says why a message was not taken (``BESTSHOT nan 0 0``) and waits for another.

    Decoding takes any message whose first word is ``Error`` (any case), with an optional ``:``.
    """

    KEYWORD: ClassVar[str] = "Error"
    text: str = ""

    def __post_init__(self) -> None:
        check_text(self, self.text)

    def to_text(self) -> str:
        return f"{self.KEYWORD} {self.text}" if self.text else self.KEYWORD

    @classmethod
    def parse_args(cls, args: str) -> Error:
        return cls(args.strip().removeprefix(":").strip())


# ----------------------------------------------------------------------------- client → server


@dataclass(frozen=True)
class ConnectKey(ClientMessage):
    """``CONNECTKEY:<key>`` (no space after the colon; decoding also takes a space).

    The key may end in ``:N``: 0 = debug robot, 1–8 = built-in AI n (see ``split_key``).
    """

    KEYWORD: ClassVar[str] = "CONNECTKEY"
    key: str

    def __post_init__(self) -> None:
        check_text(self, self.key)

    @property
    def base_key(self) -> str:
        """The key without its ``:N`` level suffix."""
        return split_key(self.key)[0]

    @property
    def level(self) -> int | None:
        """``N`` of a ``:N`` suffix, else None."""
        return split_key(self.key)[1]

    def to_text(self) -> str:
        return f"{self.KEYWORD}:{self.key}"

    @classmethod
    def parse_args(cls, args: str) -> ConnectKey:
        return cls(args.strip().removeprefix(":").strip())


@dataclass(frozen=True)
class ReadyOk(ClientMessage):
    """``READYOK``: the reply to ISREADY (often arrives glued to the ``NAME`` that follows)."""

    KEYWORD: ClassVar[str] = "READYOK"


@dataclass(frozen=True)
class TeamName(ClientMessage):
    """``NAME <team>``: the rest of the message; may be Chinese and hold spaces.

    Decoding strips it and turns whitespace runs into single spaces (as the platform does).
    """

    KEYWORD: ClassVar[str] = "NAME"
    name: str

    def __post_init__(self) -> None:
        check_text(self, self.name)

    def to_text(self) -> str:
        return f"{self.KEYWORD} {self.name}" if self.name else self.KEYWORD

    @classmethod
    def parse_args(cls, args: str) -> TeamName:
        return cls(" ".join(args.split()))


@dataclass(frozen=True)
class BestShot(NumberArgs, ClientMessage):
    """``BESTSHOT v h w``: speed m/s, lateral offset m, spin rad/s (positive curls toward +x).

    Any finite values are accepted here; the engine clamps them to the platform's ranges.
    """

    KEYWORD: ClassVar[str] = "BESTSHOT"
    v: float
    h: float
    w: float


@dataclass(frozen=True)
class Sweep(NumberArgs, ClientMessage):
    """``SWEEP d``: sweep until d metres past the mid-sheet line (0 = no sweeping)."""

    KEYWORD: ClassVar[str] = "SWEEP"
    distance: float


@dataclass(frozen=True)
class CenterlineChoice(WordArg, ClientMessage):
    """``CENTERLINE_CHOICE RESET|KEEP``: the answer to CENTERLINE_VIOLATION."""

    KEYWORD: ClassVar[str] = "CENTERLINE_CHOICE"
    ALLOWED: ClassVar[tuple[str, ...]] = CENTERLINE_CHOICES
    choice: str


@dataclass(frozen=True)
class ResetPosition(CoordArgs, ClientMessage):
    """``RESETPOSITION x0 y0 … x15 y15``: debug only, between GO and BESTSHOT."""

    KEYWORD: ClassVar[str] = "RESETPOSITION"


@dataclass(frozen=True)
class ResetState(StateArgs, ClientMessage):
    """``RESETSTATE shot end total next``: debug only; the fields as in SetState."""

    KEYWORD: ClassVar[str] = "RESETSTATE"


@dataclass(frozen=True)
class ExpMode(NumberArgs, ClientMessage):
    """``EXPMODE n``: sent by some course clients; the server accepts and ignores it."""

    KEYWORD: ClassVar[str] = "EXPMODE"
    mode: int


SERVER_MESSAGES: tuple[type[ServerMessage], ...] = (
    ConnectName, Name, IsReady, NewGame, Position, SetState, Go, MotionInfo, Score,
    TotalScore, GameOver, CenterlineViolation, Error,
)  # fmt: skip
CLIENT_MESSAGES: tuple[type[ClientMessage], ...] = (
    ConnectKey, ReadyOk, TeamName, BestShot, Sweep, CenterlineChoice, ResetPosition,
    ResetState, ExpMode,
)  # fmt: skip
