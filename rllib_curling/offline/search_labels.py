"""A search's judgement as training data over the shot set (``curling dataset --action shots``).

The teacher is a search whose candidates are the shot set's legal actions
(``bots.search.SearchBot`` with ``SearchSpec(shots=True)``), so its choice is exactly one action.
Every turn it judges becomes a row that keeps what the search knew, not only what it threw:

| column            | shape, type     | what                                                    |
|-------------------|-----------------|---------------------------------------------------------|
| ``eps_id``        | str             | one episode per game and labelled seat                  |
|                   |                 | ``"<seed>-<game>-<seat>"``                              |
| ``obs``           | dict            | the env's observation (``action="shots"``), the mover's |
|                   |                 | view: ``"observations"`` (OBS_SIZE,) f32 and            |
|                   |                 | ``"action_mask"`` (N_SHOTS,) f32                        |
| ``actions``       | int64           | the action the search played (its exact choice)         |
| ``rewards``       | f32             | the env's reward of the step (as ``offline.dataset``)   |
| ``new_obs``       | dict            | the mover's next observation (at the end: the last)     |
| ``terminateds``   | bool            | the game ended after this turn                          |
| ``truncateds``    | bool            | always False                                            |
| ``throw``         | (4,) f32        | the throw played                                        |
| ``screen``        | (N_SHOTS,) f32  | every legal action's value thrown once without noise    |
|                   |                 | (NaN where illegal)                                     |
| ``judged``        | (K,) int64      | the actions re-judged under noise                       |
| ``judged_mean``   | (K,) f32        | their mean value over the search's noisy throws         |
| ``judged_se``     | (K,) f32        | the standard error of each mean                         |
| ``replied``       | (R,) int64      | the actions judged against the opponent's best answer,  |
|                   |                 | best first (``replied[0]`` was played); −1 past the     |
|                   |                 | end (all −1 on the end's last stone)                    |
| ``replied_value`` | (R,) f32        | their value after that answer (NaN past the end)        |
| ``search_value``  | f32             | the search's value of the action it played              |
| ``value_target``  | f32             | the mover's chance to win one turn on: ``search_value`` |
|                   |                 | at its next turn in this end, or where this was its     |
|                   |                 | last stone of the end, the win table's value of the     |
|                   |                 | end's real score (``win_table``; after the last end:    |
|                   |                 | the result)                                             |
| ``end_points``    | f32             | the mover's points in this turn's end                   |
| ``result``        | f32             | the game's result for the mover: 1, 0.5 or 0            |
| ``end``, ``shot`` | int64           | the end (0-based) and the stone number of the turn      |
| ``score_diff``    | int64           | the mover's total minus the opponent's before the end   |
| ``hammer``        | bool            | the mover has the hammer in this end                    |

Values are the search's chance to win for the mover (level 8's judgement, blended with a
learned value when the teacher is an agent). Self-play games (opponent ``"self"``) label both
seats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rllib_curling import win_table
from rllib_curling.aiming.shots import N_SHOTS
from rllib_curling.bots.base import Bot, Throw, clamped_throw
from rllib_curling.bots.search import Judgement
from rllib_curling.env.spaces import ACTION_MASK, observe_state
from rllib_curling.game import GameState


class JudgingBot(Bot):
    """A shot-set search (anything with ``judge(state, rng) -> Judgement`` over the legal
    actions in order) as a bot that keeps its last judgement (``last``)."""

    def __init__(self, search: Any, name: str = "teacher") -> None:
        self.search = search
        self.name = name
        self.last: Judgement | None = None

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        self.last = self.search.judge(state, rng)
        return clamped_throw(*self.last.throws[int(self.last.order[0])])


def label_row(
    state: GameState, seat: int, judgement: Judgement, throw: Throw, replies: int
) -> dict[str, Any]:
    """The columns of one judged turn that do not depend on what came after it; ``replied`` is
    padded to ``replies`` entries (action −1, value NaN), as columns have one shape."""
    obs = observe_state(state, seat, "shots")
    actions = np.flatnonzero(obs[ACTION_MASK])  # candidate i of the search is action actions[i]
    assert len(actions) == len(judgement.throws), "the teacher's candidates are not the shot set"
    played = int(actions[int(judgement.order[0])])
    screen = np.full(N_SHOTS, np.nan, np.float32)
    screen[actions] = judgement.screen
    if len(judgement.replied):
        value = float(judgement.replied[0])
    elif len(judgement.top):
        value = float(judgement.top_mean[list(judgement.top).index(judgement.order[0])])
    else:
        value = float(judgement.screen[judgement.order[0]])
    mine, theirs = state.totals if seat == 0 else state.totals[::-1]
    reply = judgement.order[: len(judgement.replied)]
    return {
        "obs": obs,
        "actions": played, "throw": np.asarray(throw, np.float32), "screen": screen,
        "judged": actions[judgement.top].astype(np.int64),
        "judged_mean": judgement.top_mean.astype(np.float32),
        "judged_se": judgement.top_se.astype(np.float32),
        "replied": _padded(actions[reply].astype(np.int64), replies, -1),
        "replied_value": _padded(judgement.replied.astype(np.float32), replies, np.nan),
        "search_value": np.float32(value), "end": state.end, "shot": state.shot,
        "score_diff": mine - theirs, "hammer": seat == state.hammer_seat,
    }  # fmt: skip


def _padded(values: np.ndarray, size: int, fill: float) -> np.ndarray:
    out = np.full(size, fill, dtype=values.dtype)
    out[: len(values)] = values[:size]
    return out


def play_labelled_game(
    players: tuple[Bot, Bot], labelled: tuple[int, ...], config: Any,
    rng: np.random.Generator, eps: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """One game; the rows of every turn of the seats in ``labelled`` (whose players are
    ``JudgingBot``\\ s), each seat's rows in order, ``eps_id`` ``"<eps>-<seat>"``
    (``offline.game_rows``)."""
    from rllib_curling.offline.game_rows import play_rows

    def label(state: GameState, seat: int, throw: tuple[float, ...]) -> dict[str, Any]:
        bot = players[seat]
        assert isinstance(bot, JudgingBot) and bot.last is not None
        return label_row(state, seat, bot.last, throw, bot.search.spec.reply)  # type: ignore[arg-type]

    def observe(state: GameState, seat: int) -> Any:
        return observe_state(state, seat, "shots")

    rows = play_rows(players, labelled, config, rng, eps, label, observe)
    add_value_targets(rows, config.ends)
    return rows


def add_value_targets(rows: list[dict[str, Any]], ends: int) -> None:
    """Each row's ``value_target`` (module table) from the rows of its episode after it (rows
    in ``play_rows``' order: each seat's turns in order)."""
    table = win_table.load()
    for k, row in enumerate(rows):
        following = rows[k + 1] if k + 1 < len(rows) else None
        if row["terminateds"] or following is None or following["end"] != row["end"]:
            # this was the mover's last stone of the end: the win table's value of its score
            target = float(table.after_end(row["score_diff"], int(row["end_points"]),
                                           ends - row["end"] - 1, row["hammer"]))  # fmt: skip
        else:  # level 8's values may step outside [0, 1] by a points tiebreak
            target = min(max(float(following["search_value"]), 0.0), 1.0)
        row["value_target"] = np.float32(target)
