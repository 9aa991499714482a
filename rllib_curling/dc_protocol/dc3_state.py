"""The values inside DC3's messages (``DigitalCurling3`` ``game_state.cpp``, ``move.hpp``,
``DigitalCurling3-Server`` ``trajectory_compressor.cpp``): moves, stones, the game state, the
trajectory. Each is a frozen dataclass with ``to_json()`` and ``from_node(fields.Node)``;
the messages (dc3.py) are built from them.

Frame and units: DC's shot frame (dc_sheet.py), metres, m/s, seconds (thinking times are float
seconds on the wire). Teams are ``"team0"`` / ``"team1"``; ``team0`` throws first in end 0.

| JSON                                    | here                                           |
|-----------------------------------------|------------------------------------------------|
| move ``{"type": "shot", …}``            | ``Shot(vx, vy, rotation)``: ``"cw"`` / ``"ccw"`` |
| move ``{"type": "concede"}``            | ``Concede()``                                  |
| stone ``{"position": {x, y}, "angle"}`` | ``Stone(x, y, angle)``; null → None            |
| ``stones.team0/team1``: 8 each          | ``Stones``: two 8-tuples, team0 first          |
| ``state``                               | ``GameState`` (``end``, ``shot`` 0–15, …)      |
| ``state.game_result``                   | ``GameResult(winner, reason)``                 |
| ``last_move.trajectory``                | ``Trajectory`` (start, finish, diff frames)    |
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from rllib_curling.dc_protocol.fields import Node
from rllib_curling.dc_protocol.refusals import JsonObject, JsonValue
from rllib_curling.dc_sheet import RELEASE_OMEGA, SHOTS_PER_END, STONES_PER_TEAM
from rllib_curling.errors import ProtocolError

TEAMS = ("team0", "team1")
#: ``rotation`` of a shot: clockwise (ω < 0, curls toward +x) or counter-clockwise (ω > 0).
ROTATIONS = ("cw", "ccw")
#: ``game_result.reason``.
RESULT_REASONS = ("score", "concede", "time_limit", "draw")
#: DC3 ends a tied game as a draw at this end index.
LAST_END = 255
#: Players per team: each throws two of the team's stones in a row.
PLAYERS_PER_TEAM = STONES_PER_TEAM // 2


@dataclass(frozen=True)
class Shot:
    """A throw: the release velocity in DC's shot frame and the spin's direction.

    The server clamps the speed to the player's maximum and adds noise; any finite velocity is
    valid on the wire. ``omega``: the release spin, ±``dc_sheet.RELEASE_OMEGA`` (ccw positive).
    """

    vx: float
    vy: float
    rotation: str

    TYPE: ClassVar[str] = "shot"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.vx) and math.isfinite(self.vy)):
            raise ProtocolError(
                f"shot velocity ({self.vx!r}, {self.vy!r}); allowed: finite numbers", "move"
            )
        if self.rotation not in ROTATIONS:
            raise ProtocolError(f"shot rotation {self.rotation!r}; allowed: {ROTATIONS}", "move")

    @property
    def omega(self) -> float:
        return RELEASE_OMEGA if self.rotation == "ccw" else -RELEASE_OMEGA

    def to_json(self) -> JsonObject:
        return {"type": "shot", "velocity": {"x": self.vx, "y": self.vy}, "rotation": self.rotation}

    @staticmethod
    def from_node(node: Node) -> Shot:
        velocity = node["velocity"]
        vx, vy = velocity["x"].number(), velocity["y"].number()
        rotation = node["rotation"].choice(ROTATIONS)
        return Shot(vx, vy, rotation)


@dataclass(frozen=True)
class Concede:
    """Give up the game (the opponent wins, reason ``"concede"``)."""

    TYPE: ClassVar[str] = "concede"

    def to_json(self) -> JsonObject:
        return {"type": "concede"}


Move: TypeAlias = Shot | Concede


def move_from_node(node: Node) -> Move:
    kind = node["type"].choice((Shot.TYPE, Concede.TYPE))
    return Concede() if kind == Concede.TYPE else Shot.from_node(node)


@dataclass(frozen=True)
class Stone:
    """A stone in play: centre (x, y) in the shot frame and its angle (rad)."""

    x: float
    y: float
    angle: float = 0.0

    def to_json(self) -> JsonObject:
        return {"position": {"x": self.x, "y": self.y}, "angle": self.angle}

    @staticmethod
    def from_node(node: Node) -> Stone | None:
        if not node.present:
            return None
        position = node["position"]
        return Stone(position["x"].number(), position["y"].number(), node["angle"].number())


TeamStones: TypeAlias = tuple["Stone | None", ...]


@dataclass(frozen=True)
class Stones:
    """Both teams' stones, ``STONES_PER_TEAM`` each in throwing order; None = not in play."""

    team0: TeamStones = (None,) * STONES_PER_TEAM
    team1: TeamStones = (None,) * STONES_PER_TEAM

    def __post_init__(self) -> None:
        for team in (self.team0, self.team1):
            if len(team) != STONES_PER_TEAM:
                raise ValueError(f"{len(team)} stones for a team; allowed: {STONES_PER_TEAM}")

    def to_json(self) -> JsonObject:
        return {
            name: [_stone_json(s) for s in team]
            for name, team in zip(TEAMS, self.pair(), strict=True)
        }

    def pair(self) -> tuple[TeamStones, TeamStones]:
        return self.team0, self.team1

    @staticmethod
    def from_node(node: Node) -> Stones:
        teams = [
            tuple(Stone.from_node(s) for s in node[name].items(STONES_PER_TEAM)) for name in TEAMS
        ]
        if any(len(team) != STONES_PER_TEAM for team in teams):
            return Stones()  # an issue is recorded; a placeholder until done() raises
        return Stones(teams[0], teams[1])


def _stone_json(stone: Stone | None) -> JsonValue:
    return None if stone is None else stone.to_json()


@dataclass(frozen=True)
class GameResult:
    """``winner`` ``"team0"`` / ``"team1"`` or None (a draw); ``reason`` of RESULT_REASONS."""

    winner: str | None
    reason: str

    def to_json(self) -> JsonObject:
        return {"winner": self.winner, "reason": self.reason}

    @staticmethod
    def from_node(node: Node) -> GameResult | None:
        if not node.present:
            return None
        return GameResult(node["winner"].maybe_choice(TEAMS), node["reason"].choice(RESULT_REASONS))


@dataclass(frozen=True)
class GameState:
    """DC3's ``state``: ``end`` 0–255, ``shot`` 0–15, ``hammer`` (None after the game),
    ``scores`` one entry per regular end (None = not played), ``extra_end_score`` per team,
    ``thinking_time_remaining`` in seconds (team0, team1), ``game_result`` or None."""

    end: int = 0
    shot: int = 0
    hammer: str | None = "team1"
    stones: Stones = Stones()
    scores: tuple[tuple[int | None, ...], tuple[int | None, ...]] = ((), ())
    extra_end_score: tuple[int | None, int | None] = (None, None)
    thinking_time_remaining: tuple[float, float] = (0.0, 0.0)
    game_result: GameResult | None = None

    def to_json(self) -> JsonObject:
        return {
            "end": self.end,
            "shot": self.shot,
            "hammer": self.hammer,
            "stones": self.stones.to_json(),
            "scores": {name: list(s) for name, s in zip(TEAMS, self.scores, strict=True)},
            "extra_end_score": dict(zip(TEAMS, self.extra_end_score, strict=True)),
            "thinking_time_remaining": dict(zip(TEAMS, self.thinking_time_remaining, strict=True)),
            "game_result": None if self.game_result is None else self.game_result.to_json(),
        }

    @staticmethod
    def from_node(node: Node) -> GameState:
        scores, extra, times = (
            node["scores"],
            node["extra_end_score"],
            node["thinking_time_remaining"],
        )
        return GameState(
            end=node["end"].integer(0, LAST_END),
            shot=node["shot"].integer(0, SHOTS_PER_END - 1),
            hammer=node["hammer"].maybe_choice(TEAMS),
            stones=Stones.from_node(node["stones"]),
            scores=(_scores(scores["team0"]), _scores(scores["team1"])),
            extra_end_score=(extra["team0"].maybe_integer(0), extra["team1"].maybe_integer(0)),
            thinking_time_remaining=(times["team0"].number(), times["team1"].number()),
            game_result=GameResult.from_node(node["game_result"]),
        )


def _scores(node: Node) -> tuple[int | None, ...]:
    return tuple(item.maybe_integer(0) for item in node.items())


@dataclass(frozen=True)
class StoneChange:
    """One entry of a trajectory frame: stone ``index`` of ``team`` is now ``value`` (None:
    removed from play)."""

    team: str
    index: int
    value: Stone | None

    def to_json(self) -> JsonObject:
        return {"team": self.team, "index": self.index, "value": _stone_json(self.value)}

    @staticmethod
    def from_node(node: Node) -> StoneChange:
        return StoneChange(
            node["team"].choice(TEAMS),
            node["index"].integer(0, STONES_PER_TEAM - 1),
            Stone.from_node(node["value"]),
        )


@dataclass(frozen=True)
class Trajectory:
    """The stones' paths during the last shot (sent when the server's ``send_trajectory`` is on):
    ``start``, then ``frames`` every ``seconds_per_frame`` (each frame lists only the stones that
    changed since the previous one), and ``finish`` once out-of-play stones are removed and the
    free guard zone applied. ``finish_time`` (seconds) appears in DC3's documentation only."""

    seconds_per_frame: float
    start: Stones
    finish: Stones
    frames: tuple[tuple[StoneChange, ...], ...] = ()
    finish_time: float | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "seconds_per_frame": self.seconds_per_frame,
            "start": self.start.to_json(),
            "finish": self.finish.to_json(),
        }
        if self.finish_time is not None:
            out["finish_time"] = self.finish_time
        out["frames"] = [[change.to_json() for change in frame] for frame in self.frames]
        return out

    @staticmethod
    def from_node(node: Node) -> Trajectory | None:
        if not node.present:
            return None
        return Trajectory(
            seconds_per_frame=node["seconds_per_frame"].number(),
            start=Stones.from_node(node["start"]),
            finish=Stones.from_node(node["finish"]),
            frames=tuple(
                tuple(StoneChange.from_node(c) for c in frame.items())
                for frame in node["frames"].items()
            ),
            finish_time=node["finish_time"].maybe_number(),
        )
