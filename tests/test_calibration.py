"""The platform ice against the calibration tables, the recorded collisions and free draws, and
the course facts (noise off).

Targets (shared/spec/physics.md §3 and the calibration README). Two course facts are not met
by a model that fits the official tables; they are kept as strict xfails so that a change that
reaches them without losing the tables shows up:

- curl at w = +-3.14, v = 3 is 0.47 m here, not 0.78 +- 0.15: the tables' curl at |w| = 1.5
  (about 0.24 m) and the course's own w = 10 figure (1.42-1.45 m; 1.41 m here) bracket it;
  scaling the curl to 0.63 m pushes the landing RMS past 0.05 m;
- the draw-weight line v = 3.613 - 0.12234 y_stop: the tables themselves sit 0.25-0.3 m off it
  at v = 2.75 and 3.25, and our stop is 0.48 m short of it at v = 2.4.
"""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import sheet
from rllib_curling.physics import PLATFORM, simulate, simulate_batch
from rllib_curling.physics.calibration import (
    OFFICIAL_FREE_DRAWS,
    CalibrationReport,
    evaluate,
    landing_errors,
    load_table,
)
from rllib_curling.physics.collisions import CollisionReport, collision_errors, read_collisions


@pytest.fixture(scope="module")
def report() -> CalibrationReport:
    return evaluate(PLATFORM)


@pytest.fixture(scope="module")
def collisions() -> CollisionReport:
    return collision_errors(PLATFORM)


def test_calibration_data__ships_with_the_package() -> None:
    landing = load_table("official_landing")
    mid = load_table("official_midsheet")
    assert len(landing) == 147 and landing.dtype.names == ("v", "h", "w", "sweep", "x", "y")
    assert len(mid) == 120 and "spin" in mid.dtype.names
    assert np.sum(landing["sweep"] == 0) == 120


def test_landing__no_sweep_rms_and_worst_row(report: CalibrationReport) -> None:
    assert report.rms_nosweep <= 0.03
    assert report.worst_nosweep <= 0.15


def test_landing__sweep_rms(report: CalibrationReport) -> None:
    assert report.rms_sweep <= 0.08


def test_landing__every_row_lands_near_its_table_point() -> None:
    rows, rest, dist = landing_errors(PLATFORM)
    assert np.all(np.isfinite(rest))
    assert np.all(dist[rows["sweep"] == 0] < 0.15)


def test_midsheet__motioninfo_speed_spin_and_x(report: CalibrationReport) -> None:
    assert report.mid_speed_rel_err <= 0.02
    assert report.mid_spin_rel_err <= 0.10
    assert report.mid_x_err <= 0.03


def test_midsheet__trigger_matches_the_tables_y(report: CalibrationReport) -> None:
    assert abs(report.mid_y_mean - 21.52) < 0.01


def test_free_draws__rest_at_the_official_means(report: CalibrationReport) -> None:
    v3, curl = report.free_draw_errors
    assert v3 <= 0.02  # v = 3, h = 0, w = 0: 6 official throws
    assert curl <= 0.05  # v = 2.55, h = -1.2, w = -3.14: 4 official throws
    assert OFFICIAL_FREE_DRAWS[0][0] == (3.0, 0.0, 0.0)


@pytest.mark.parametrize("w", [0.0, 1e-7, -1e-7])
def test_spin_floor__a_straight_throw_curls_like_the_platforms(w: float) -> None:
    rest = simulate(np.zeros((16, 2)), 0, (3.0, 0.0, w), noise=False).position[0]
    floor = simulate(np.zeros((16, 2)), 0, (3.0, 0.0, 0.01), noise=False).position[0]
    np.testing.assert_array_equal(rest, floor)  # |w| <= 1e-6 becomes +0.01
    assert 0.03 < rest[0] - sheet.RELEASE_X < 0.07  # drifts toward +x, about 4.9 cm


def test_spin_floor__a_small_negative_spin_still_curls_to_minus_x() -> None:
    rest = simulate(np.zeros((16, 2)), 0, (3.0, 0.0, -1e-4), noise=False).position[0]
    assert rest[0] < sheet.RELEASE_X - 0.03


def test_curl__positive_spin_curls_plus_x_symmetrically(report: CalibrationReport) -> None:
    res = simulate_batch(
        np.zeros((16, 2)), 0, [[3.0, 0.0, 3.14], [3.0, 0.0, -3.14]], noise=False,
        remove_out_of_play=False,
    )  # fmt: skip
    plus, minus = res.positions[:, 0, 0] - sheet.RELEASE_X
    assert plus > 0.4 and minus < -0.4
    assert plus == pytest.approx(-minus, abs=1e-9)


def test_collisions__table_ships_with_the_package() -> None:
    rows = read_collisions()
    assert len(rows) == 28 and len({r.setup for r in rows}) == 6
    assert sum(r.thrown_rest is not None for r in rows) == 4


def test_collisions__struck_stone_rests_where_the_platform_put_it(
    collisions: CollisionReport,
) -> None:
    assert collisions.target_median <= 0.10
    assert collisions.target_p90 <= 0.30


def test_collisions__in_or_out_of_play_agrees(collisions: CollisionReport) -> None:
    assert collisions.in_out_agreement >= 0.9


def test_collisions__thrown_stone_rests_where_recorded(collisions: CollisionReport) -> None:
    assert collisions.thrown_rows == 4 and collisions.thrown_median <= 0.10


def test_collisions__one_anchor_of_patch_friction_slides_twice_as_far() -> None:
    one = collision_errors(PLATFORM.replace(contact_friction_anchors=1))
    assert one.target_median > 1.0  # the struck stone overshoots by metres


def test_curl__large_spin_matches_the_course_w10_figure() -> None:
    res = simulate_batch(
        np.zeros((16, 2)), 0, [[3.0, 0.0, 10.0], [3.0, 0.0, 0.0]], noise=False,
        remove_out_of_play=False,
    )  # fmt: skip
    assert 1.3 < res.positions[0, 0, 0] - res.positions[1, 0, 0] < 1.55


@pytest.mark.xfail(strict=True, reason="course figure inconsistent with the tables (see top)")
def test_curl__course_figure_for_w_3_14(report: CalibrationReport) -> None:
    assert abs(report.curl_pos - 0.78) <= 0.15


def test_draw_line__within_0_3_m_from_v_2_6(report: CalibrationReport) -> None:
    v = np.round(np.arange(2.6, 3.6001, 0.05), 4)
    res = simulate_batch(
        np.zeros((16, 2)), 0, np.stack([v, 0 * v, 0 * v], axis=1), noise=False,
        remove_out_of_play=False,
    )  # fmt: skip
    line = (3.613 - v) / 0.12234
    assert np.max(np.abs(res.positions[:, 0, 1] - line)) <= 0.3


@pytest.mark.xfail(strict=True, reason="v = 2.4-2.5 stop 0.3-0.5 m short of the course line")
def test_draw_line__within_0_3_m_over_2_4_to_3_6(report: CalibrationReport) -> None:
    assert report.draw_line_err <= 0.3
