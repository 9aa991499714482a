"""Every shot template, noise off, does what its name says (rllib_curling.aiming.templates)."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.aiming.templates import (
    TEMPLATE_NAMES,
    TEMPLATES,
    opponent_stones,
    template_table,
    template_throw,
)
from rllib_curling.physics import simulate

TX, TY = sheet.TEE
#: Opponent stones (odd rows: we throw stone 0, our stones are the even rows), nearest first.
OPPONENTS = [(TX + 0.3, TY + 0.2), (TX - 0.9, TY - 0.3), (TX + 1.2, TY + 0.9), (TX - 0.4, TY + 1.5)]
RING = {"button": 0.15, "4ft": 0.61, "8ft": 1.22, "12ft": 1.87}


def _position() -> np.ndarray:
    pos = np.zeros((16, 2))
    for k, xy in enumerate(OPPONENTS):
        pos[2 * k + 1] = xy
    return pos


def _throw(name: str, position: np.ndarray) -> np.ndarray:
    index = TEMPLATE_NAMES.index(name)
    throw = template_throw(index, position, 0, shot_tables())
    return simulate(position, 0, throw, noise=False).position


def test_templates__names_are_unique_and_come_with_both_curls() -> None:
    assert len(set(TEMPLATE_NAMES)) == len(TEMPLATES)
    plus = [n[:-3] for n in TEMPLATE_NAMES if n.endswith(" w+")]
    minus = [n[:-3] for n in TEMPLATE_NAMES if n.endswith(" w-")]
    assert plus == minus and len(plus) * 2 == len(TEMPLATES)


def test_template_table__one_row_per_template() -> None:
    rows = template_table().splitlines()[2:]
    assert len(rows) == len(TEMPLATES)
    for i, (row, name) in enumerate(zip(rows, TEMPLATE_NAMES, strict=True)):
        assert row.startswith(f"| {i} | {name} |")


def test_opponent_stones__nearest_to_the_tee_first() -> None:
    stones = opponent_stones(_position(), 0)
    dist = np.hypot(stones[:, 0] - TX, stones[:, 1] - TY)
    assert len(stones) == 4 and np.all(np.diff(dist) > 0)


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if n.startswith("draw")])
def test_draw__rests_inside_its_ring(name: str) -> None:
    rest = _throw(name, np.zeros((16, 2)))[0]
    ring = RING[name.split()[1]]
    assert rules.distance_to_tee(rest) < ring, f"{name} rests at {rest}"


@pytest.mark.parametrize("name", [n for n in TEMPLATE_NAMES if "guard" in n])
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


def test_takeout__without_a_target_draws_to_the_button() -> None:
    rest = _throw("takeout opp 0 w+", np.zeros((16, 2)))[0]
    assert rules.distance_to_tee(rest) < RING["button"]


def test_template_throw__index_outside_the_table_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=f"0..{len(TEMPLATES) - 1}"):
        template_throw(len(TEMPLATES), np.zeros((16, 2)), 0, shot_tables())
