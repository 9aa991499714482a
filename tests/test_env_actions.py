"""``env.actions``: the action maps from an agent's action to a throw (no server)."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import sheet
from rllib_curling.aiming.tables import ShotTables, shot_tables
from rllib_curling.aiming.templates import TEMPLATES
from rllib_curling.env.actions import (
    AIM_X_RANGE,
    DRAW_Y_BACK,
    DRAW_Y_LONG,
    SPIN_SCALE,
    WEIGHT_SPLIT,
    continuous_throw,
    discrete_throw,
    raw_throw,
)


@pytest.fixture(scope="module")
def tables() -> ShotTables:
    return shot_tables()


def _throw(action: list[float], tables: ShotTables) -> tuple[float, float, float, float]:
    return continuous_throw(np.array(action, dtype=np.float64), tables)


@pytest.mark.parametrize("spin", [-1.0, 0.0, 0.5])
def test_continuous_weight__ends_of_the_draw_range_stop_long_and_at_the_back(
    tables: ShotTables, spin: float
) -> None:
    w = SPIN_SCALE * spin
    assert _throw([-1.0, 0.0, spin], tables)[0] == pytest.approx(tables.draw_speed(DRAW_Y_LONG, w))
    back = _throw([WEIGHT_SPLIT, 0.0, spin], tables)[0]
    assert back == pytest.approx(tables.draw_speed(DRAW_Y_BACK, w))


def test_continuous_weight__grows_with_the_action_up_to_v_max(tables: ShotTables) -> None:
    speeds = [_throw([a, 0.0, 0.0], tables)[0] for a in np.linspace(-1.0, 1.0, 21)]
    assert np.all(np.diff(speeds) > 0)
    assert speeds[-1] == pytest.approx(sheet.V_MAX)


def test_continuous_aim__a_draw_passes_through_its_stopping_point(tables: ShotTables) -> None:
    v, h, w, _ = _throw([0.0, 0.5, 0.3], tables)
    y_stop = DRAW_Y_LONG + 1.0 / (WEIGHT_SPLIT + 1.0) * (DRAW_Y_BACK - DRAW_Y_LONG)
    assert h == pytest.approx(tables.aim(sheet.CENTRE_X + 0.5 * AIM_X_RANGE, y_stop, v, w))


def test_continuous_aim__a_hit_aims_at_the_tee_line(tables: ShotTables) -> None:
    v, h, w, _ = _throw([0.9, -0.25, -0.4], tables)
    assert h == pytest.approx(tables.aim(sheet.CENTRE_X - 0.25 * AIM_X_RANGE, sheet.TEE_Y, v, w))


def test_continuous_spin__is_pi_times_the_action(tables: ShotTables) -> None:
    assert _throw([0.0, 0.0, -0.5], tables)[2] == pytest.approx(-np.pi / 2)


@pytest.mark.parametrize(
    "a, sweep", [(-1.0, 0.0), (0.0, sheet.SWEEP_MAX / 2), (1.0, sheet.SWEEP_MAX)]
)
def test_continuous_sweep__fourth_number_maps_to_the_sweep_distance(
    tables: ShotTables, a: float, sweep: float
) -> None:
    assert _throw([0.0, 0.0, 0.0, a], tables)[3] == pytest.approx(sweep)


def test_continuous_sweep__three_numbers_do_not_sweep(tables: ShotTables) -> None:
    assert _throw([0.0, 0.0, 0.0], tables)[3] == 0.0


def test_continuous__actions_outside_the_box_are_clipped(tables: ShotTables) -> None:
    assert _throw([3.0, -7.0, 2.0, 9.0], tables) == _throw([1.0, -1.0, 1.0, 1.0], tables)


def test_raw_throw__passes_values_inside_the_limits() -> None:
    assert raw_throw(np.array([2.5, -0.1, 1.0, 3.0])) == (2.5, -0.1, 1.0, 3.0)


def test_raw_throw__clips_to_the_platform_limits() -> None:
    big = raw_throw(np.array([9.0, 9.0, 99.0, 99.0]))
    assert big == (sheet.V_MAX, sheet.H_MAX, sheet.W_MAX, sheet.SWEEP_MAX)
    small = raw_throw(np.array([-1.0, -9.0, -99.0, -5.0]))
    assert small == (0.0, -sheet.H_MAX, -sheet.W_MAX, 0.0)


def test_raw_throw__three_numbers_do_not_sweep() -> None:
    assert raw_throw(np.array([2.5, 0.0, 0.0]))[3] == 0.0


def test_discrete_throw__every_template_on_an_empty_sheet_is_a_legal_throw(
    tables: ShotTables,
) -> None:
    empty = np.zeros((sheet.STONES_PER_END, 2))
    for index in range(len(TEMPLATES)):
        v, h, w, sweep = discrete_throw(index, empty, 0, tables, shot=0)
        assert 0.0 < v <= sheet.V_MAX and abs(h) <= sheet.H_MAX and abs(w) <= sheet.W_MAX
        assert 0.0 <= sweep <= sheet.SWEEP_MAX
