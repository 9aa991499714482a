"""The observation layout and encoder of rllib_curling.observation."""

from __future__ import annotations

import numpy as np

from rllib_curling import observation as spaces
from rllib_curling import sheet


def _position(*stones: tuple[int, float, float]) -> np.ndarray:
    pos = np.zeros((16, 2))
    for k, x, y in stones:
        pos[k] = (x, y)
    return pos


def test_encode__shape_dtype_and_bounds() -> None:
    obs = spaces.encode_observation(np.zeros((16, 2)), 0, 0, 4, 0, 0)
    assert obs.shape == (spaces.OBS_SIZE,) and obs.dtype == np.float32
    assert np.all(obs >= spaces.OBS_LOW) and np.all(obs <= spaces.OBS_HIGH)


def test_encode__stone_rows_follow_the_table() -> None:
    pos = _position((0, sheet.TEE_X, sheet.TEE_Y), (1, sheet.TEE_X + 1.0, 8.0))
    stones, context = spaces.split_observation(spaces.encode_observation(pos, 2, 1, 4, 0, 3))
    assert stones[0].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert stones[1, 3] == 1.0 and stones[1, 4] == 0.0 and stones[1, 5] == 0.0
    assert np.isclose(stones[1, 0], 1.0 / sheet.CENTRE_X)
    assert stones[2].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]  # not thrown yet
    assert np.isclose(context[0], 2 / 15)  # shot
    assert np.isclose(context[3], 3 / 8)  # score difference
    assert context[4] == 0.0  # no hammer with even rows
    assert np.isclose(context[5], 7 / 8) and np.isclose(context[6], 7 / 8)
    assert np.isclose(context[7], 1 / 8)  # my stone is shot rock


def test_encode__hammer_side_sees_its_odd_stones_as_mine() -> None:
    pos = _position((0, sheet.TEE_X, sheet.TEE_Y))
    stones, context = spaces.split_observation(spaces.encode_observation(pos, 1, 0, 4, 1, 0))
    assert stones[0, 5] == 0.0 and stones[1, 5] == 1.0
    assert context[4] == 1.0
    assert np.isclose(context[7], -1 / 8)
