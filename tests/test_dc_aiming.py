"""Tests of rllib_curling.dc_aiming: the fcv1 free-path tables aim draws and hits in DC's shot
frame, checked against the fcv1 ice itself (noise off)."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import dc_sheet
from rllib_curling.dc_aiming import V_GRID, DCShotTables, dc_shot_tables, release
from rllib_curling.physics.fcv1 import simulate, simulate_batch
from rllib_curling.physics.fcv1.params import IN_PLAY, OUT_BACK

TEE = dc_sheet.TEE
#: The tee, two guards and two points of the house.
TARGETS = [TEE, (0.0, 34.5), (-0.9, 35.2), (1.2, 39.4), (-1.0, 37.6)]


@pytest.fixture(scope="module")
def tables() -> DCShotTables:
    return dc_shot_tables()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rotation", [-1.0, 1.0])
def test_draw__comes_to_rest_within_5cm_of_the_target(
    tables: DCShotTables, target: tuple[float, float], rotation: float
) -> None:
    shot = tables.draw(*target, rotation)

    result = simulate(np.zeros((16, 2)), 0, shot)

    assert result.status[0] == IN_PLAY
    assert np.hypot(*(result.position[0] - target)) < 0.05
    assert shot[2] == rotation


def test_draws__equal_one_draw_each(tables: DCShotTables) -> None:
    xs, ys = zip(*TARGETS, strict=True)

    many = tables.draws(xs, ys, 1.0)

    assert many.shape == (len(TARGETS), 3)
    for row, target in zip(many, TARGETS, strict=True):
        assert np.allclose(row, tables.draw(*target, 1.0))


def test_draw__curl_direction_follows_dc_rotation(tables: DCShotTables) -> None:
    # ccw (+1) curls toward -x, so it is released toward +x of the target; cw the other way.
    ccw, cw = tables.draw(*TEE, 1.0), tables.draw(*TEE, -1.0)

    assert ccw[0] > 0.0 > cw[0]
    assert ccw[1] == pytest.approx(cw[1])


@pytest.mark.parametrize("target", [TEE, (0.6, 37.2), (-1.1, 39.3)])
@pytest.mark.parametrize("rotation", [-1.0, 1.0])
def test_hit__at_takeout_weight_removes_the_stone(
    tables: DCShotTables, target: tuple[float, float], rotation: float
) -> None:
    position = np.zeros((16, 2))
    position[8] = target
    shot = tables.hit(*target, 3.0, rotation)

    result = simulate(position, 0, shot)

    assert result.status[8] != IN_PLAY
    assert np.hypot(*shot[:2]) <= dc_sheet.MAX_SPEED


def test_hit__weight_is_the_speed_at_contact(tables: DCShotTables) -> None:
    # A free stone thrown with the hit's release passes the target's front at about that speed:
    # a weight of 0.6 m/s is a draw-weight hit, slower than a takeout's release.
    soft, firm = tables.hit(*TEE, 0.6, 1.0), tables.hit(*TEE, 3.0, 1.0)

    free_soft = simulate(np.zeros((16, 2)), 0, soft)

    assert np.hypot(*soft[:2]) < np.hypot(*firm[:2])
    assert free_soft.status[0] in (IN_PLAY, OUT_BACK)
    assert free_soft.position[0][1] > TEE[1] or free_soft.status[0] == OUT_BACK


def test_clearance__is_small_on_the_path_and_large_beside_it(tables: DCShotTables) -> None:
    shot = tables.draw(*TEE, 1.0)
    path = simulate(np.zeros((16, 2)), 0, shot, trajectory=True).trajectory
    assert path is not None
    on_path = path[len(path) // 2, 0]

    gaps = tables.clearance(shot, [on_path, on_path + (0.5, 0.0), (0.0, 42.0)])

    assert gaps[0] < 0.02
    assert gaps[1] == pytest.approx(0.5, abs=0.03)
    assert gaps[2] == np.inf  # the stone stops before it


def test_rest_point__inverts_draw(tables: DCShotTables) -> None:
    assert tables.rest_point(tables.draw(0.7, 36.9, -1.0)) == pytest.approx((0.7, 36.9), abs=1e-3)


def test_tables__are_built_from_fcv1_straight_releases(tables: DCShotTables) -> None:
    # The tabulated rest distance of a speed is where fcv1 puts that straight release.
    k = int(np.searchsorted(V_GRID, 2.4))
    throws = release(V_GRID[[k]], 0.0, 1.0)

    rest = simulate_batch(np.zeros((16, 2)), 0, throws).positions[0, 0]

    assert tables.rest_d[1, k] == pytest.approx(np.hypot(*rest), abs=1e-6)
    assert dc_shot_tables() is tables  # built once per process


def test_draw__refuses_a_rotation_other_than_plus_or_minus_one(tables: DCShotTables) -> None:
    with pytest.raises(ValueError, match="rotation"):
        tables.draw(*TEE, 0.5)
