"""The compiled observation encoder (rllib_curling.observation_kernel) against the plain-Python
definition ``observation.encode_observation_python``: the same float32 vector, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from positions import CENTRE_GUARD, GUARD, random_layouts

from rllib_curling import observation as obs_mod
from rllib_curling.errors import InvalidThrowError


def test_encode__compiled_equals_the_python_encoder() -> None:
    rng = np.random.default_rng(41)
    layouts = random_layouts(rng, 600)
    layouts[0] = 0.0  # empty
    layouts[1::9, 2] = CENTRE_GUARD
    layouts[2::9, 3] = GUARD
    games = [(0, 4), (3, 4), (1, 8), (7, 8), (0, 1), (2, -1), (11, -1)]  # (end, total ends)
    for i, pos in enumerate(layouts):
        shot = i % 17 if i % 40 else int(rng.choice([-3, 20]))  # out of range: clamped
        end, total = games[i % len(games)]
        parity, diff = i % 2, int(rng.integers(-12, 13))
        want = obs_mod.encode_observation_python(pos, shot, end, total, parity, diff)
        got = obs_mod.encode_observation(pos, shot, end, total, parity, diff)
        assert got.dtype == want.dtype == np.float32 and got.shape == (obs_mod.OBS_SIZE,)
        np.testing.assert_array_equal(got, want, err_msg=f"{shot=} {end=} {total=} {parity=}")


def test_encode__any_array_like_and_numpy_scalars() -> None:
    pos = random_layouts(np.random.default_rng(42), 1)[0]
    args = (np.int64(3), np.int32(1), 4, np.int64(1), np.int64(-2))
    want = obs_mod.encode_observation_python(pos.tolist(), *args)
    np.testing.assert_array_equal(obs_mod.encode_observation(pos.ravel().tolist(), *args), want)
    np.testing.assert_array_equal(obs_mod.encode_observation(pos.T.copy().T, *args), want)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_encode__rejects_a_non_finite_position(bad: float) -> None:
    pos = np.zeros((16, 2))
    pos[5, 1] = bad
    with pytest.raises(InvalidThrowError, match="finite"):
        obs_mod.encode_observation(pos, 5, 0, 4, 1, 0)
