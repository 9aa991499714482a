"""Tests of rllib_curling.dc_rules: Digital Curling's play area, scoring and guard rules."""

from __future__ import annotations

import numpy as np
import pytest
from positions import pos  # rows by keyword; the points below are in DC's frame

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.errors import ConfigError, InvalidThrowError, RuleError

TX, TY = dc_sheet.TEE
R = dc_sheet.HOUSE_SCORE_RADIUS
r = dc_sheet.STONE_RADIUS
GUARD = (0.6, 35.0)  # in the free guard zone, off the centre line
CENTRE_GUARD = (0.0, 35.0)  # in the free guard zone, on the centre line


def at(d: float, angle: float = 0.0) -> tuple[float, float]:
    """A point ``d`` from the tee (angle 0: toward the hack, -y)."""
    return (TX + d * float(np.sin(angle)), TY - d * float(np.cos(angle)))


def random_layouts(rng: np.random.Generator, n: int) -> np.ndarray:
    """Positions mixing house stones, guards (many on the centre line), stones outside the play
    area and stones on the rules' boundaries, with empty rows."""
    special = np.array([
        at(R - 1e-9), at(R + 1e-9, 1.0), (r - 1e-9, 35.0), (-r + 1e-9, 34.0), CENTRE_GUARD,
        GUARD, (2.0, TY - r - 1e-9), (0.0, dc_sheet.HOG_Y + r + 1e-9), (0.0, TY),
        (dc_sheet.SIDE_X - r - 1e-9, 36.0), (0.3, dc_sheet.BACK_LINE_Y + r - 1e-9), (0.0, 0.0),
    ])  # fmt: skip
    out = np.zeros((n, 16, 2))
    for layout in out:
        for k in range(16):
            kind = rng.integers(5)
            if kind == 1:
                layout[k] = special[rng.integers(len(special))]
            elif kind == 2:
                layout[k] = (rng.uniform(-2.0, 2.0), rng.uniform(36.4, 40.5))  # house area
            elif kind == 3:
                layout[k] = (rng.choice([0.0, rng.normal(0, 0.2)]), rng.uniform(31.8, 38.5))
            elif kind == 4:
                layout[k] = (rng.uniform(-2.6, 2.6), rng.uniform(31.0, 41.0))
    return out


# --- geometry -----------------------------------------------------------------------------------


def test_remove_out_of_play__keeps_stones_past_the_hog_inside_walls_and_back_line() -> None:
    eps = 1e-6
    kept = [
        (0.0, dc_sheet.HOG_Y + r + eps),
        (dc_sheet.SIDE_X - r - eps, 36.0),
        (-(dc_sheet.SIDE_X - r - eps), 36.0),
        (0.0, dc_sheet.BACK_LINE_Y + r - eps),  # partly over the back line: in play
    ]
    removed = [
        (0.0, dc_sheet.HOG_Y + r - eps),  # on the hog line
        (dc_sheet.SIDE_X - r + eps, 36.0),
        (-(dc_sheet.SIDE_X - r + eps), 36.0),
        (0.0, dc_sheet.BACK_LINE_Y + r + eps),  # entirely beyond the back line
        (0.0, 20.0),
    ]
    xy = np.array(kept + removed)
    out = dc_rules.remove_out_of_play(xy)
    assert np.array_equal(out[: len(kept)], xy[: len(kept)])
    assert not out[len(kept) :].any()
    assert dc_rules.in_play_area(xy).tolist() == [True] * len(kept) + [False] * len(removed)


def test_in_guard_zone__in_front_of_the_tee_line_outside_the_house_past_the_hog() -> None:
    eps = 1e-6
    xy = np.array([
        GUARD, CENTRE_GUARD, (2.0, TY - r - eps), (2.0, TY - r + eps), at(R - eps),
        at(R + eps), (0.0, dc_sheet.HOG_Y + r - eps), (0.0, 0.0),
    ])  # fmt: skip
    assert dc_rules.in_guard_zone(xy).tolist() == [1, 1, 1, 0, 0, 1, 0, 0]


def test_on_centre_line__touching_means_nearer_than_a_stone_radius() -> None:
    eps = 1e-9
    xy = np.array([(0.0, 35.0), (r - eps, 35.0), (-r + eps, 35.0), (r, 35.0), (0.0, 0.0)])
    assert dc_rules.on_centre_line(xy).tolist() == [True, True, True, False, False]


# --- scoring ------------------------------------------------------------------------------------


def test_score_end__nearest_team_counts_stones_nearer_than_opponents_nearest() -> None:
    p = pos(s0=at(0.1), s2=at(0.3, 1.0), s1=at(0.5), s4=at(0.8), s6=at(1.9))
    assert dc_rules.score_end(p) == (2, 0)
    p = pos(s1=at(0.1), s3=at(0.2, 2.0), s5=at(0.3, -2.0), s0=at(1.0))
    assert dc_rules.score_end(p) == (0, 3)


def test_score_end__counts_every_house_stone_when_the_opponent_has_none() -> None:
    p = pos(s0=at(0.1), s2=at(1.5), s4=at(R - 1e-6, 2.0), s1=GUARD, s3=at(R + 1e-6))
    assert dc_rules.score_end(p) == (3, 0)


def test_score_end__equidistant_nearest_stones_or_empty_house_is_blank() -> None:
    assert dc_rules.score_end(pos(s0=at(0.4, 1.0), s1=at(0.4, -1.0), s2=at(0.9))) == (0, 0)
    assert dc_rules.score_end(pos(s0=GUARD, s1=CENTRE_GUARD)) == (0, 0)
    assert dc_rules.score_end(np.zeros((16, 2))) == (0, 0)


def test_score_end__house_radius_is_house_plus_stone_radius() -> None:
    assert R == pytest.approx(1.829 + 0.145)
    assert dc_rules.score_end(pos(s1=at(R - 1e-9, 0.5))) == (0, 1)
    assert dc_rules.score_end(pos(s1=at(R + 1e-9, 0.5))) == (0, 0)
    assert dc_rules.score_end(pos(s0=(R, TY))) == (0, 0)  # exactly on the radius: out (strict)


def test_score_end_batch__equals_the_single_path() -> None:
    layouts = random_layouts(np.random.default_rng(1), 400)
    batch = dc_rules.score_end_batch(layouts)
    assert batch.shape == (400, 2) and batch.dtype == np.int64
    assert [tuple(row) for row in batch.tolist()] == [dc_rules.score_end(p) for p in layouts]
    assert batch.any(axis=0).all()  # both sides score somewhere: the layouts test something


# --- guard rules --------------------------------------------------------------------------------


def test_protected_rows__opponent_stones_thrown_so_far_during_shots_0_to_4() -> None:
    assert np.flatnonzero(dc_rules.protected_rows(4)).tolist() == [1, 3]
    assert np.flatnonzero(dc_rules.protected_rows(3)).tolist() == [0, 2]
    assert not dc_rules.protected_rows(0).any() and not dc_rules.protected_rows(5).any()
    with pytest.raises(RuleError, match="shot"):
        dc_rules.protected_rows(16)


@pytest.mark.parametrize("rule", dc_rules.RULES)
def test_resolve_shot__removing_an_opponent_guard_restores_without_the_thrown_stone(
    rule: str,
) -> None:
    before = pos(s0=GUARD, s1=at(0.5), s2=at(1.0))
    after = pos(s1=at(0.5), s2=at(1.0), s3=(0.9, 34.0))  # s0 knocked out
    position, foul = dc_rules.resolve_shot(before, after, 3, rule)
    assert foul and np.array_equal(position, before)
    assert not position[3].any()


@pytest.mark.parametrize("rule", dc_rules.RULES)
def test_resolve_shot__shot_5_and_own_stones_are_not_protected(rule: str) -> None:
    before = pos(s0=GUARD, s1=(-0.6, 35.0), s2=(0.9, 34.0), s3=at(0.3))
    after = pos(s1=(-0.6, 35.0), s3=at(0.3), s4=at(0.1))  # shot 4 removes s0, s2 (its own)
    assert not dc_rules.resolve_shot(before, after, 4, rule)[1]
    before5 = pos(s0=GUARD, s1=at(0.4), s2=at(0.6), s3=at(0.8), s4=at(1.0))
    after5 = pos(s1=at(0.4), s2=at(0.6), s3=at(0.8), s4=at(1.0), s5=at(1.2))  # shot 5 removes s0
    position, foul = dc_rules.resolve_shot(before5, after5, 5, rule)
    assert not foul and np.array_equal(position, after5)
    before3 = pos(s0=GUARD, s1=at(0.4), s2=at(0.6))
    after3 = pos(s1=at(0.4), s2=at(0.6), s3=at(0.8))  # the same removal at shot 3 fouls
    assert dc_rules.resolve_shot(before3, after3, 3, rule)[1]


@pytest.mark.parametrize("rule", dc_rules.RULES)
def test_resolve_shot__house_stones_are_not_protected(rule: str) -> None:
    before = pos(s0=at(0.5))
    position, foul = dc_rules.resolve_shot(before, pos(s1=at(0.2)), 1, rule)
    assert not foul and np.array_equal(position, pos(s1=at(0.2)))


@pytest.mark.parametrize(
    ("rule", "fouls"), [("fgz", False), ("modified_fgz", True), ("no_tick", False)]
)
def test_resolve_shot__moving_a_guard_out_of_the_zone_fouls_only_the_modified_fgz(
    rule: str, fouls: bool
) -> None:
    before = pos(s0=GUARD)
    after = pos(s0=at(1.0, 0.3), s1=(0.1, 34.5))  # the guard pushed into the house
    position, foul = dc_rules.resolve_shot(before, after, 1, rule)
    assert foul is fouls
    assert np.array_equal(position, before if fouls else after)


@pytest.mark.parametrize(
    ("rule", "fouls"), [("fgz", False), ("modified_fgz", False), ("no_tick", True)]
)
def test_resolve_shot__ticking_a_centre_guard_off_the_line_fouls_only_no_tick(
    rule: str, fouls: bool
) -> None:
    before = pos(s0=CENTRE_GUARD)
    after = pos(s0=(0.4, 35.6), s1=(-0.3, 34.0))  # still in the zone, off the centre line
    assert dc_rules.resolve_shot(before, after, 1, rule)[1] is fouls
    along = pos(s0=(0.1, 35.8), s1=(-0.3, 34.0))  # moved, but still touching the centre line
    assert not dc_rules.resolve_shot(before, along, 1, rule)[1]


def test_resolve_shot__removes_out_of_play_stones_without_a_foul() -> None:
    before = pos(s0=at(0.5), s1=GUARD)
    after = pos(s0=(0.0, dc_sheet.BACK_LINE_Y + 0.5), s1=GUARD, s2=(0.0, 30.0))
    position, foul = dc_rules.resolve_shot(before, after, 2, "fgz")
    assert not foul and np.array_equal(position, pos(s1=GUARD))


def test_resolve_shot_batch__equals_the_single_path() -> None:
    rng = np.random.default_rng(2)
    befores = dc_rules.remove_out_of_play(random_layouts(rng, 120))
    afters = random_layouts(rng, 120)
    afters[::3] = np.where(rng.random((40, 16, 1)) < 0.5, befores[::3], 0.0)  # removals only
    fouls = 0
    for rule in dc_rules.RULES:
        for shot in range(7):
            positions, foul = dc_rules.resolve_shot_batch(befores, afters, shot, rule)
            for i in range(len(afters)):
                one, one_foul = dc_rules.resolve_shot(befores[i], afters[i], shot, rule)
                assert one_foul == foul[i] and np.array_equal(one, positions[i])
            fouls += int(foul.sum())
            assert np.array_equal(foul, dc_rules.foul_batch(
                befores, dc_rules.remove_out_of_play(afters), shot, rule
            ))  # fmt: skip
    assert fouls > 50  # the layouts test the guard rules


def test_resolve_shot_batch__one_before_for_many_outcomes() -> None:
    before = pos(s0=GUARD)
    afters = np.stack([pos(s1=at(0.2)), pos(s0=GUARD, s1=at(0.2))])
    positions, fouls = dc_rules.resolve_shot_batch(before, afters, 1, "fgz")
    assert fouls.tolist() == [True, False]
    assert np.array_equal(positions[0], before) and np.array_equal(positions[1], afters[1])


# --- inputs and team order ----------------------------------------------------------------------


def test_check_rule__unknown_rule_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="fgz.*modified_fgz.*no_tick"):
        dc_rules.check_rule("five_rock")
    with pytest.raises(ConfigError):
        dc_rules.resolve_shot(np.zeros((16, 2)), np.zeros((16, 2)), 0, "nope")


def test_as_positions__rejects_other_shapes_and_non_finite_values() -> None:
    with pytest.raises(InvalidThrowError, match="shape"):
        dc_rules.as_positions(np.zeros((15, 2)))
    bad = pos(s0=GUARD)
    bad[3, 1] = np.nan
    with pytest.raises(InvalidThrowError, match="finite"):
        dc_rules.score_end(bad)
    with pytest.raises(InvalidThrowError, match="shape"):
        dc_rules.score_end(np.zeros((2, 16, 2)))


def test_to_teams__splits_rows_by_team_and_from_teams_inverts() -> None:
    p = np.arange(32.0).reshape(16, 2)
    team0, team1 = dc_rules.to_teams(p, first_team=1)
    assert np.array_equal(team1, p[0::2]) and np.array_equal(team0, p[1::2])
    assert np.array_equal(dc_rules.from_teams(team0, team1, first_team=1), p)
    t0, t1 = dc_rules.to_teams(p, first_team=0)
    assert np.array_equal(t0, p[0::2]) and np.array_equal(dc_rules.from_teams(t0, t1, 0), p)
