"""A ``DCGameState`` rebuilt from what a DC server sends, for a bot's ``choose``.

| field          | from DC3's ``state`` (dc3_state)     | from DC4's state (dc4_state)        |
|----------------|--------------------------------------|-------------------------------------|
| config         | ends: ``len(scores.team0)``; "fgz"   | ends: ``len(score.team0) - 1``;     |
|                |                                      | rule as given (the state omits it)  |
| end, shot      | as sent                              | ``end_number``, ``total_shot_…``    |
| first_team     | the team without the hammer          | from ``next_shot_team``, the shot   |
| position       | ``dc_rules.from_teams``, null → 0, 0 | ``dc_rules.from_teams``             |
| end_scores     | the regular ends' scores, then       | the same                            |
|                | (0, 0) per extra end before this one |                                     |
| remaining      | ``thinking_time_remaining`` (both)   | ``…remaining_time``, ``…extra_…``   |

Only states where a team is to throw are rebuilt (``ValueError`` else).
"""

from __future__ import annotations

import numpy as np

from rllib_curling import dc_rules
from rllib_curling.dc_game import DCGameConfig, DCGameState
from rllib_curling.dc_protocol.dc3_state import TEAMS, GameState
from rllib_curling.dc_protocol.dc4_state import State
from rllib_curling.dc_rules import Rule


def _end_scores(
    team0: list[int | None], team1: list[int | None], end: int
) -> tuple[tuple[int, int], ...]:
    n = len(team0)
    out = []
    for e in range(end):
        if e < n:
            out.append((int(team0[e] or 0), int(team1[e] or 0)))
        else:
            out.append((0, 0))  # an extra end before this one: blank, or the game would be over
    return tuple(out)


def _position(team0: object, team1: object, first_team: int) -> np.ndarray:
    return dc_rules.from_teams(np.asarray(team0, float), np.asarray(team1, float), first_team)


def state_from_dc3(state: GameState, rule: Rule = "fgz") -> DCGameState:
    """The game in DC3's ``state`` (one with a ``hammer``: the game goes on)."""
    if state.hammer is None:
        raise ValueError("DC3 state without a hammer: the game is over, nobody throws")
    first_team = 1 - TEAMS.index(state.hammer)
    teams = [
        [(0.0, 0.0) if s is None else (s.x, s.y) for s in side] for side in state.stones.pair()
    ]
    ends = max(1, len(state.scores[0]))
    clock = state.thinking_time_remaining
    return DCGameState(
        config=DCGameConfig(standard_end_count=ends, rule=rule),
        remaining=clock,
        extra_remaining=clock,
        position=_position(teams[0], teams[1], first_team),
        shot=state.shot,
        end=state.end,
        first_team=first_team,
        end_scores=_end_scores(list(state.scores[0]), list(state.scores[1]), state.end),
    )


def state_from_dc4(state: State, rule: Rule = "fgz") -> DCGameState:
    """The game in DC4's state (one with a ``next_shot_team``)."""
    shot, team = state.total_shot_number, state.next_shot_team
    if team is None or shot is None:
        raise ValueError("DC4 state without next_shot_team: nobody throws")
    nxt = TEAMS.index(team)
    first_team = nxt if shot % 2 == 0 else 1 - nxt
    score0, score1 = list(state.score[0]), list(state.score[1])
    ends = max(1, len(score0) - 1)
    return DCGameState(
        config=DCGameConfig(standard_end_count=ends, rule=rule, extra_end_clock="shared"),
        remaining=state.remaining_time,
        extra_remaining=state.extra_end_remaining_time,
        position=_position(state.stones[0], state.stones[1], first_team),
        shot=shot,
        end=state.end_number,
        first_team=first_team,
        end_scores=_end_scores(list(score0[:ends]), list(score1[:ends]), state.end_number),
    )
