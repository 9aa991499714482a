"""The shot set (rllib_curling.aiming.shots): its layout, mask, mirror and what its shots do."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import rules, sheet
from rllib_curling.aiming import shots
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.bots.candidates import hit_candidates
from rllib_curling.bots.search import SPECS
from rllib_curling.physics import simulate

TX, TY = sheet.TEE


def _position(*stones: tuple[int, float, float]) -> np.ndarray:
    pos = np.zeros((16, 2))
    for k, x, y in stones:
        pos[k] = (x, y)
    return pos


def test_layout__blocks_tile_the_actions() -> None:
    assert shots.N_SHOTS == shots.N_DRAWS + shots.N_HITS + 1 == shots.AWAY + 1
    assert len(shots.SHOT_STONE) == len(shots.SHOT_SPIN) == shots.N_SHOTS
    assert (shots.SHOT_STONE[shots.DRAWS] == -1).all() and shots.SHOT_STONE[shots.AWAY] == -1
    hits = shots.SHOT_STONE[shots.HITS]
    assert (np.bincount(hits) == shots.HITS_PER_STONE).all()
    assert (np.diff(hits) >= 0).all()  # slot-major


def test_draw_points__finer_than_level_8_over_house_and_guard_zone() -> None:
    pts = shots.DRAW_POINTS
    assert shots.DRAW_STEP < SPECS[8].draw_step
    in_house = np.hypot(pts[:, 0] - TX, pts[:, 1] - TY) < shots.HOUSE_REACH
    assert in_house.sum() > 150 and (~in_house).sum() > 100  # house and guard zone
    assert (pts[:, 1] < sheet.PLAY_Y_MAX).all()  # every draw point is in play
    # symmetric about the centre line
    mirrored = {(round(2 * TX - x, 6), round(y, 6)) for x, y in pts}
    assert mirrored == {(round(x, 6), round(y, 6)) for x, y in pts}


def test_legal_shots__hits_only_on_stones_in_play() -> None:
    pos = _position((0, TX, TY), (3, TX + 0.5, TY + 3.0))
    mask = shots.legal_shots(pos)
    assert mask.shape == (shots.N_SHOTS,)
    assert mask[shots.DRAWS].all() and mask[shots.AWAY]
    legal_hits = np.flatnonzero(mask[shots.HITS]) + shots.N_DRAWS
    assert set(shots.SHOT_STONE[legal_hits]) == {0, 3}
    batch = shots.legal_shots(np.stack([pos, np.zeros((16, 2))]))
    assert batch.shape == (2, shots.N_SHOTS) and (batch[0] == mask).all()
    assert batch[1].sum() == shots.N_DRAWS + 1


def test_mirror__an_involution_that_flips_curl_and_keeps_the_target() -> None:
    m = shots.MIRROR
    assert (m[m] == np.arange(shots.N_SHOTS)).all()
    assert (shots.SHOT_SPIN[m] == -shots.SHOT_SPIN).all()
    assert (shots.SHOT_STONE[m] == shots.SHOT_STONE).all()
    f = shots.shot_features()
    assert np.allclose(f[m, 4], -f[:, 4]) and np.allclose(f[m, 8], -f[:, 8])
    assert np.allclose(f[m, 5], f[:, 5]) and np.allclose(f[m, 7], f[:, 7])


@pytest.mark.parametrize("index", [0, 37, shots.N_DRAWS // 2 + 11, shots.N_DRAWS - 1])
def test_draws__rest_at_their_point_on_an_empty_sheet(index: int) -> None:
    tables = shot_tables()
    empty = np.zeros((16, 2))
    throw = shots.shot_throw(index, empty, tables)
    rest = simulate(empty, 0, throw, None, noise=False).position[0]
    x, y = shots.DRAW_POINTS[index % len(shots.DRAW_POINTS)]
    assert np.hypot(rest[0] - x, rest[1] - y) < 0.1, shots.describe_shot(index)


def test_hits__match_level_8s_hit_candidates() -> None:
    """Level 8's hits on a stone are among the shot set's hits on that stone's slot."""
    tables = shot_tables()
    pos = _position((1, TX + 0.4, TY - 0.3), (4, TX - 0.2, TY + 2.5))
    throws = shots.shot_throws(pos, tables)
    level8 = hit_candidates(tables, pos, SPECS[8])
    ours = throws[shots.HITS][np.isin(shots.SHOT_STONE[shots.HITS], [1, 4])]
    for throw in level8:
        assert np.isclose(ours, throw).all(axis=1).any()


def test_takeout__removes_its_target() -> None:
    tables = shot_tables()
    pos = _position((1, TX + 0.3, TY + 0.2))
    weight, offset = shots.HIT_WEIGHTS.index(4.6), shots.HIT_OFFSETS.index(0.0)
    per = len(shots.HIT_WEIGHTS) * len(shots.HIT_OFFSETS)
    index = shots.N_DRAWS + 1 * shots.HITS_PER_STONE + weight * len(shots.HIT_OFFSETS) + offset
    assert shots.describe_shot(index).startswith("hit stone 1 4.6 +0.0 w+")
    assert index - shots.N_DRAWS - shots.HITS_PER_STONE < per
    result = simulate(pos, 2, shots.shot_throw(index, pos, tables), None, noise=False)
    assert not rules.in_play(result.position[1])


def test_shot_throws__illegal_hits_are_the_throw_away() -> None:
    throws = shots.shot_throws(np.zeros((16, 2)), shot_tables())
    assert (throws[shots.HITS] == shots.THROW_AWAY).all()
    assert tuple(throws[shots.AWAY]) == shots.THROW_AWAY


@pytest.mark.parametrize("bad", [-1, shots.N_SHOTS])
def test_shot_throw__out_of_range_is_an_index_error(bad: int) -> None:
    with pytest.raises(IndexError, match="not in 0"):
        shots.shot_throw(bad, np.zeros((16, 2)), shot_tables())


def test_throws_of__are_the_rows_of_shot_throws_they_name() -> None:
    tables = shot_tables()
    pos = np.zeros((16, 2))
    pos[1], pos[4], pos[7] = (2.2, 4.9), (2.6, 4.2), (2.4, 8.0)
    every = shots.shot_throws(pos, tables)
    picked = np.random.default_rng(0).choice(shots.N_SHOTS, 200, replace=False)
    picked = np.concatenate([picked, [0, shots.N_DRAWS, shots.N_DRAWS + shots.HITS_PER_STONE + 3,
                                      shots.AWAY]])  # fmt: skip
    assert np.array_equal(shots.throws_of(picked, pos, tables), every[picked])
    assert shots.throws_of(np.zeros(0, dtype=np.int64), pos, tables).shape == (0, 4)
    with pytest.raises(IndexError, match="must be in 0"):
        shots.throws_of(np.array([shots.N_SHOTS]), pos, tables)
