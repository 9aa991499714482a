"""One game played on the engine, the turns of its labelled seats as offline rows: what both
action modes share (``offline.dataset`` labels the nearest template, ``offline.search_labels``
a search's judgement of the shot set).

A labeller gives the columns of a turn from the position before it; ``play_rows`` adds the
columns that depend on what came after it, the same for every mode:

| column          | what                                                                   |
|-----------------|------------------------------------------------------------------------|
| ``eps_id``      | one episode per game and labelled seat: ``"<eps>-<seat>"``             |
| ``rewards``     | the env's reward of the step (``env.rewards.game_reward``; the config's |
|                 | ``reward`` and ``score_weight``)                                       |
| ``new_obs``     | the seat's next observation (``observe``; at the end: the last)        |
| ``terminateds`` | the game ended after this turn                                         |
| ``truncateds``  | always False                                                           |
| ``end_points``  | the seat's points in this turn's end                                   |
| ``result``      | the game's result for the seat: 1, 0.5 or 0                            |

``after_columns`` adds them to one seat's rows of any ice's game (``offline.dc_dataset`` uses it
for games on DC's ice).

A seat is labelled when its turns teach: the teacher's seat, or both when it plays itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rllib_curling.game import GameState, Result

#: ``label(state, seat, throw)``: the columns of ``seat``'s turn in ``state`` (before ``throw``).
Label = Callable[[GameState, int, tuple[float, ...]], dict[str, Any]]
#: ``observe(state, seat)``: ``seat``'s observation of ``state`` (the rows' ``obs`` column).
Observe = Callable[[GameState, int], Any]


def play_rows(
    players: Sequence[Any], labelled: Sequence[int], config: Any, rng: np.random.Generator,
    eps: str, label: Label, observe: Observe,
) -> list[dict[str, Any]]:  # fmt: skip
    """One game of ``players`` (seat 0, seat 1; ``config.ends`` ends); the rows of every turn of
    the seats in ``labelled``, each seat's rows in order (module table)."""
    from rllib_curling.bots.matches import play_game
    from rllib_curling.game import GameConfig

    rows: dict[int, list[dict[str, Any]]] = {seat: [] for seat in labelled}
    turns: dict[int, list[GameState]] = {seat: [] for seat in labelled}  # the state at each turn
    last: list[GameState] = []

    def on_shot(state: GameState, throw: tuple[float, ...]) -> None:
        seat = state.next_seat
        if seat in rows:
            rows[seat].append(label(state, seat, throw))
            turns[seat].append(state)

    def on_throw(_t: Any, state: GameState, _throw: Any, _ice: Any) -> None:
        last[:] = [state]

    play_game(tuple(players), GameConfig(ends=config.ends), rng, on_shot=on_shot,
              on_throw=on_throw)  # fmt: skip
    final = last[0]
    out: list[dict[str, Any]] = []
    for seat in labelled:
        signed = [s[seat] - s[1 - seat] for s in final.end_scores]
        out += after_columns(rows[seat], turns[seat], final, signed, str(final.result_for(seat)),
                             config, functools.partial(_observe_as, observe, seat),
                             f"{eps}-{seat}")  # fmt: skip
    return out


def _observe_as(observe: Observe, seat: int, state: Any) -> Any:
    return observe(state, seat)


def after_columns(
    rows: list[dict[str, Any]], turns: Sequence[Any], final: Any, signed: Sequence[int],
    result: str, config: Any, observe: Callable[[Any], Any], eps_id: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """One seat's ``rows`` (its turns in order) with the columns that come after each turn
    (module table) added; any ice's game: ``turns[k]`` is the state before row ``k``, ``final``
    the last state (both have ``end`` and ``end_scores``, the ends finished so far), ``signed``
    the seat's points of each of ``final``'s ends (negative: the opponent scored), ``result``
    ``"WIN"``, ``"LOSE"`` or ``"DRAW"``, ``observe(state)`` the seat's observation; ``config``
    has ``reward`` and ``score_weight``."""
    from rllib_curling.env.rewards import game_reward

    for k, row in enumerate(rows):
        done = k == len(rows) - 1
        before = turns[k]
        after = final if done else turns[k + 1]
        finished = signed[len(before.end_scores) : len(after.end_scores)]
        reward = game_reward(config.reward, finished, result, done, config.score_weight)
        row.update(
            eps_id=eps_id, rewards=np.float32(reward), new_obs=observe(after),
            terminateds=done, truncateds=False, end_points=np.float32(signed[before.end]),
            result=np.float32(Result(result).points),
        )  # fmt: skip
    return rows
