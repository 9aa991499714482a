"""The DC env's spaces and its two translations: ``observe`` (a ``DCGameState`` → the thrower's
observation) and ``release`` (a ``"throw"`` action → DC's release ``(vx, vy, rotation)``).

The observation is a flat ``float32`` vector of ``OBS_SIZE`` = 16 × 8 + 9 = 137 in DC's shot
frame, from the view of the team about to throw: 16 stone rows in this end's throwing order
(row k = stone k; the thrower's are the rows of parity ``shot % 2``), then the context.

Stone row k (column ``8·k + i``):

| i | feature   | meaning                                                          | range     |
|---|-----------|------------------------------------------------------------------|-----------|
| 0 | x         | x / ``SIDE_X`` (2.375 m), 0 when not in play                     | [-1, 1]   |
| 1 | y         | (y − tee) / (tee − hog line) (6.4 m), 0 when not in play         | [-1, 0.3] |
| 2 | dist      | distance to the tee / house + stone radius, 0 when not in play   | [0, 3.5]  |
| 3 | in_play   | 1 if the stone is in play                                        | {0, 1}    |
| 4 | in_house  | 1 if in the house (``dc_rules.in_house``)                        | {0, 1}    |
| 5 | mine      | 1 if the thrower's (row parity)                                  | {0, 1}    |
| 6 | thrown    | 1 if thrown this end (k < shot)                                  | {0, 1}    |
| 7 | counting  | 1 if it would score were the end over now                        | {0, 1}    |

Context (from ``CONTEXT_START`` = 128):

| idx | feature     | meaning                                                       | range   |
|-----|-------------|---------------------------------------------------------------|---------|
| 128 | shot        | stone about to be thrown / 15                                 | [0, 1]  |
| 129 | end         | end / max(ends − 1, 1), 1 in extra ends                       | [0, 1]  |
| 130 | extra_end   | 1 in an extra end                                             | {0, 1}  |
| 131 | ends_left   | standard ends left after this one / ends (0 in extra ends)    | [0, 1]  |
| 132 | score_diff  | (my total − their total) / 8, clipped                         | [-1, 1] |
| 133 | hammer      | 1 if I have the hammer this end                               | {0, 1}  |
| 134 | my_left     | my stones left this end, this one included / 8                | [0, 1]  |
| 135 | their_left  | their stones left this end / 8                                | [0, 1]  |
| 136 | house_score | the end's score if it ended now, from my side / 8             | [-1, 1] |

**Mirror symmetry**: reflecting the position about the centre line (x → −x) changes only the x
columns (``mirror_observation``); with ``action="shots"`` the mirrored shot of index ``a`` is
``layout.mirror[a]`` (the other rotation, the opposite offset).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_bots.candidates import DCShotLayout, shot_layout
from rllib_curling.dc_env.config import DC_SHOTS_SPEC, THROW_HIGH, THROW_LOW, DCEnvConfig
from rllib_curling.dc_game import DCGameState
from rllib_curling.env.spaces import ACTION_MASK, OBSERVATIONS

STONE_FEATURES = 8
N_ROWS = dc_sheet.SHOTS_PER_END
CONTEXT_START = N_ROWS * STONE_FEATURES
CONTEXT_FEATURES = 9
OBS_SIZE = CONTEXT_START + CONTEXT_FEATURES
OBS_LOW, OBS_HIGH = -4.0, 4.0
#: The x columns (the ones a left-right mirror negates).
X_COLUMNS = np.arange(N_ROWS) * STONE_FEATURES
Y_SCALE = dc_sheet.TEE_Y - dc_sheet.HOG_Y
#: Score differences (the game's, the end's if it ended now) are read in units of 8 points.
SCORE_SCALE = 8.0
#: Stones still to throw are read as a share of a team's stones.
STONES = dc_sheet.STONES_PER_TEAM

__all__ = [
    "ACTION_MASK", "OBSERVATIONS", "OBS_SIZE", "action_space", "dc_layout", "mirror_observation",
    "observation_space", "observe", "encode_positions", "release",
]  # fmt: skip


def dc_layout() -> DCShotLayout:
    """The shot layout of ``action="shots"`` (``DC_SHOTS_SPEC``)."""
    return shot_layout(DC_SHOTS_SPEC)


def observation_space(action: str) -> gym.Space:
    """The flat Box (module table); for ``"shots"`` a Dict of it (``"observations"``) and
    ``"action_mask"`` (``Box(0, 1, (n,))``, 1 where the shot is legal)."""
    box = gym.spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
    if action != "shots":
        return box
    mask = gym.spaces.Box(0.0, 1.0, (dc_layout().n,), np.float32)
    return gym.spaces.Dict({OBSERVATIONS: box, ACTION_MASK: mask})


def action_space(config: DCEnvConfig) -> gym.Space:
    """``Discrete(n)`` over the shot layout, or for ``"throw"`` the Box ``THROW_LOW`` …
    ``THROW_HIGH`` of (speed m/s, bearing rad, rotation sign)."""
    if config.action == "shots":
        return gym.spaces.Discrete(dc_layout().n)
    return gym.spaces.Box(
        np.array(THROW_LOW, np.float32), np.array(THROW_HIGH, np.float32), dtype=np.float32
    )


def release(action: np.ndarray) -> tuple[float, float, float]:
    """DC's release ``(vx, vy, rotation)`` of a ``"throw"`` action (speed, bearing, rotation),
    clipped to the Box first."""
    speed, bearing, sign = np.clip(np.asarray(action, np.float64), THROW_LOW, THROW_HIGH)
    rotation = 1.0 if sign >= 0 else -1.0
    return float(speed * np.sin(bearing)), float(speed * np.cos(bearing)), rotation


def observe(state: DCGameState, team: int, action: str = "shots") -> Any:
    """The observation of ``state`` for ``team`` (the team about to throw, as a rule) in the
    space of ``action``."""
    obs = encode(state, team)
    if action != "shots":
        return obs
    mask = dc_layout().legal(state.position).astype(np.float32)
    return {OBSERVATIONS: obs, ACTION_MASK: mask}


def encode(state: DCGameState, team: int) -> np.ndarray:
    """The flat observation (module table) of ``state`` from ``team``'s side."""
    return encode_positions(state, np.asarray(state.position)[None], team)[0]


def encode_positions(state: DCGameState, positions: np.ndarray, team: int) -> np.ndarray:
    """``(B, 16, 2)`` positions -> ``(B, OBS_SIZE)``: the observations of ``state`` with each
    position in place of its own (the shot, end and match score are ``state``'s), from
    ``team``'s side; how a search reads positions it simulated (``agent.dc_search``)."""
    pos = np.asarray(positions, np.float64)  # (B, 16, 2)
    batch = len(pos)
    shot = min(state.shot, N_ROWS - 1)
    my_parity = 0 if team == state.first_team else 1
    rows = np.arange(N_ROWS)
    on = dc_rules.in_play(pos)  # (B, 16)
    house = dc_rules.in_house(pos)
    dist = dc_rules.distance_to_tee(pos)
    mine = rows % 2 == my_parity  # (16,)
    hd = np.where(house, dist, np.inf)
    best_mine = hd[:, mine].min(axis=1, keepdims=True)  # (B, 1)
    best_theirs = hd[:, ~mine].min(axis=1, keepdims=True)
    counting = house & np.where(mine, hd < best_theirs, hd < best_mine)
    stones = np.zeros((batch, N_ROWS, STONE_FEATURES), np.float64)
    stones[..., 0] = np.where(on, pos[..., 0] / dc_sheet.SIDE_X, 0.0)
    stones[..., 1] = np.where(on, (pos[..., 1] - dc_sheet.TEE_Y) / Y_SCALE, 0.0)
    stones[..., 2] = np.where(on, dist / dc_sheet.HOUSE_SCORE_RADIUS, 0.0)
    stones[..., 3] = on
    stones[..., 4] = house
    stones[..., 5] = mine
    stones[..., 6] = rows < state.shot
    stones[..., 7] = counting
    ends = state.config.standard_end_count
    totals = state.totals
    points = dc_rules.score_end_batch(pos)  # (B, 2): even rows', odd rows'
    house_score = points[:, my_parity] - points[:, 1 - my_parity]
    thrown_mine = int(np.sum(mine & (rows < shot)))
    thrown_theirs = int(np.sum(~mine & (rows < shot)))
    same_for_all = [
        shot / (N_ROWS - 1),
        min(state.end / max(ends - 1, 1), 1.0),
        float(state.is_extra_end),
        max(ends - 1 - state.end, 0) / ends,
        np.clip((totals[team] - totals[1 - team]) / SCORE_SCALE, -1.0, 1.0),
        float(state.hammer_team == team),
        (STONES - thrown_mine) / STONES,
        (STONES - thrown_theirs) / STONES,
    ]
    context = np.column_stack([np.tile(same_for_all, (batch, 1)),
                               np.clip(house_score / SCORE_SCALE, -1.0, 1.0)])  # fmt: skip
    obs = np.concatenate([stones.reshape(batch, -1), context], axis=1)
    return np.clip(obs, OBS_LOW, OBS_HIGH).astype(np.float32)


def mirror_observation(obs: Any) -> Any:
    """The observation of the position mirrored about the centre line (x → −x): the x columns
    negated (a Dict's mask is mirrored with ``dc_layout().mirror``)."""
    if isinstance(obs, dict):
        mask = np.asarray(obs[ACTION_MASK])
        return {OBSERVATIONS: mirror_observation(obs[OBSERVATIONS]),
                ACTION_MASK: mask[dc_layout().mirror]}  # fmt: skip
    out = np.array(obs, np.float32, copy=True)
    out[..., X_COLUMNS] = -out[..., X_COLUMNS]
    return out
