"""What DC3's messages say about a game here: ``settings_of`` (``is_ready``'s game from a
``DCGameConfig``) and ``wire_state`` (DC3's ``state`` from a ``DCGameState``).

| DC3's ``state``             | from ``DCGameState``                                            |
|-----------------------------|-----------------------------------------------------------------|
| ``end``, ``shot``           | as they are; after the deciding end: the next end, shot 0       |
| ``hammer``                  | the team throwing second this end; null once the game is over   |
| ``stones.team0/team1``      | ``team_stones()`` in each team's throwing order, (0, 0) → null;  |
|                             | none after the deciding end; ``angle`` 0 (not tracked)          |
| ``scores``                  | one slot per regular end, null until played                     |
| ``extra_end_score``         | the extra ends' points summed, null until one is played         |
| ``thinking_time_remaining`` | the clock running now (the extra-end one in extra ends)         |
| ``game_result``             | winner and ``REASONS[reason]``, or null                         |
"""

from __future__ import annotations

from rllib_curling.dc_game import DCGameConfig, DCGameState
from rllib_curling.dc_ice import DEFAULT_PLAYERS
from rllib_curling.dc_protocol.dc3_settings import GameSettings, normal_dist_player
from rllib_curling.dc_protocol.dc3_state import TEAMS, GameResult, GameState, Stone, Stones

#: ``DCGameState.reason`` → DC3's ``game_result.reason``.
REASONS = {"score": "score", "time": "time_limit", "concede": "concede", "draw": "draw"}


def settings_of(config: DCGameConfig) -> GameSettings:
    """``is_ready``'s game: the ends, clocks and DC3's default players (seeds hidden)."""
    players = tuple(
        normal_dist_player(p.max_speed, p.speed_std, p.angle_std) for p in DEFAULT_PLAYERS
    )
    return GameSettings(
        thinking_time=(config.standard_time,) * 2,
        extra_end_thinking_time=(config.extra_end_time_limit,) * 2,
        max_end=config.standard_end_count,
        players=(players, players),
    )


def wire_state(state: DCGameState) -> GameState:
    """DC3's ``state`` of ``state``: after the deciding end, the next end's number at shot 0
    with no stones and no hammer, as DC3 reports a finished game."""
    finished = state.is_terminal and state.end_finished
    stones = Stones()
    if not finished:
        teams = []
        for rows in state.team_stones():
            teams.append(
                tuple(
                    None if x == 0.0 and y == 0.0 else Stone(float(x), float(y))
                    for x, y in rows.tolist()
                )
            )
        stones = Stones(teams[0], teams[1])
    n = state.config.standard_end_count
    scores = tuple(
        tuple(s[team] for s in state.end_scores[:n]) + (None,) * (n - len(state.end_scores[:n]))
        for team in (0, 1)
    )
    extra = state.end_scores[n:]
    extra_score = (sum(s[0] for s in extra), sum(s[1] for s in extra)) if extra else (None, None)
    result = None
    if state.reason is not None:
        winner = None if state.winner is None else TEAMS[state.winner]
        result = GameResult(winner, REASONS[state.reason])
    return GameState(
        end=state.end + 1 if finished else state.end,
        shot=0 if finished else state.shot,
        hammer=None if state.is_terminal else TEAMS[state.hammer_team],
        stones=stones,
        scores=(scores[0], scores[1]),
        extra_end_score=extra_score,
        thinking_time_remaining=(state.time_left(0), state.time_left(1)),
        game_result=result,
    )
