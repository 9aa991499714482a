"""Every shot template, noise off, does what its name says (rllib_curling.aiming.templates)."""

from __future__ import annotations

import numpy as np
import pytest
from positions import random_layouts

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.aiming.templates import (
    BASIC_TEMPLATES,
    TEMPLATE_NAMES,
    TEMPLATES,
    earliest_shot,
    guards,
    opponent_stones,
    own_stones,
    removable,
    template_table,
    template_throw,
)
from rllib_curling.bots.candidates import template_candidates
from rllib_curling.physics import simulate

TX, TY = sheet.TEE
R = sheet.STONE_RADIUS
#: Opponent stones (odd rows: we throw stone 0, our stones are the even rows), nearest first.
OPPONENTS = [(TX + 0.3, TY + 0.2), (TX - 0.9, TY - 0.3), (TX + 1.2, TY + 0.9), (TX - 0.4, TY + 1.5)]
RING = {"button": 0.15, "4ft": 0.61, "8ft": 1.22, "12ft": 1.87}
CURLS = ("w+", "w-")
#: The 38 templates of the first release, in order: level 5 of the bots searches exactly these.
BASIC_KINDS = (
    "draw button", "draw 4ft front", "draw 4ft back", "draw 4ft left", "draw 4ft right",
    "draw 8ft front", "draw 8ft left", "draw 8ft right", "draw 12ft front", "guard centre",
    "long guard centre", "corner guard left", "corner guard right", "takeout opp 0",
    "takeout opp 1", "takeout opp 2", "takeout opp 3", "tap opp 0", "tap opp 1",
)  # fmt: skip
BASIC_NAMES = [f"{kind} {curl}" for curl in CURLS for kind in BASIC_KINDS]


def _position(**stones: tuple[float, float]) -> np.ndarray:
    """``_position()``: the four ``OPPONENTS``; ``_position(s0=(x, y), ...)``: just those rows."""
    out = np.zeros((16, 2))
    for k, xy in enumerate(OPPONENTS if not stones else []):
        out[2 * k + 1] = xy
    for name, xy in stones.items():
        out[int(name[1:])] = xy
    return out


def _throw(name: str, position: np.ndarray, shot: int = 0) -> np.ndarray:
    """The position after template ``name`` throws stone ``shot`` (ours: even rows), noise off."""
    index = TEMPLATE_NAMES.index(name)
    throw = template_throw(index, position, 0, shot_tables(), shot=shot)
    return simulate(position, shot, throw, noise=False).position


def _hidden_behind(stone: np.ndarray, guard: np.ndarray) -> bool:
    """True if the straight line from the hack (release point) to ``stone`` runs into ``guard``."""
    hack = np.array([sheet.RELEASE_X, sheet.RELEASE_Y])
    d = stone - hack
    t = np.clip(np.dot(guard - hack, d) / np.dot(d, d), 0.0, 1.0)
    return bool(np.linalg.norm(hack + t * d - guard) < 2 * R)


def test_templates__names_are_unique_and_come_with_both_curls() -> None:
    assert len(set(TEMPLATE_NAMES)) == len(TEMPLATES)
    plus = [n[:-3] for n in TEMPLATE_NAMES if n.endswith(" w+")]
    minus = [n[:-3] for n in TEMPLATE_NAMES if n.endswith(" w-")]
    assert sorted(plus) == sorted(minus) and len(plus) * 2 == len(TEMPLATES) - 1
    assert [n for n in TEMPLATE_NAMES if n[-3:] not in (" w+", " w-")] == ["throw away"]
    assert 60 <= len(TEMPLATES) <= 80


def test_templates__the_basic_set_comes_first_and_is_what_level_5_searches() -> None:
    assert [t.name for t in BASIC_TEMPLATES] == BASIC_NAMES
    assert list(TEMPLATE_NAMES[: len(BASIC_NAMES)]) == BASIC_NAMES
    pos = _position(s0=(TX, 7.6), s1=(TX + 0.2, TY))
    candidates = template_candidates(shot_tables(), pos, 0)
    expected = [template_throw(i, pos, 0, shot_tables()) for i in range(len(BASIC_NAMES))]
    assert np.array_equal(candidates, np.array(expected))


def test_template_table__one_row_per_template() -> None:
    rows = template_table().splitlines()[2:]
    assert len(rows) == len(TEMPLATES)
    for i, (row, name) in enumerate(zip(rows, TEMPLATE_NAMES, strict=True)):
        assert row.startswith(f"| {i} | {name} |")


def test_opponent_stones__nearest_to_the_tee_first() -> None:
    stones = opponent_stones(_position(), 0)
    dist = np.hypot(stones[:, 0] - TX, stones[:, 1] - TY)
    assert len(stones) == 4 and np.all(np.diff(dist) > 0)


def test_removable__opponent_guards_are_protected_until_the_fifth_stone() -> None:
    pos = _position(s0=(TX + 0.3, 8.8), s1=(TX - 0.85, 7.4), s3=(TX, TY))
    assert removable(pos, 4).tolist()[:4] == [True, False, False, True]
    assert removable(pos, 3).tolist()[:4] == [False, True, False, True]  # thrower: odd rows
    assert removable(pos, 5).tolist()[:4] == [True, True, False, True]


def test_earliest_shot__follows_the_last_stone_in_play_and_the_throwers_parity() -> None:
    assert earliest_shot(np.zeros((16, 2)), 0) == 0 and earliest_shot(np.zeros((16, 2)), 1) == 1
    pos = _position(s3=(TX, TY))
    assert earliest_shot(pos, 0) == 4 and earliest_shot(pos, 1) == 5


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if n.startswith("draw")])
def test_draw__rests_inside_its_ring(name: str) -> None:
    rest = _throw(name, np.zeros((16, 2)))[0]
    ring = RING[name.split()[1]]
    assert rules.distance_to_tee(rest) < ring, f"{name} rests at {rest}"


@pytest.mark.parametrize("name", [n for n in BASIC_NAMES if "guard" in n])
def test_guard__rests_in_the_free_guard_zone(name: str) -> None:
    rest = _throw(name, np.zeros((16, 2)))[0]
    assert rules.in_free_guard_zone(rest), f"{name} rests at {rest}"
    if "centre" in name:
        assert rules.touches_centre_line(rest)


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if n.startswith("takeout")])
def test_takeout__removes_its_target(name: str) -> None:
    k = int(name.split()[2])
    after = _throw(name, _position())
    target_row = 2 * k + 1
    assert not rules.in_play(after[target_row]), f"{name} left its target at {after[target_row]}"
    others = [r for r in (1, 3, 5, 7) if r != target_row]
    assert np.all(rules.in_play(after[others]))  # the other opponent stones stay


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if n.startswith("tap")])
def test_tap__pushes_its_target_back_and_keeps_it_in_play(name: str) -> None:
    k = int(name.split()[2])
    before = _position()
    after = _throw(name, before)
    row = 2 * k + 1
    assert rules.in_play(after[row])
    assert 0.3 < before[row, 1] - after[row, 1] < 1.5  # about a metre toward the back


@pytest.mark.parametrize("curl", CURLS)
@pytest.mark.parametrize(("target", "row"), [("opp 0", 1), ("opp 1", 3), ("own 0", 2)])
def test_freeze__rests_touching_its_target_in_the_house(target: str, row: int, curl: str) -> None:
    before = _position()
    before[0], before[2] = (TX - 0.5, TY + 2.6), (TX + 0.8, TY - 0.6)  # own 0 is row 2
    after = _throw(f"freeze {target} {curl}", before, shot=8)
    gap = np.linalg.norm(after[8] - after[row]) - 2 * R
    assert gap < 0.3 and rules.in_house(after[8]), f"rests {gap:.3f} m off at {after[8]}"
    assert np.allclose(after[:8], before[:8], atol=0.05)  # nothing knocked away


@pytest.mark.parametrize("curl", CURLS)
@pytest.mark.parametrize(("k", "row"), [(0, 1), (1, 0)])
def test_come_around__rests_in_the_house_hidden_behind_the_guard(
    k: int, row: int, curl: str
) -> None:
    before = _position(s0=(TX + 0.6, 8.6), s1=(TX - 0.5, 7.4))  # guard 0 is row 1
    after = _throw(f"come around guard {k} {curl}", before, shot=2)
    assert np.array_equal(after[:2], before[:2])  # the guards did not move
    assert rules.in_house(after[2]) and after[2, 1] < before[row, 1]
    assert _hidden_behind(after[2], before[row]), f"rests at {after[2]}, not behind {before[row]}"


@pytest.mark.parametrize("curl", CURLS)
@pytest.mark.parametrize(("k", "row"), [(0, 0), (1, 2)])
def test_raise__pushes_its_own_stone_onto_the_button(k: int, row: int, curl: str) -> None:
    before = _position(s0=(TX - 0.4, 6.4), s1=(TX + 1.3, TY), s2=(TX + 0.5, 8.3), s4=(TX, 4.0))
    after = _throw(f"raise own {k} {curl}", before, shot=6)
    assert rules.distance_to_tee(after[row]) < RING["4ft"], f"raised to {after[row]}"


@pytest.mark.parametrize("curl", CURLS)
@pytest.mark.parametrize(("k", "row"), [(0, 1), (1, 0)])
def test_peel__the_guard_leaves_play(k: int, row: int, curl: str) -> None:
    before = _position(s0=(TX + 0.3, 8.8), s1=(TX - 0.85, 7.4))  # guard 0 is row 1 (theirs)
    after = _throw(f"peel guard {k} {curl}", before, shot=6)
    assert not rules.in_play(after[row]) and rules.in_play(after[1 - row])


@pytest.mark.parametrize("curl", CURLS)
def test_peel__leaves_a_guard_the_free_guard_zone_protects(curl: str) -> None:
    before = _position(s0=(TX + 0.3, 8.8), s1=(TX - 0.85, 7.4))
    after = _throw(f"peel guard 0 {curl}", before, shot=2)  # theirs is protected: peel ours
    assert not rules.free_guard_zone_violation(before, after, 2)
    assert not rules.in_play(after[0]) and np.array_equal(after[1], before[1])


@pytest.mark.parametrize("curl", CURLS)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("k", [0, 1])
def test_hit_and_roll__removes_the_target_and_rolls_to_that_side(
    k: int, side: str, curl: str
) -> None:
    before = _position()
    after = _throw(f"hit and roll opp {k} {side} {curl}", before)
    target = before[2 * k + 1]
    assert not rules.in_play(after[2 * k + 1]) and rules.in_house(after[0]), after[0]
    assert (after[0, 0] - target[0]) * (1 if side == "right" else -1) > 0.1


def test_throw_away__leaves_play_and_moves_nothing() -> None:
    before = _position(s0=(TX, 7.6), s1=(TX + 0.2, TY))
    after = _throw("throw away", before, shot=2)
    assert np.array_equal(after, before)  # the thrown stone (row 2) is out of play, (0, 0)


@pytest.mark.parametrize("name", TEMPLATE_NAMES[len(BASIC_NAMES) : -1])
def test_new_templates__without_a_target_draw_to_the_button(name: str) -> None:
    rest = _throw(name, np.zeros((16, 2)))[0]
    assert rules.distance_to_tee(rest) < RING["button"], f"{name} rests at {rest}"


@pytest.mark.parametrize("curl", CURLS)
def test_raise__without_a_stone_in_front_of_the_tee_draws_to_the_button(curl: str) -> None:
    after = _throw(f"raise own 0 {curl}", _position(s0=(TX + 1.0, TY - 0.5)), shot=2)
    assert rules.distance_to_tee(after[2]) < RING["button"]


def test_takeout__without_a_target_draws_to_the_button() -> None:
    rest = _throw("takeout opp 0 w+", np.zeros((16, 2)))[0]
    assert rules.distance_to_tee(rest) < RING["button"]


def test_template_throw__index_outside_the_table_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=f"0..{len(TEMPLATES) - 1}"):
        template_throw(len(TEMPLATES), np.zeros((16, 2)), 0, shot_tables())


def test_targets__order_is_the_numpy_definition_on_random_layouts() -> None:
    """The plain-Python target lists equal the rules' numpy predicates sorted by
    ``distance_to_tee`` (stable), ties and boundary stones included."""

    def reference(position: np.ndarray, mask: np.ndarray) -> np.ndarray:
        stones = position[mask]
        return stones[np.argsort(rules.distance_to_tee(stones), kind="stable")]

    rows = np.arange(16)
    for position in random_layouts(np.random.default_rng(5), 300):
        on = rules.in_play(position)
        for parity in (0, 1):
            want_opp = reference(position, (rows % 2 != parity) & on)
            want_own = reference(position, (rows % 2 == parity) & on)
            np.testing.assert_array_equal(opponent_stones(position, parity), want_opp)
            np.testing.assert_array_equal(own_stones(position, parity), want_own)
        want = reference(position, rules.in_free_guard_zone(position))
        np.testing.assert_array_equal(guards(position), want)


def test_draw_speed__the_kept_curve_gives_the_interpolated_speed() -> None:
    """``draw_speed`` keeps a curve per spin; each answer equals interpolating the table anew."""
    from rllib_curling.aiming.tables import V_GRID, W_GRID, ShotTables, _lerp

    built = shot_tables()
    tables = ShotTables(built.rest_y, built.rest_drift, built.drift)
    for w in (1.2, np.float64(1.2), -np.pi / 2, 0.0, -0.0, 2 * np.pi, 1.2):
        for y in (2.0, 4.88, 6.3, 10.0, 12.5):
            rest = _lerp(built.rest_y, W_GRID, w, axis=1)
            ok = np.isfinite(rest)
            assert tables.draw_speed(y, w) == float(np.interp(-y, -rest[ok], V_GRID[ok]))
    assert len(tables._draw_curves) == 4  # 1.2, -pi/2, 0.0 (= -0.0), 2 pi
