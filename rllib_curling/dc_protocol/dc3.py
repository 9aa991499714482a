"""DC3's protocol (``DigitalCurling3-Server`` ``game.cpp``, protocol v2.0), sans-I/O.

Newline-delimited JSON over TCP, one port per team; every message is one JSON object whose
``"cmd"`` names it. The values inside (moves, state, trajectory) are in dc3_state.py.

| ``cmd``      | way | here                                         | answer / next            |
|--------------|-----|----------------------------------------------|--------------------------|
| ``dc``       | s→c | ``Dc(game_id, date_time, version)``           | ``dc_ok`` at once        |
| ``dc_ok``    | c→s | ``DcOk(name)``: the team's name              | ``is_ready``             |
| ``is_ready`` | s→c | ``IsReady(team, game)``: ``GameSettings``    | ``ready_ok``             |
| ``ready_ok`` | c→s | ``ReadyOk(player_order)``: 4 distinct 0–3    | ``new_game`` when both   |
| ``new_game`` | s→c | ``NewGame(names)``: (team0's, team1's)       | ``update``               |
| ``update``   | s→c | ``Update(next_team, state, last_move)``      | ``move`` on one's turn   |
| ``move``     | c→s | ``MoveMessage(move)``: ``Shot`` / ``Concede`` | ``update``               |
| ``game_over``| s→c | ``GameOver()``                               | the client disconnects   |

``encode(msg)`` gives one compact UTF-8 JSON line ending in ``\\n``; ``decode(line)`` gives the
message or raises ``ProtocolError`` (malformed JSON, not an object, unknown ``cmd``, missing or
invalid fields, a non-finite number). Unknown keys are ignored, as DC3's server ignores them.
``LineDecoder`` turns received bytes into messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from rllib_curling.dc_protocol.dc3_settings import GameSettings
from rllib_curling.dc_protocol.dc3_state import (
    PLAYERS_PER_TEAM,
    TEAMS,
    GameState,
    Move,
    Trajectory,
    move_from_node,
)
from rllib_curling.dc_protocol.fields import Node
from rllib_curling.dc_protocol.refusals import InvalidFields, JsonObject
from rllib_curling.errors import ProtocolError, shown

#: The protocol version DC3's server announces in ``dc``.
PROTOCOL_VERSION = (2, 0)
#: A line longer than this is refused by LineDecoder (an update with a trajectory of a long
#: shot with many stones moving is a few hundred kB).
MAX_LINE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Message:
    CMD: ClassVar[str] = ""

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD}


@dataclass(frozen=True)
class ServerMessage(Message):
    """A message DC3's server sends to a client."""


@dataclass(frozen=True)
class ClientMessage(Message):
    """A message a client sends to DC3's server."""


@dataclass(frozen=True)
class Dc(ServerMessage):
    """The greeting: ``game_id`` (a UUID v4), ``date_time`` (ISO 8601), the protocol version."""

    game_id: str
    date_time: str
    version: tuple[int, int] = PROTOCOL_VERSION
    CMD: ClassVar[str] = "dc"

    def to_json(self) -> JsonObject:
        major, minor = self.version
        return {
            "cmd": self.CMD,
            "version": {"major": major, "minor": minor},
            "game_id": self.game_id,
            "date_time": self.date_time,
        }


@dataclass(frozen=True)
class DcOk(ClientMessage):
    """The answer to ``dc``: the team's (engine's) name."""

    name: str
    CMD: ClassVar[str] = "dc_ok"

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD, "name": self.name}


@dataclass(frozen=True)
class IsReady(ServerMessage):
    """The game's settings and the side this connection plays (``"team0"`` / ``"team1"``)."""

    team: str
    game: GameSettings
    CMD: ClassVar[str] = "is_ready"

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD, "team": self.team, "game": self.game.to_json()}


@dataclass(frozen=True)
class ReadyOk(ClientMessage):
    """``player_order[k]``: the index (into ``is_ready``'s players) of the player throwing the
    team's stones 2k and 2k+1; a permutation of 0–3."""

    player_order: tuple[int, ...] = tuple(range(PLAYERS_PER_TEAM))
    CMD: ClassVar[str] = "ready_ok"

    def __post_init__(self) -> None:
        if sorted(self.player_order) != list(range(PLAYERS_PER_TEAM)):
            raise ProtocolError(
                f"player_order {list(self.player_order)}; allowed: a permutation of "
                f"{list(range(PLAYERS_PER_TEAM))} (each player once)",
                self.CMD,
            )

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD, "player_order": list(self.player_order)}


@dataclass(frozen=True)
class NewGame(ServerMessage):
    """The game starts: ``names`` = (team0's name, team1's name) from their ``dc_ok``."""

    names: tuple[str, str]
    CMD: ClassVar[str] = "new_game"

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD, "name": dict(zip(TEAMS, self.names, strict=True))}


@dataclass(frozen=True)
class LastMove:
    """The shot just played: ``actual_move`` (after the speed clamp and the noise),
    ``free_guard_zone_foul`` (the position was restored), ``trajectory`` if the server sends it."""

    actual_move: Move
    free_guard_zone_foul: bool = False
    trajectory: Trajectory | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "actual_move": self.actual_move.to_json(),
            "free_guard_zone_foul": self.free_guard_zone_foul,
        }
        if self.trajectory is not None:
            out["trajectory"] = self.trajectory.to_json()
        return out


@dataclass(frozen=True)
class Update(ServerMessage):
    """The state after each shot (and once before the first): ``next_team`` is None when the
    game is over (then ``state.game_result`` is set and ``game_over`` follows); ``last_move`` is
    None in the first update."""

    next_team: str | None
    state: GameState
    last_move: LastMove | None = None
    CMD: ClassVar[str] = "update"

    def to_json(self) -> JsonObject:
        last = None if self.last_move is None else self.last_move.to_json()
        return {
            "cmd": self.CMD,
            "next_team": self.next_team,
            "state": self.state.to_json(),
            "last_move": last,
        }


@dataclass(frozen=True)
class MoveMessage(ClientMessage):
    """The team's move on its turn: a ``Shot`` or ``Concede``."""

    move: Move
    CMD: ClassVar[str] = "move"

    def to_json(self) -> JsonObject:
        return {"cmd": self.CMD, "move": self.move.to_json()}


@dataclass(frozen=True)
class GameOver(ServerMessage):
    """The game is over (the result is in the update before); the client disconnects."""

    CMD: ClassVar[str] = "game_over"


def _read_last_move(node: Node) -> LastMove | None:
    if not node.present:
        return None
    return LastMove(
        move_from_node(node["actual_move"]),
        node["free_guard_zone_foul"].boolean(),
        Trajectory.from_node(node["trajectory"]),
    )


_READERS: dict[str, Callable[[Node], Message]] = {
    Dc.CMD: lambda n: Dc(
        n["game_id"].text(),
        n["date_time"].text(),
        (n["version"]["major"].integer(0), n["version"]["minor"].integer(0)),
    ),
    DcOk.CMD: lambda n: DcOk(n["name"].text()),
    IsReady.CMD: lambda n: IsReady(n["team"].choice(TEAMS), GameSettings.from_node(n["game"])),
    ReadyOk.CMD: lambda n: ReadyOk(
        tuple(i.integer(0, PLAYERS_PER_TEAM - 1) for i in n["player_order"].items(PLAYERS_PER_TEAM))
    ),
    NewGame.CMD: lambda n: NewGame((n["name"]["team0"].text(), n["name"]["team1"].text())),
    Update.CMD: lambda n: Update(
        n["next_team"].maybe_choice(TEAMS),
        GameState.from_node(n["state"]),
        _read_last_move(n["last_move"]),
    ),
    MoveMessage.CMD: lambda n: MoveMessage(move_from_node(n["move"])),
    GameOver.CMD: lambda n: GameOver(),
}
SERVER_MESSAGES: tuple[type[ServerMessage], ...] = (Dc, IsReady, NewGame, Update, GameOver)
CLIENT_MESSAGES: tuple[type[ClientMessage], ...] = (DcOk, ReadyOk, MoveMessage)
Decoded: TypeAlias = Message | ProtocolError


def encode(msg: Message) -> bytes:
    """One compact JSON line, UTF-8, ending in ``\\n`` (non-ASCII names stay as they are)."""
    try:
        text = json.dumps(msg.to_json(), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as err:
        raise ProtocolError(
            f"{msg.CMD} message holds a non-finite number ({err}); not allowed", msg.CMD
        ) from err
    return (text + "\n").encode("utf-8")


class _NonFinite(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's json reads them, JSON has none."""


def _refuse_constant(name: str) -> float:
    raise _NonFinite(name)


def decode(line: str | bytes) -> Message:
    """The message in one line (with or without its ``\\n`` / ``\\r\\n``); raises ProtocolError."""
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    text = text.rstrip("\r\n")
    quoted = shown(text)
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except _NonFinite as err:
        raise ProtocolError(f"{quoted} holds {err}; allowed: finite numbers") from err
    except ValueError as err:
        raise ProtocolError(
            f"malformed JSON {quoted}: {err}; allowed: one JSON object per line"
        ) from err
    if not isinstance(obj, dict):
        raise ProtocolError(f'{quoted} is not a JSON object; allowed: an object with a "cmd"')
    cmd = obj.get("cmd")
    reader = _READERS.get(cmd) if isinstance(cmd, str) else None
    if reader is None:
        raise ProtocolError(f"unknown cmd {cmd!r} in {quoted}; allowed: {sorted(_READERS)}")
    root = Node.root(obj)
    try:
        msg = reader(root)
    except ProtocolError as err:  # a constructor's check; the fields' issues come first
        if not root.issues:
            raise ProtocolError(f"{cmd} message: {err}", keyword=cmd) from err
    if root.issues:
        raise ProtocolError(f"{cmd} message: {InvalidFields(root.issues)}", keyword=cmd)
    return msg


class LineDecoder:
    """Turns received bytes into DC3 messages for one connection (either way).

    ``feed(data)`` takes each chunk as ``recv`` returned it and returns the messages its
    newlines complete, a ``ProtocolError`` in place of each bad line; it never raises on wire
    input. A line may arrive in pieces and one chunk may hold several lines; ``\\r\\n`` ends a
    line as ``\\n`` does; blank lines are skipped. Memory is bounded: a line longer than
    ``max_line_bytes`` yields one ``ProtocolError`` and is dropped up to its newline.
    """

    def __init__(self, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = int(max_line_bytes)
        self._buffer = bytearray()
        self._discarding = False

    @property
    def pending(self) -> int:
        """Bytes received that do not end in a newline yet."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Decoded]:
        out: list[Decoded] = []
        *lines, tail = bytes(data).split(b"\n")
        for line in lines:
            if self._discarding:
                self._discarding = False
                self._buffer.clear()
                continue
            self._buffer += line
            self._emit(out)
        if not self._discarding:
            self._buffer += tail
            if len(self._buffer) > self.max_line_bytes:
                out.append(self._oversize())
                self._discarding = True
        return out

    def flush(self) -> list[Decoded]:
        """At EOF: decode what is buffered as a last line (the peer closed without a newline)."""
        out: list[Decoded] = []
        if not self._discarding:
            self._emit(out)
        self._buffer.clear()
        self._discarding = False
        return out

    def _emit(self, out: list[Decoded]) -> None:
        raw = bytes(self._buffer)
        self._buffer.clear()
        if len(raw) > self.max_line_bytes:
            out.append(self._oversize(raw))
        elif raw.strip():
            try:
                out.append(decode(raw))
            except ProtocolError as err:
                out.append(err)

    def _oversize(self, raw: bytes | None = None) -> ProtocolError:
        raw = bytes(self._buffer) if raw is None else raw
        self._buffer.clear()
        head = raw[:60].decode("utf-8", errors="replace")
        return ProtocolError(
            f"line longer than {self.max_line_bytes} bytes (starts {head!r}); dropped it; "
            f"allowed: up to {self.max_line_bytes} bytes"
        )
