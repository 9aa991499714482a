"""Tests of rllib_curling.rules with hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest
from positions import CENTRE_GUARD, GUARD, TX, TY, at, pos, random_layouts

from rllib_curling import rules, sheet
from rllib_curling.errors import InvalidThrowError

R = sheet.HOUSE_SCORE_RADIUS


# --- predicates ---------------------------------------------------------------------------------


def test_in_play__zero_zero_is_not_in_play() -> None:
    assert not rules.in_play((0.0, 0.0))
    assert rules.in_play((TX, TY))
    assert rules.in_play(pos(s1=(1.0, 5.0))).tolist() == [False, True] + [False] * 14


def test_distance_to_tee__is_euclidean() -> None:
    assert rules.distance_to_tee((TX + 0.3, TY + 0.4)) == pytest.approx(0.5)


def test_in_house__boundary_at_2_015() -> None:
    assert rules.in_house(at(R - 1e-6))
    assert not rules.in_house(at(R + 1e-6))
    assert not rules.in_house(at(R))  # exactly on the edge: free guard zone side
    assert not rules.in_house((0.0, 0.0))


def test_in_free_guard_zone__band_and_house() -> None:
    assert rules.in_free_guard_zone(GUARD)
    assert rules.in_free_guard_zone(at(R))
    assert not rules.in_free_guard_zone(at(R - 1e-6))  # in the house
    assert not rules.in_free_guard_zone((TX, sheet.FGZ_Y_MAX))  # at the hog line
    assert not rules.in_free_guard_zone((0.3, sheet.FGZ_Y_MIN))  # tee-line level, outside house
    assert rules.in_free_guard_zone((0.3, sheet.FGZ_Y_MIN + 0.01))
    assert not rules.in_free_guard_zone((0.0, 0.0))


def test_touches_centre_line__within_one_stone_radius() -> None:
    assert rules.touches_centre_line((TX + 0.145, 7.0))
    assert rules.touches_centre_line((TX - 0.145, 7.0))
    assert not rules.touches_centre_line((TX + 0.146, 7.0))
    assert not rules.touches_centre_line((0.0, 0.0))


def test_remove_out_of_play__clears_stones_outside_the_area() -> None:
    p = pos(s0=(0.1, 6.0), s1=(4.7, 6.0), s2=(TX, 2.8), s3=(TX, 10.6), s4=GUARD, s5=(TX, TY))
    out = rules.remove_out_of_play(p)
    assert rules.in_play(out).tolist() == [False] * 4 + [True, True] + [False] * 10
    assert np.array_equal(out[4:6], p[4:6])
    assert rules.in_play(p[:4]).all()  # the input is not modified


def test_remove_out_of_play__works_on_batches() -> None:
    batch = np.stack([pos(s0=(0.1, 6.0)), pos(s0=GUARD)])
    out = rules.remove_out_of_play(batch)
    assert rules.in_play(out[:, 0]).tolist() == [False, True]


def test_as_position__rejects_bad_shape_and_nan() -> None:
    with pytest.raises(InvalidThrowError, match="shape"):
        rules.as_position(np.zeros((15, 2)))
    with pytest.raises(InvalidThrowError, match="finite"):
        rules.as_position(pos(s0=(np.nan, 1.0)))


# --- scoring ------------------------------------------------------------------------------------


def test_scoring__nearest_stone_wins() -> None:
    assert rules.score_end(pos(s0=at(0.3), s1=at(0.5))) == (1, 0)
    assert rules.score_end(pos(s0=at(0.5), s1=at(0.3))) == (0, 1)


def test_scoring__several_counting_stones() -> None:
    p = pos(s0=at(0.1), s2=at(0.4, 1.0), s4=at(0.9, 2.0), s1=at(1.0), s3=at(0.2, 3.0))
    # even: 0.1, 0.4, 0.9; odd nearest 0.2 -> only the 0.1 stone counts
    assert rules.score_end(p) == (1, 0)
    p = pos(s0=at(0.1), s2=at(0.4, 1.0), s4=at(0.9, 2.0), s1=at(1.5))
    assert rules.score_end(p) == (3, 0)


def test_scoring__all_house_stones_count_when_opponent_has_none() -> None:
    p = pos(s1=at(0.2), s3=at(1.9, 1.0), s5=at(1.0, 2.0), s0=GUARD)
    assert rules.score_end(p) == (0, 3)


def test_scoring__tie_at_equal_distance_is_blank() -> None:
    assert rules.score_end(pos(s0=at(0.5, 0.0), s1=at(0.5, np.pi))) == (0, 0)


def test_scoring__stone_at_opponent_distance_does_not_count() -> None:
    p = pos(s0=at(0.2), s2=at(0.6, 1.0), s1=at(0.6, 2.0))
    assert rules.score_end(p) == (1, 0)


def test_scoring__empty_house_is_zero() -> None:
    assert rules.score_end(np.zeros((16, 2))) == (0, 0)
    assert rules.score_end(pos(s0=GUARD, s1=CENTRE_GUARD)) == (0, 0)


def test_scoring__stone_just_outside_2_015_does_not_count() -> None:
    assert rules.score_end(pos(s0=at(R + 1e-4), s1=at(R - 1e-4, 1.0))) == (0, 1)
    assert rules.score_end(pos(s0=at(R + 1e-4))) == (0, 0)


def test_scoring__stones_out_of_play_are_ignored() -> None:
    # (0, 0) rows would be 5.4 m from the tee; they must never count or block
    assert rules.score_end(pos(s3=at(1.0))) == (0, 1)


def test_score_end_batch__matches_single_positions() -> None:
    rng = np.random.default_rng(0)
    batch = rng.uniform((0.2, 2.9), (4.5, 8.0), size=(500, 16, 2))
    batch[rng.random((500, 16)) < 0.3] = 0.0
    scores = rules.score_end_batch(batch)
    assert scores.shape == (500, 2) and scores.dtype == np.int64
    assert [tuple(s) for s in scores.tolist()] == [rules.score_end(p) for p in batch]
    assert np.all(scores.min(axis=1) == 0)


# --- free guard zone ----------------------------------------------------------------------------


def test_free_guard_zone__opponent_guard_knocked_out_during_shots_0_to_4() -> None:
    before = pos(s0=at(0.5), s1=GUARD)
    after = pos(s0=at(0.5), s2=at(1.0))  # stone 2 (even team) drove the odd guard out
    assert rules.free_guard_zone_violation(before, after, 2)


def test_free_guard_zone__not_protected_from_shot_5() -> None:
    before = pos(s0=GUARD, s1=at(0.5), s2=at(0.7), s3=at(0.9), s4=at(1.1))
    after = pos(s1=at(0.5), s2=at(0.7), s3=at(0.9), s4=at(1.1))
    assert rules.free_guard_zone_violation(before, after, 3)  # odd thrower, even guard
    assert not rules.free_guard_zone_violation(before, after, 5)


def test_free_guard_zone__own_guard_knocked_out_is_allowed() -> None:
    before = pos(s0=GUARD, s1=at(0.5))
    after = pos(s1=at(0.5), s2=at(1.0))
    assert not rules.free_guard_zone_violation(before, after, 2)


def test_free_guard_zone__house_stone_knocked_out_is_allowed() -> None:
    before = pos(s0=at(0.5))
    after = pos(s1=at(1.0))
    assert not rules.free_guard_zone_violation(before, after, 1)


def test_free_guard_zone__guard_moved_but_in_play_is_allowed() -> None:
    before = pos(s0=GUARD)
    after = pos(s0=at(0.8), s1=at(1.5))  # guard promoted into the house
    assert not rules.free_guard_zone_violation(before, after, 1)


# --- centre line --------------------------------------------------------------------------------


def test_centre_line__guard_moved_off_the_line_is_a_violation() -> None:
    before = pos(s0=CENTRE_GUARD)
    assert rules.centre_line_violation(before, pos(s0=(TX + 0.4, 7.3), s1=(TX, 8.0)), 1)


def test_centre_line__guard_moved_into_the_house_is_a_violation() -> None:
    before = pos(s0=CENTRE_GUARD)
    assert rules.centre_line_violation(before, pos(s0=at(1.0), s1=(TX, 8.0)), 1)


def test_centre_line__guard_moved_along_the_line_is_allowed() -> None:
    before = pos(s0=CENTRE_GUARD)
    assert not rules.centre_line_violation(before, pos(s0=(TX + 0.1, 7.2), s1=(TX, 8.0)), 1)


def test_centre_line__move_within_tolerance_is_not_a_move() -> None:
    edge = (TX + sheet.STONE_RADIUS, 7.5)
    before = pos(s0=edge)
    nudged = pos(s0=(edge[0] + 0.5 * rules.MOVE_TOLERANCE, 7.5), s1=(TX, 8.0))
    assert not rules.centre_line_violation(before, nudged, 1)


def test_centre_line__own_guard_and_late_shots_are_not_protected() -> None:
    before = pos(s0=CENTRE_GUARD, s1=at(1.0))
    after = pos(s0=(TX + 0.5, 7.0), s1=at(1.0), s2=(TX, 8.0))
    assert not rules.centre_line_violation(before, after, 2)  # own guard
    before5 = pos(s0=CENTRE_GUARD, s1=at(1.0), s2=at(1.2), s3=at(1.4), s4=at(1.6))
    after5 = np.array(before5)
    after5[0] = (TX + 0.5, 7.0)
    assert not rules.centre_line_violation(before5, after5, 5)
    assert rules.centre_line_violation(before5, after5, 3)


def test_resolve_shot_batch__fgz_restore_wins_over_centre_line() -> None:
    before = pos(s0=CENTRE_GUARD)
    knocked_out = pos(s1=(TX, 6.0))
    moved_off = pos(s0=(TX + 0.5, 7.0), s1=(TX, 8.0))
    untouched = pos(s0=CENTRE_GUARD, s1=(1.0, 6.0))
    afters = np.stack([knocked_out, moved_off, untouched])
    positions, fgz, centre = rules.resolve_shot_batch(before, afters, 1)
    assert fgz.tolist() == [True, False, False]
    assert centre.tolist() == [False, True, False]
    assert np.array_equal(positions[0], before)
    assert np.array_equal(positions[1:], afters[1:])
    assert rules.centre_line_violation(before, knocked_out, 1)  # on its own it is reported


def test_resolve_shot_batch__removes_out_of_play_first() -> None:
    before = pos(s0=GUARD)
    after = pos(s0=(0.1, 7.0), s1=(TX, 6.0))  # guard pushed onto the side: out of play
    positions, fgz, _ = rules.resolve_shot_batch(before, after, 1)
    assert fgz and np.array_equal(positions, before)


# --- the one-position path (plain Python) against the batch definition -----------------------


def test_resolve_shot__equals_the_batch_rules_on_random_positions() -> None:
    rng = np.random.default_rng(11)
    befores, afters = random_layouts(rng, 300), random_layouts(rng, 300)
    seen = {"fgz": 0, "centre": 0}
    for before, after in zip(befores, afters, strict=True):
        # stones that stay, barely move (within MOVE_TOLERANCE) or slide sideways off the
        # centre line: the centre-line cases
        nudged = before + rng.choice([0.0, 5e-4, 0.05], size=(16, 1)) * [[1.0, 0.0]]
        after = np.where(rng.random((16, 1)) < 0.5, nudged, after)
        for shot in range(16):
            b = before.copy()
            b[shot:] = 0.0
            want = rules.resolve_shot_batch_numpy(b, after, shot)
            got = rules.resolve_shot(b, after, shot)
            assert np.array_equal(got[0], want[0]), (shot, b, after)
            assert (got[1], got[2]) == (bool(want[1]), bool(want[2])), (shot, b, after)
            seen["fgz"] += got[1]
            seen["centre"] += got[2]
    assert seen["fgz"] > 20 and seen["centre"] > 20  # both rules were exercised


def test_score_end__equals_the_batch_scoring_on_random_positions() -> None:
    layouts = random_layouts(np.random.default_rng(12), 2000)
    batch = rules.score_end_batch(layouts)
    single = np.array([rules.score_end(p) for p in layouts])
    assert np.array_equal(single, batch)
    assert len(set(map(tuple, single.tolist()))) > 5  # many different scores
    for p, (even, odd) in zip(layouts[:200], batch[:200], strict=True):
        assert rules.score_for(p, 0) == even - odd and rules.score_for(p, 1) == odd - even


def test_resolve_shot__rejects_bad_positions() -> None:
    with pytest.raises(InvalidThrowError, match="shape"):
        rules.resolve_shot(np.zeros((15, 2)), np.zeros((16, 2)), 0)
    bad = np.zeros((16, 2))
    bad[3] = (np.nan, 5.0)
    with pytest.raises(InvalidThrowError, match="finite"):
        rules.resolve_shot(np.zeros((16, 2)), bad, 0)


def test_stone_facts__equal_the_batch_predicates_to_the_last_bit() -> None:
    layouts = random_layouts(np.random.default_rng(13), 300)
    for p in layouts:
        facts = rules.stone_facts(p)
        assert [[f.x, f.y] for f in facts] == p.tolist()
        assert [f.distance for f in facts] == rules.distance_to_tee(p).tolist()
        assert [f.in_play for f in facts] == rules.in_play(p).tolist()
        assert [f.in_house for f in facts] == rules.in_house(p).tolist()
        assert [f.in_fgz for f in facts] == rules.in_free_guard_zone(p).tolist()
        assert [f.on_centre_line for f in facts] == rules.touches_centre_line(p).tolist()
        assert [f.house_distance for f in facts] == rules.house_distances(p).tolist()
