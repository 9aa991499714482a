"""The observation: its layout (the one place it is defined) and the encoder that fills it.

Pure numpy: the contract between the envs, which fill observations from what the server says,
and the curling network, which reads them (so the network never imports the env).

The observation is a flat ``float32`` vector of length ``OBS_SIZE`` = 16 * 7 + 8 = 120, made of
16 stone rows (in this end's throwing order, row k = stone k as POSITION lists it) followed by a
context block. Everything is from the point of view of the agent that is about to throw.

Stone row (7 features, ``STONE_FEATURES``):

| idx | name     | meaning                                                        | range     |
|-----|----------|----------------------------------------------------------------|-----------|
| 0   | x        | (x - 2.375) / 2.375, 0 when not in play                          | [-1, 1]   |
| 1   | y        | (y - 4.88) / 5.645 (tee 0, far hog line 1), 0 when not in play   | [-0.4, 1] |
| 2   | dist     | distance to the tee / 2.015 (house edge 1), 0 when not in play   | [0, 3.1]  |
| 3   | in_play  | 1 if the stone is on the sheet                                  | {0, 1}    |
| 4   | in_house | 1 if in the house (``rules.in_house``: centre within 2.015 m)   | {0, 1}    |
| 5   | mine     | 1 if the stone's team is the observer's (by slot parity)         | {0, 1}    |
| 6   | thrown   | 1 if the stone has been thrown this end (k < shot)               | {0, 1}    |

Context block (8 features, ``CONTEXT_FEATURES``), starting at index 112:

| idx | name          | meaning                                                       | range   |
|-----|---------------|---------------------------------------------------------------|---------|
| 112 | shot          | shot number in the end / 15                                   | [0, 1]  |
| 113 | end           | end index / max(total ends - 1, 1) (unlimited: end / 8, capped; | [0, 1]  |
|     |               | 8 = ``UNLIMITED_MAX_ENDS``)                                   |         |
| 114 | ends_left     | ends left after this one / total ends (unlimited: 1)          | [0, 1]  |
| 115 | score_diff    | (my total - their total) / 8, clipped                         | [-1, 1] |
| 116 | hammer        | 1 if I have the hammer (throw last) in this end               | {0, 1}  |
| 117 | my_left       | my stones left to throw in this end / 8, including this one   | [0, 1]  |
| 118 | their_left    | their stones left to throw in this end / 8                    | [0, 1]  |
| 119 | house_score   | the end's score if it ended now, from my side / 8             | [-1, 1] |
"""

from __future__ import annotations

import numpy as np

from rllib_curling import rules, sheet

#: Unlimited games (``ends=-1``): the end feature is end / UNLIMITED_MAX_ENDS (capped at 1), and
#: the env truncates such games after this many ends.
UNLIMITED_MAX_ENDS = 8
N_STONES = sheet.STONES_PER_END
STONE_FEATURES = 7
CONTEXT_FEATURES = 8
OBS_SIZE = N_STONES * STONE_FEATURES + CONTEXT_FEATURES
CONTEXT_START = N_STONES * STONE_FEATURES
#: Column of each stone feature in a stone row (the table above).
STONE_X, STONE_Y, STONE_DIST, STONE_IN_PLAY, STONE_IN_HOUSE, STONE_MINE, STONE_THROWN = range(7)

X_SCALE = sheet.CENTRE_X
Y_SCALE = sheet.PLAY_Y_MAX - sheet.TEE_Y
DIST_SCALE = sheet.HOUSE_SCORE_RADIUS
SCORE_SCALE = 8.0
OBS_LOW = -4.0
OBS_HIGH = 4.0


def split_observation(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split ``(..., OBS_SIZE)`` observations: stones ``(..., 16, 7)``, context ``(..., 8)``."""
    stones = obs[..., :CONTEXT_START].reshape(*obs.shape[:-1], N_STONES, STONE_FEATURES)
    return stones, obs[..., CONTEXT_START:]


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
    """
    pos = np.asarray(position, dtype=np.float64).reshape(N_STONES, 2)
    on = np.any(pos != 0.0, axis=1)
    dist = np.hypot(pos[:, 0] - sheet.TEE_X, pos[:, 1] - sheet.TEE_Y)
    rows = np.arange(N_STONES)
    stones = np.zeros((N_STONES, STONE_FEATURES), dtype=np.float32)
    stones[:, 0] = np.where(on, (pos[:, 0] - sheet.CENTRE_X) / X_SCALE, 0.0)
    stones[:, 1] = np.where(on, (pos[:, 1] - sheet.TEE_Y) / Y_SCALE, 0.0)
    stones[:, 2] = np.where(on, dist / DIST_SCALE, 0.0)
    stones[:, 3] = on
    stones[:, 4] = rules.in_house(pos)
    stones[:, 5] = (rows % 2) == my_parity
    stones[:, 6] = rows < shot
    shot = int(np.clip(shot, 0, N_STONES))
    mine_left = sum(1 for k in range(shot, N_STONES) if k % 2 == my_parity)
    theirs_left = (N_STONES - shot) - mine_left
    house = rules.score_for(pos, my_parity)
    if total_ends > 0:
        end_frac = end / max(total_ends - 1, 1)
        left = max(total_ends - end - 1, 0) / total_ends
    else:
        end_frac, left = min(end / UNLIMITED_MAX_ENDS, 1.0), 1.0
    context = np.array(
        [
            min(shot, 15) / 15.0,
            min(end_frac, 1.0),
            left,
            np.clip(score_diff / SCORE_SCALE, -1.0, 1.0),
            float(my_parity == 1),
            mine_left / 8.0,
            theirs_left / 8.0,
            np.clip(house / SCORE_SCALE, -1.0, 1.0),
        ],
        dtype=np.float32,
    )
    obs = np.concatenate([stones.ravel(), context])
    return np.clip(obs, OBS_LOW, OBS_HIGH).astype(np.float32)
