"""``read_dc_games``: a records file of ``curling server --protocol dc3|dc4`` → its games, each
with the states the page steps through, in DC4's state JSON (``dc_protocol.dc4_state``: what DC4's
viewer stream sends live, so the page reads one format).

A game's states: before the first shot (no stones), then one after each shot record (the stones
as they lie after the rules; at an end's last shot its final state, nobody to throw); the last
one carries the winner once the game record is there. Clocks: the time limits of the match (DC4's
request, DC3's ``is_ready`` settings) minus the seconds charged to each team so far.

| record (DC4 / DC3)           | what the game takes                                        |
|------------------------------|------------------------------------------------------------|
| ``dc4_match`` / ``dc3_match``  | the id, the standard end count, the time limits           |
| ``dc4_team`` / ``dc3_team``    | the teams' names                                          |
| ``dc4_shot`` / ``dc3_shot``    | a state: end, shot, position (throwing order), end score  |
| ``dc4_game`` / ``dc3_game``    | the winner, the reason                                    |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.dc_protocol.dc4_state import State, team_stones
from rllib_curling.dc_rules import to_teams
from rllib_curling.dc_sheet import SHOTS_PER_END
from rllib_curling.errors import ConfigError
from rllib_curling.server.records import read_records

PREFIXES = ("dc4_", "dc3_")


def is_dc_records(records: list[dict[str, Any]]) -> bool:
    """Whether the records are a DC server's (a ``dc3_*`` or ``dc4_*`` record in them)."""
    return any(str(r.get("type", "")).startswith(PREFIXES) for r in records)


class _Game:
    def __init__(self, game_id: str, protocol: str, ends: int, limits: list[list[float]]) -> None:
        self.id, self.protocol, self.ends = game_id, protocol, max(1, int(ends))
        self.limits = limits  # [[team0, team1] regular, [team0, team1] extra]
        self.names: list[str | None] = [None, None]
        self.scores: list[tuple[int, int]] = []
        self.spent = [[0.0, 0.0], [0.0, 0.0]]
        self.states: list[dict[str, Any]] = []
        self.winner: str | None = None
        self.reason: str | None = None
        self._last: tuple[int, int | None, str | None, list[list[list[float]]]] | None = None

    def _score(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        n = self.ends
        lists = []
        for team in (0, 1):
            points = [s[team] for s in self.scores]
            lists.append((*points[:n], *[0] * (n - len(points[:n])), sum(points[n:])))
        return lists[0], lists[1]

    def _state(
        self, end: int, shot: int | None, nxt: str | None, teams: list[list[list[float]]]
    ) -> dict[str, Any]:
        self._last = (end, shot, nxt, teams)
        (l0, l1), (e0, e1) = self.limits
        (s0, s1), (x0, x1) = self.spent
        state = State(
            end_number=end, total_shot_number=shot, next_shot_team=nxt,
            remaining_time=(max(0.0, l0 - s0), max(0.0, l1 - s1)),
            extra_end_remaining_time=(max(0.0, e0 - x0), max(0.0, e1 - x1)),
            stones=(team_stones([tuple(p) for p in teams[0]]),  # type: ignore[misc]
                    team_stones([tuple(p) for p in teams[1]])),  # type: ignore[misc]
            score=self._score(), winner_team=self.winner,
            first_team_name=self.names[0], second_team_name=self.names[1],
        )  # fmt: skip
        return state.to_json()

    def shot(self, record: dict[str, Any]) -> None:
        end, shot, team = int(record["end"]), int(record["shot"]), TEAMS.index(record["team"])
        if not self.states:  # before the first shot: its thrower on turn, no stones
            self.states.append(self._state(end, shot, TEAMS[team], [[], []]))
        self.spent[1 if end >= self.ends else 0][team] += float(record.get("seconds") or 0.0)
        first = team if shot % 2 == 0 else 1 - team
        t0, t1 = to_teams(np.asarray(record["position"], dtype=np.float64), first)
        teams = [t0.tolist(), t1.tolist()]
        if record.get("end_score") is not None:
            self.scores.append((int(record["end_score"][0]), int(record["end_score"][1])))
            self.states.append(self._state(end, SHOTS_PER_END, None, teams))
        elif record.get("thrown") is None:  # lost on time: the stone was not thrown
            self.states.append(self._state(end, shot, None, teams))
        else:
            self.states.append(self._state(end, shot + 1, TEAMS[1 - team], teams))

    def finish(self, record: dict[str, Any]) -> None:
        self.winner, self.reason = record.get("winner"), record.get("reason")
        names = record.get("teams") or [None, None]
        self.names = [self.names[k] or names[k] for k in (0, 1)]
        if self._last is None:
            self.states.append(self._state(0, 0, None, [[], []]))
        else:
            end, shot, _, teams = self._last
            self.states[-1] = self._state(end, shot, None, teams)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "protocol": self.protocol,
            "teams": self.names,
            "ends": self.ends,
            "winner": self.winner,
            "reason": self.reason,
            "states": self.states,
        }


def _limits(record: dict[str, Any]) -> tuple[int, list[list[float]]]:
    if record["type"] == "dc4_match":
        request = record.get("request") or {}
        regular, extra = (
            float(request.get("time_limit", 0)),
            float(request.get("extra_end_time_limit", 0)),
        )
        return int(record["standard_end_count"]), [[regular, regular], [extra, extra]]
    setting = record["game"]["setting"]
    clocks = [
        [float(setting[key][t]) for t in TEAMS]
        for key in ("thinking_time", "extra_end_thinking_time")
    ]
    return int(setting["max_end"]), clocks


def games_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The DC games in ``records`` (module docstring), in file order."""
    games: dict[str, _Game] = {}
    for record in records:
        kind = str(record.get("type", ""))
        if not kind.startswith(PREFIXES):
            continue
        protocol, what = kind.split("_", 1)
        game_id = str(record.get("match_id") or record.get("game_id"))
        if what == "match":
            ends, limits = _limits(record)
            games[game_id] = _Game(game_id, protocol, ends, limits)
            continue
        game = games.get(game_id)
        if game is None:
            continue
        if what == "team":
            game.names[TEAMS.index(record["team"])] = record.get("team_name") or record.get("name")
        elif what == "shot":
            game.shot(record)
        elif what == "game":
            game.finish(record)
    return [g.to_json() for g in games.values()]


def read_dc_games(path: str | Path) -> list[dict[str, Any]]:
    """The DC games of a records file; ``ConfigError`` when it cannot be read or holds none."""
    try:
        records = read_records(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the records file {path}: {exc}") from None
    games = games_of(records)
    if not games:
        raise ConfigError(f"{path}: no DC games in it (a records file of curling server "
                          "--protocol dc3|dc4 --log-dir)")  # fmt: skip
    return games
