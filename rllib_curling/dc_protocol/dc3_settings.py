"""The game settings DC3's ``is_ready`` carries (``DigitalCurling3-Server`` ``config.cpp``: the
config's ``game``, or ``game_is_ready`` / a patch of it when the organiser hides something).

| JSON (``is_ready.game``)                   | here (``GameSettings``)                          |
|--------------------------------------------|--------------------------------------------------|
| ``rule``                                   | ``rule``: ``"normal"`` (the only rule DC3 has)   |
| ``setting.max_end``                        | ``max_end``: regular ends (extra ends not counted) |
| ``setting.sheet_width``                    | ``sheet_width`` (m)                               |
| ``setting.five_rock_rule``                 | ``five_rock_rule``: the free guard zone applies  |
| ``setting.thinking_time.team0/team1``      | ``thinking_time`` (s) for the regular ends       |
| ``setting.extra_end_thinking_time.…``      | ``extra_end_thinking_time`` (s) per extra end    |
| ``simulator``                              | ``simulator``: the JSON object as sent, or None  |
| ``players.team0/team1``: 4 objects each    | ``players``: the JSON objects as sent, or None   |

``simulator`` and ``players`` depend on their ``"type"`` and may be hidden or patched (seeds),
so they stay JSON; ``fcv1_simulator()`` and ``normal_dist_player()`` build DC's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rllib_curling.dc_protocol.dc3_state import PLAYERS_PER_TEAM, TEAMS
from rllib_curling.dc_protocol.fields import Node
from rllib_curling.dc_protocol.refusals import JsonObject
from rllib_curling.dc_sheet import ANGLE_STD, MAX_SPEED, SHEET_WIDTH, SPEED_STD

#: ``rule`` values DC3 knows.
RULES = ("normal",)
#: fcv1's step (s), the only one DC3's documentation vouches for.
FCV1_SECONDS_PER_FRAME = 0.001


def fcv1_simulator(seconds_per_frame: float = FCV1_SECONDS_PER_FRAME) -> JsonObject:
    """``{"type": "fcv1", "seconds_per_frame": …}``."""
    return {"type": "fcv1", "seconds_per_frame": seconds_per_frame}


def normal_dist_player(
    max_speed: float = MAX_SPEED,
    stddev_speed: float = SPEED_STD,
    stddev_angle: float = ANGLE_STD,
    seed: int | None = None,
) -> JsonObject:
    """A ``normal_dist`` player (DC3's defaults from dc_sheet.py; ``seed`` None = hidden)."""
    return {
        "type": "normal_dist",
        "max_speed": max_speed,
        "stddev_speed": stddev_speed,
        "stddev_angle": stddev_angle,
        "seed": seed,
    }


def _default_players() -> tuple[tuple[JsonObject, ...], tuple[JsonObject, ...]]:
    team = tuple(normal_dist_player() for _ in range(PLAYERS_PER_TEAM))
    return team, team


@dataclass(frozen=True)
class GameSettings:
    """``is_ready.game`` (see the module docstring); times in seconds as (team0, team1)."""

    thinking_time: tuple[float, float]
    extra_end_thinking_time: tuple[float, float]
    max_end: int = 10
    sheet_width: float = SHEET_WIDTH
    five_rock_rule: bool = True
    rule: str = "normal"
    simulator: JsonObject | None = field(default_factory=fcv1_simulator)
    players: tuple[tuple[JsonObject, ...], tuple[JsonObject, ...]] | None = field(
        default_factory=_default_players
    )

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "rule": self.rule,
            "setting": {
                "max_end": self.max_end,
                "sheet_width": self.sheet_width,
                "five_rock_rule": self.five_rock_rule,
                "thinking_time": dict(zip(TEAMS, self.thinking_time, strict=True)),
                "extra_end_thinking_time": dict(
                    zip(TEAMS, self.extra_end_thinking_time, strict=True)
                ),
            },
        }
        if self.simulator is not None:
            out["simulator"] = self.simulator
        if self.players is not None:
            out["players"] = {
                name: list(team) for name, team in zip(TEAMS, self.players, strict=True)
            }
        return out

    @staticmethod
    def from_node(node: Node) -> GameSettings:
        setting = node["setting"]
        times, extra = setting["thinking_time"], setting["extra_end_thinking_time"]
        simulator = node["simulator"]
        return GameSettings(
            thinking_time=(times["team0"].number(), times["team1"].number()),
            extra_end_thinking_time=(extra["team0"].number(), extra["team1"].number()),
            max_end=setting["max_end"].integer(1),
            sheet_width=setting["sheet_width"].number(),
            five_rock_rule=setting["five_rock_rule"].boolean(),
            rule=node["rule"].choice(RULES),
            simulator=simulator.json_object() if simulator.present else None,
            players=_players(node["players"]),
        )


def _players(node: Node) -> tuple[tuple[JsonObject, ...], tuple[JsonObject, ...]] | None:
    if not node.present:
        return None
    teams: list[tuple[JsonObject, ...]] = []
    for name in TEAMS:
        items = node[name].items(PLAYERS_PER_TEAM)
        teams.append(tuple(item.json_object() for item in items))
    return teams[0], teams[1]
