"""The observation: its layout (the one place it is defined) and the encoder that fills it.

Pure (``rules`` and numpy): the contract between the envs, which fill observations from what the
server says, and the curling network, which reads them (so the network never imports the env).
The encoder works row by row on ``rules.stone_facts`` (plain Python is several times faster than
numpy on 16 stones); tests hold each feature equal to the rules' batch functions.

The observation is a flat ``float32`` vector of length ``OBS_SIZE`` = 16 * 10 + 8 = 168, made of
16 stone rows (in this end's throwing order, row k = stone k as POSITION lists it) followed by a
context block. Everything is from the point of view of the agent that is about to throw.

Stone row (10 features, ``STONE_FEATURES``; columns ``STONE_X`` … ``STONE_COUNTING``):

| idx | name        | meaning                                                         | range     |
|-----|-------------|-----------------------------------------------------------------|-----------|
| 0   | x           | (x - 2.375) / 2.375, 0 when not in play                         | [-1, 1]   |
| 1   | y           | (y - 4.88) / 5.645 (tee 0, far hog line 1), 0 when not in play  | [-0.4, 1] |
| 2   | dist        | distance to the tee / 2.015 (house edge 1), 0 when not in play  | [0, 3.1]  |
| 3   | in_play     | 1 if the stone is on the sheet                                  | {0, 1}    |
| 4   | in_house    | 1 if in the house (``rules.in_house``: centre within 2.015 m)   | {0, 1}    |
| 5   | mine        | 1 if the stone's team is the observer's (by slot parity)        | {0, 1}    |
| 6   | thrown      | 1 if the stone has been thrown this end (k < shot)              | {0, 1}    |
| 7   | protected   | 1 if the free guard zone rule keeps it in play against the next | {0, 1}    |
|     |             | throw (stone ``shot``): an opponent stone of that thrower in    |           |
|     |             | the zone (``rules.in_free_guard_zone``) during shots 0..4       |           |
|     |             | (``sheet.RULE_LAST_SHOT``): ``rules.fgz_protected``             |           |
| 8   | centre_line | 1 if touching the centre line (``rules.touches_centre_line``);  | {0, 1}    |
|     |             | with protected = 1 the no-tick rule also keeps it on the line   |           |
| 9   | counting    | 1 if it would score were the end over now: in the house and     | {0, 1}    |
|     |             | nearer than the other side's nearest house stone (the rule of   |           |
|     |             | ``rules.points_from_distances``; a tie counts for nobody)       |           |

Context block (8 features, ``CONTEXT_FEATURES``), starting at index ``CONTEXT_START`` = 160:

| idx | name          | meaning                                                       | range   |
|-----|---------------|---------------------------------------------------------------|---------|
| 160 | shot          | shot number in the end / 15                                   | [0, 1]  |
| 161 | end           | end index / max(total ends - 1, 1) (unlimited: end / 8, capped; | [0, 1]  |
|     |               | 8 = ``UNLIMITED_MAX_ENDS``)                                   |         |
| 162 | ends_left     | ends left after this one / total ends (unlimited: 1)          | [0, 1]  |
| 163 | score_diff    | (my total - their total) / 8, clipped                         | [-1, 1] |
| 164 | hammer        | 1 if I have the hammer (throw last) in this end               | {0, 1}  |
| 165 | my_left       | my stones left to throw in this end / 8, including this one   | [0, 1]  |
| 166 | their_left    | their stones left to throw in this end / 8                    | [0, 1]  |
| 167 | house_score   | the end's score if it ended now, from my side / 8             | [-1, 1] |
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.game import GameState

#: Unlimited games (``ends=-1``): the end feature is end / UNLIMITED_MAX_ENDS (capped at 1), and
#: the env truncates such games after this many ends.
UNLIMITED_MAX_ENDS = 8
N_STONES = sheet.STONES_PER_END
STONE_FEATURES = 10
CONTEXT_FEATURES = 8
OBS_SIZE = N_STONES * STONE_FEATURES + CONTEXT_FEATURES
CONTEXT_START = N_STONES * STONE_FEATURES
#: Column of each stone feature in a stone row (the table above).
(
    STONE_X,
    STONE_Y,
    STONE_DIST,
    STONE_IN_PLAY,
    STONE_IN_HOUSE,
    STONE_MINE,
    STONE_THROWN,
    STONE_PROTECTED,
    STONE_CENTRE_LINE,
    STONE_COUNTING,
) = range(STONE_FEATURES)

X_SCALE = sheet.CENTRE_X
Y_SCALE = sheet.PLAY_Y_MAX - sheet.TEE_Y
DIST_SCALE = sheet.HOUSE_SCORE_RADIUS
SCORE_SCALE = 8.0
OBS_LOW = -4.0
OBS_HIGH = 4.0


def observation_tables() -> str:
    """This module's tables of the stone row and the context block (its docstring, from "Stone
    row" on), for the envs' docstrings: the layout is described once, here."""
    doc = __doc__ or ""
    return doc[doc.index("Stone row") :].strip()


def split_observation(obs: Any) -> tuple[Any, Any]:
    """Split ``(..., OBS_SIZE)`` observations (numpy arrays or torch tensors, which the network
    splits so): stones ``(..., 16, STONE_FEATURES)``, context ``(..., CONTEXT_FEATURES)``."""
    stones = obs[..., :CONTEXT_START].reshape(*obs.shape[:-1], N_STONES, STONE_FEATURES)
    return stones, obs[..., CONTEXT_START:]


#: The scales in ``observation_kernel.encode``'s ``scales`` order.
_KERNEL_SCALES = np.array(
    [X_SCALE, Y_SCALE, DIST_SCALE, SCORE_SCALE, OBS_LOW, OBS_HIGH, UNLIMITED_MAX_ENDS], np.float64
)


def encode_observation(
    position: np.ndarray,
    shot: int,
    end: int,
    total_ends: int,
    my_parity: int,
    score_diff: int,
) -> np.ndarray:
    """Build one observation (see the tables above).

    ``position``: (16, 2) in this end's throwing order, (0, 0) = not in play. ``shot``: the next
    stone's number (0–15, 16 after the last). ``my_parity``: 0 if my stones are the even rows
    (I throw first in this end), 1 if I have the hammer. ``score_diff``: my total minus theirs.

    Runs compiled (``observation_kernel.encode``); ``encode_observation_python`` is the same
    encoder in plain Python, the definition the tests hold it to.
    """
    from rllib_curling import observation_kernel  # numba: imported on first use

    pos = np.ascontiguousarray(np.asarray(position, dtype=np.float64).reshape(N_STONES, 2))
    obs = np.empty(OBS_SIZE, dtype=np.float32)
    shot = min(max(int(shot), 0), N_STONES)
    game = int(end), int(total_ends), int(my_parity)
    if not observation_kernel.encode(pos, shot, *game, float(score_diff), _KERNEL_SCALES, obs):
        rules.as_position(pos)  # raises: a coordinate is not finite
    return obs


def encode_observations(
    positions: np.ndarray,
    shot: int,
    end: int,
    total_ends: int,
    my_parity: int,
    score_diff: int,
) -> np.ndarray:
    """``encode_observation`` of many positions (M, 16, 2) in one game context: (M, OBS_SIZE)
    (a search judges hundreds of positions a turn)."""
    from rllib_curling import observation_kernel

    pos = np.ascontiguousarray(np.asarray(positions, dtype=np.float64).reshape(-1, N_STONES, 2))
    obs = np.empty((len(pos), OBS_SIZE), dtype=np.float32)
    shot = min(max(int(shot), 0), N_STONES)
    game = int(end), int(total_ends), int(my_parity)
    if not observation_kernel.encode_batch(
        pos, shot, *game, float(score_diff), _KERNEL_SCALES, obs
    ):
        rules.as_position(pos[~np.isfinite(pos).all(axis=(1, 2))][0])  # raises: not finite
    return obs


def state_observation(state: GameState, seat: int) -> np.ndarray:
    """The observation of a game state (``game.GameState``) for the player in ``seat``: what
    ``CurlingEnv`` gives that player there."""
    mine, theirs = state.totals if seat == 0 else state.totals[::-1]
    return encode_observation(
        state.position, state.shot, state.end, state.config.ends, state.seat_parity(seat),
        mine - theirs,
    )  # fmt: skip


def encode_observation_python(
    position: np.ndarray,
    shot: int,
    end: int,
    total_ends: int,
    my_parity: int,
    score_diff: int,
) -> np.ndarray:
    """``encode_observation`` in plain Python on ``rules.stone_facts`` (the definition)."""
    facts = rules.stone_facts(np.asarray(position, dtype=np.float64).reshape(N_STONES, 2))
    shot = min(max(int(shot), 0), N_STONES)
    house = rules.points_for(facts, my_parity)
    dist = [f.house_distance for f in facts]
    best = (min(dist[0::2]), min(dist[1::2]))  # each parity's nearest house stone
    guarded = (1 - shot % 2) if shot <= sheet.RULE_LAST_SHOT else None  # rules.fgz_protected
    rows: list[float] = []
    for k, f in enumerate(facts):
        parity = k % 2
        rows += (
            (f.x - sheet.CENTRE_X) / X_SCALE if f.in_play else 0.0,
            (f.y - sheet.TEE_Y) / Y_SCALE if f.in_play else 0.0,
            f.distance / DIST_SCALE if f.in_play else 0.0,
            f.in_play,
            f.in_house,
            parity == my_parity,
            k < shot,
            parity == guarded and k < shot and f.in_fgz,
            f.on_centre_line,
            dist[k] < best[1 - parity],  # counting
        )
    mine_left = sum(1 for k in range(shot, N_STONES) if k % 2 == my_parity)
    theirs_left = (N_STONES - shot) - mine_left
    if total_ends > 0:
        end_frac = end / max(total_ends - 1, 1)
        left = max(total_ends - end - 1, 0) / total_ends
    else:
        end_frac, left = min(end / UNLIMITED_MAX_ENDS, 1.0), 1.0
    rows += (
        min(shot, N_STONES - 1) / (N_STONES - 1),
        min(end_frac, 1.0),
        left,
        min(max(score_diff / SCORE_SCALE, -1.0), 1.0),
        float(my_parity == 1),
        mine_left / sheet.STONES_PER_TEAM,
        theirs_left / sheet.STONES_PER_TEAM,
        min(max(house / SCORE_SCALE, -1.0), 1.0),
    )
    obs = np.array(rows, dtype=np.float32)
    return np.clip(obs, OBS_LOW, OBS_HIGH, out=obs)
