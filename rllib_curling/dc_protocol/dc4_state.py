"""DC4's state JSON (``StateModel`` of ``DigitalCurling4-Server``, read by ``dc4client``), built
from plain values, and the stream events that carry it.

| key                                   | ``State``                                       |
|---------------------------------------|-------------------------------------------------|
| ``winner_team``                       | ``"team0"`` / ``"team1"`` / None                 |
| ``end_number``                        | 0-based; from the standard count on: extra ends |
| ``total_shot_number``                 | 0–16 (16: the end's final state)                |
| ``team_shot_number``, ``shot_number`` | property ``team_shot_number`` = total // 2      |
| ``next_shot_team``                    | None at shot 16 and once the game is over       |
| ``first/second_team_remaining_time``  | ``remaining_time`` (team0, team1), seconds      |
| ``…_extra_end_remaining_time``        | ``extra_end_remaining_time`` (team0, team1)     |
| ``last_move``                         | ``dc4.ShotInfo`` as thrown, ω in DC's frame     |
| ``stone_coordinate.data.team0/team1`` | ``stones``: 8 × (x, y), ``NOT_IN_PLAY`` (0, 0)  |
| ``score.team0/team1``                 | ``score``: per end; ends + 1 (extra ends last)  |
| ``mixed_doubles_settings``,           | ``mixed_doubles_settings``: JSON or None        |
| ``mix_doubles_settings``              |                                                 |
| ``first_team_name``, ``second_…``     | the teams' names (None until configured)        |

``DC4CLIENT_REQUIRED_KEYS`` are the keys ``dc4client`` 1.0.7 cannot do without; 1.0.4 reads the
``LEGACY_SPELLINGS``. ``State.parse`` (for our client) accepts either spelling.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.dc_protocol.dc4 import ShotInfo
from rllib_curling.dc_protocol.fields import Node
from rllib_curling.dc_protocol.refusals import JsonObject
from rllib_curling.dc_protocol.sse import Event
from rllib_curling.dc_sheet import SHOTS_PER_END, STONES_PER_TEAM
from rllib_curling.errors import ProtocolError

#: SSE event names: a replayed state, and the newest state.
EVENT_STATE_UPDATE = "state_update"
EVENT_LATEST_STATE_UPDATE = "latest_state_update"
#: Where DC4 puts a stone that is not in play (not thrown yet, or removed).
NOT_IN_PLAY = (0.0, 0.0)
DC4CLIENT_REQUIRED_KEYS = (
    "winner_team", "end_number", "team_shot_number", "total_shot_number", "next_shot_team",
    "last_move", "first_team_remaining_time", "second_team_remaining_time",
    "first_team_extra_end_remaining_time", "second_team_extra_end_remaining_time",
)  # fmt: skip
#: 1.0.7's key → 1.0.4's spelling of it (a state carries both).
LEGACY_SPELLINGS = {
    "team_shot_number": "shot_number",
    "mixed_doubles_settings": "mix_doubles_settings",
}

Point = tuple[float, float]
TeamPoints = tuple[Point, ...]


def team_stones(points: Sequence[Point | None], count: int = STONES_PER_TEAM) -> TeamPoints:
    """A team's ``count`` positions (DC4: 8 a team, 6 in mixed doubles) from up to that many
    points, None (or missing at the end) meaning not in play."""
    if len(points) > count:
        raise ValueError(f"{len(points)} stones for a team; allowed: up to {count}")
    padded = [NOT_IN_PLAY if p is None else (float(p[0]), float(p[1])) for p in points]
    return tuple(padded + [NOT_IN_PLAY] * (count - len(padded)))


@dataclass(frozen=True)
class State:
    """One state of a DC4 match (see the module docstring); times in seconds."""

    end_number: int
    total_shot_number: int | None
    next_shot_team: str | None
    remaining_time: tuple[float, float]
    extra_end_remaining_time: tuple[float, float]
    stones: tuple[TeamPoints, TeamPoints] = (team_stones(()), team_stones(()))
    score: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    winner_team: str | None = None
    last_move: ShotInfo | None = None
    first_team_name: str | None = None
    second_team_name: str | None = None
    mixed_doubles_settings: JsonObject | None = None

    def __post_init__(self) -> None:
        total = self.total_shot_number
        if total is not None and not 0 <= total <= SHOTS_PER_END:
            raise ProtocolError(f"total_shot_number {total}; allowed: 0..{SHOTS_PER_END} or None")
        if total == SHOTS_PER_END and self.next_shot_team is not None:
            raise ProtocolError(
                f"next_shot_team {self.next_shot_team!r} at shot {SHOTS_PER_END}; allowed: None "
                "(the end's final state: nobody throws)"
            )
        for key in ("next_shot_team", "winner_team"):
            team = getattr(self, key)
            if team is not None and team not in TEAMS:
                raise ProtocolError(f"{key} {team!r}; allowed: {TEAMS} or None")
        if len(self.stones[0]) != len(self.stones[1]) or len(self.stones[0]) > STONES_PER_TEAM:
            lengths = [len(team) for team in self.stones]
            raise ProtocolError(f"stones per team {lengths}; allowed: equal, ≤ {STONES_PER_TEAM}")

    @property
    def team_shot_number(self) -> int | None:
        """Shots per team so far this end, as DC4 counts them (total // 2: 8 at shot 16)."""
        return None if self.total_shot_number is None else self.total_shot_number // 2

    def to_json(self) -> JsonObject:
        """The state as DC4's server sends it, both spellings included."""
        settings = self.mixed_doubles_settings
        return {
            "winner_team": self.winner_team,
            "first_team_name": self.first_team_name,
            "second_team_name": self.second_team_name,
            "end_number": self.end_number,
            "team_shot_number": self.team_shot_number,
            "shot_number": self.team_shot_number,
            "total_shot_number": self.total_shot_number,
            "next_shot_team": self.next_shot_team,
            "first_team_remaining_time": self.remaining_time[0],
            "second_team_remaining_time": self.remaining_time[1],
            "first_team_extra_end_remaining_time": self.extra_end_remaining_time[0],
            "second_team_extra_end_remaining_time": self.extra_end_remaining_time[1],
            "mixed_doubles_settings": settings,
            "mix_doubles_settings": settings,
            "last_move": None if self.last_move is None else self.last_move.to_json(),
            "stone_coordinate": {
                "data": {
                    name: [{"x": x, "y": y} for x, y in team]
                    for name, team in zip(TEAMS, self.stones, strict=True)
                }
            },
            "score": {name: list(s) for name, s in zip(TEAMS, self.score, strict=True)},
        }

    def event(self, *, latest: bool = True) -> Event:
        """The SSE event carrying this state (``latest_state_update`` or a replayed one)."""
        name = EVENT_LATEST_STATE_UPDATE if latest else EVENT_STATE_UPDATE
        return Event(json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False), name)

    @staticmethod
    def parse(obj: object) -> State:
        """A state as a client receives it (either spelling); ``InvalidFields`` when wrong."""
        root = Node.root(obj, ("state",))
        root.is_object()
        settings = root["mixed_doubles_settings"]
        if not settings.present:
            settings = root["mix_doubles_settings"]
        coords = root["stone_coordinate"]["data"] if root["stone_coordinate"].present else None
        score = root["score"]
        values = dict(
            end_number=root["end_number"].integer(0),
            total_shot_number=root["total_shot_number"].maybe_integer(0, SHOTS_PER_END),
            next_shot_team=root["next_shot_team"].maybe_choice(TEAMS),
            remaining_time=(
                root["first_team_remaining_time"].number(),
                root["second_team_remaining_time"].number(),
            ),
            extra_end_remaining_time=(
                root["first_team_extra_end_remaining_time"].number(),
                root["second_team_extra_end_remaining_time"].number(),
            ),
            stones=_stones(coords),
            score=(_score(score["team0"]), _score(score["team1"])) if score.present else ((), ()),
            winner_team=root["winner_team"].maybe_choice(TEAMS),
            last_move=ShotInfo.from_node(root["last_move"]),
            first_team_name=root["first_team_name"].maybe_text(),
            second_team_name=root["second_team_name"].maybe_text(),
            mixed_doubles_settings=settings.json_object() if settings.present else None,
        )
        root.done()  # the fields' issues first, then State's own checks
        return State(**values)  # type: ignore[arg-type]

    @staticmethod
    def from_event(event: Event) -> State:
        """The state in a stream event (``ProtocolError`` for another event or bad JSON)."""
        if event.event not in (EVENT_STATE_UPDATE, EVENT_LATEST_STATE_UPDATE):
            raise ProtocolError(
                f"SSE event {event.event!r}; allowed: {EVENT_STATE_UPDATE!r}, "
                f"{EVENT_LATEST_STATE_UPDATE!r}"
            )
        try:
            obj = json.loads(event.data)
        except ValueError as err:
            raise ProtocolError(f"state event data is not JSON ({err})") from err
        return State.parse(obj)


def _stones(node: Node | None) -> tuple[TeamPoints, TeamPoints]:
    if node is None:
        return team_stones(()), team_stones(())
    teams = []
    for name in TEAMS:
        items = node[name].items()
        if len(items) > STONES_PER_TEAM:
            node[name].fail("too_long", f"List should have at most {STONES_PER_TEAM} items")
            items = items[:STONES_PER_TEAM]
        teams.append(tuple((p["x"].number(), p["y"].number()) for p in items))
    if len(teams[0]) != len(teams[1]):
        node.fail("stone_count", "Both teams should have as many stones")
        return team_stones(()), team_stones(())
    return teams[0], teams[1]


def _score(node: Node) -> tuple[int, ...]:
    return tuple(item.integer(0) for item in node.items())
