"""Physics engine: API contract, invariants of contacts, determinism, removal, the table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rllib_curling import sheet
from rllib_curling.errors import InvalidThrowError
from rllib_curling.physics import (
    PLATFORM,
    clamp_throw,
    derive_seeds,
    simulate,
    simulate_batch,
)
from rllib_curling.physics.band import band_forces, build_table
from rllib_curling.physics.contact import collide
from rllib_curling.physics.engine import compiled_model

EMPTY = np.zeros((16, 2))
R = sheet.STONE_RADIUS


def one_stone(x: float, y: float, k: int = 0) -> np.ndarray:
    pos = np.zeros((16, 2))
    pos[k] = (x, y)
    return pos


def aim_h(x_target: float) -> float:
    """h that releases the stone on the line x = x_target (no spin: straight path)."""
    return x_target - sheet.RELEASE_X


# --- clamp_throw ------------------------------------------------------------------------------


def test_clamp_throw__clamps_to_platform_limits() -> None:
    out = clamp_throw((7.0, -3.0, 20.0, 15.0))
    np.testing.assert_array_equal(out, [6.0, -2.23, 15.7, 12.0])
    np.testing.assert_array_equal(clamp_throw([3.0, 0.1, -1.0]), [3.0, 0.1, -1.0, 0.0])
    np.testing.assert_array_equal(clamp_throw((-1.0, 0.0, 0.0, -2.0)), [0.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    ("throw", "message"),
    [
        ((np.nan, 0.0, 0.0), "throw v=nan is not a finite number"),
        ((3.0, np.inf, 0.0), "throw h=inf is not a finite number"),
        ((3.0, 0.0, 0.0, -np.inf), "throw sweep=-inf is not a finite number"),
        ((3.0, 0.0), "must have shape (3,) or (4,)"),
        ("fast", "must be numbers"),
    ],
)
def test_clamp_throw__rejects_bad_values_naming_them(throw: object, message: str) -> None:
    with pytest.raises(InvalidThrowError) as err:
        clamp_throw(throw)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(min_value=-30, max_value=30, allow_nan=False),
            st.integers(min_value=-30, max_value=30),
            st.floats(width=32, min_value=-30, max_value=30).map(np.float32),
            st.sampled_from([0.0, -0.0, 6.0, -2.23, 2.23, 15.7, -15.7, 12.0]),
        ),
        min_size=3,
        max_size=4,
    )
)
def test_clamp_throw__plain_path_equals_the_array_path(values: list[object]) -> None:
    from rllib_curling.physics.engine import _clamp

    want = _clamp(np.atleast_2d(np.array(values, dtype=np.float64)), "throw", single=True)[0]
    for throw in (tuple(values), list(values), np.array(values, dtype=np.float64)):
        got = clamp_throw(throw)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))


def test_clamp_throw__a_bool_is_not_a_number() -> None:
    with pytest.raises(InvalidThrowError, match="must be numbers"):
        clamp_throw((3.0, 0.0, "x"))
    np.testing.assert_array_equal(clamp_throw((True, 0.0, 0.0)), [1.0, 0.0, 0.0, 0.0])


def test_simulate__reused_work_arrays_change_nothing() -> None:
    """The kernel's work arrays are kept between calls: a shot gives the same result after a
    crowded collision, a trajectory run and a batch as it did first."""
    pos = one_stone(2.375, 5.0, 1)
    first = simulate(pos, 0, (3.2, 0.0, 1.0), seed=3)
    crowded = np.zeros((16, 2))
    crowded[1:12:2] = [(2.2 + 0.1 * k, 5.0 + 0.2 * k) for k in range(6)]
    simulate(crowded, 0, (5.5, -0.02, -1.0), seed=4, trajectory_stride=10)
    simulate(crowded, 0, (6.0, 0.05, 2.0), seed=5, until_midsheet=True)
    simulate_batch(crowded, 0, [[4.0, 0.0, 1.0], [3.0, 0.1, -1.0]], seeds=[1, 2])
    again = simulate(pos, 0, (3.2, 0.0, 1.0), seed=3)
    np.testing.assert_array_equal(first.position, again.position)
    np.testing.assert_array_equal(first.mid, again.mid)
    assert first.ticks == again.ticks


def test_simulate__noise_without_rng_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="noise=True needs a numpy.random.Generator"):
        simulate(EMPTY, 0, (3.0, 0.0, 0.0))


def test_simulate__occupied_slot_is_rejected() -> None:
    with pytest.raises(InvalidThrowError, match="slot 0 is occupied"):
        simulate(one_stone(2.0, 5.0), 0, (3.0, 0.0, 0.0), noise=False)


def test_simulate_batch__names_the_bad_row() -> None:
    with pytest.raises(InvalidThrowError, match=r"throws\[1\] w=nan"):
        simulate_batch(EMPTY, 0, [[3.0, 0.0, 0.0], [3.0, 0.0, np.nan]], noise=False)


# --- single stone -----------------------------------------------------------------------------


def test_simulate__free_draw_rests_near_the_tee() -> None:
    res = simulate(EMPTY, 0, (3.0, 0.0, 0.0), noise=False)
    x, y = res.position[0]
    assert abs(x - 2.346) < 0.1 and abs(y - 4.82) < 0.1
    assert np.all(res.position[1:] == 0.0)
    assert 2000 < res.ticks < 3000  # about 25 s


def test_simulate__positive_spin_curls_toward_plus_x() -> None:
    res = simulate_batch(EMPTY, 0, [[3.0, 0.0, 1.0], [3.0, 0.0, -1.0]], noise=False)
    assert res.positions[0, 0, 0] > sheet.RELEASE_X + 0.1
    assert res.positions[1, 0, 0] < sheet.RELEASE_X - 0.1


def test_simulate__sweeping_lengthens_the_throw() -> None:
    res = simulate_batch(EMPTY, 0, [[3.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 12.0]], noise=False)
    assert res.positions[1, 0, 1] < res.positions[0, 0, 1]


def test_until_midsheet__reports_the_same_state_as_the_full_run() -> None:
    seed = int(derive_seeds(np.random.default_rng(3), 1)[0])
    half = simulate(EMPTY, 0, (3.0, 0.2, 1.0), seed=seed, until_midsheet=True)
    full = simulate(EMPTY, 0, (3.0, 0.2, 1.0, 6.0), seed=seed)
    assert half.mid is not None and full.mid is not None
    np.testing.assert_array_equal(half.mid, full.mid)
    assert 21.50 < half.mid[1] < 21.55 and half.mid[3] < 0
    np.testing.assert_array_equal(half.position[0], half.mid[:2])
    assert half.ticks < full.ticks


def test_simulate__slow_throw_never_reaches_midsheet_and_is_removed() -> None:
    res = simulate(EMPTY, 3, (1.0, 0.0, 0.0), noise=False)
    assert res.mid is None
    assert np.all(res.position == 0.0)  # short of the hog line
    batch = simulate_batch(EMPTY, 3, [[1.0, 0.0, 0.0]], noise=False)
    assert np.all(np.isnan(batch.mid[0]))


def test_trajectory__frames_start_at_release_and_end_at_rest() -> None:
    res = simulate(one_stone(2.375, 4.88, 1), 0, (3.0, 0.0, 0.5), noise=False, trajectory_stride=10)
    traj = res.trajectory
    assert traj is not None and traj.shape[1:] == (16, 2)
    assert len(traj) == res.ticks // 10 + 1 + (res.ticks % 10 != 0)
    np.testing.assert_array_equal(traj[0, 0], (sheet.RELEASE_X, sheet.RELEASE_Y))
    np.testing.assert_array_equal(traj[-1], res.position)
    plain = simulate(one_stone(2.375, 4.88, 1), 0, (3.0, 0.0, 0.5), noise=False)
    np.testing.assert_array_equal(plain.position, res.position)
    assert plain.trajectory is None


# --- randomness and batches -------------------------------------------------------------------


def test_determinism__same_seed_same_result() -> None:
    pos = one_stone(2.4, 5.0, 1)
    a = simulate(pos, 0, (3.0, 0.0, 1.0), np.random.default_rng(7))
    b = simulate(pos, 0, (3.0, 0.0, 1.0), np.random.default_rng(7))
    np.testing.assert_array_equal(a.position, b.position)
    throws = [[3.0, 0.0, 1.0, 0.0], [5.0, 0.03, -1.0, 0.0], [2.7, -0.3, 2.0, 8.0]]
    c = simulate_batch(pos, 0, throws, np.random.default_rng(7))
    d = simulate_batch(pos, 0, throws, np.random.default_rng(7))
    np.testing.assert_array_equal(c.positions, d.positions)
    np.testing.assert_array_equal(c.mid, d.mid)


def test_noise__changes_the_outcome_within_centimetres() -> None:
    res = simulate_batch(EMPTY, 0, [[3.0, 0.0, 0.0]] * 20, np.random.default_rng(1))
    ys = res.positions[:, 0, 1]
    assert len(np.unique(ys)) == 20
    exact = simulate(EMPTY, 0, (3.0, 0.0, 0.0), noise=False).position[0, 1]
    assert 0.005 < np.std(ys) < 0.2 and abs(np.mean(ys) - exact) < 0.1


def test_batch__equals_single_shots_with_the_same_seeds() -> None:
    rng = np.random.default_rng(11)
    positions = np.zeros((4, 16, 2))
    positions[:, 1] = (2.375, 4.9)
    positions[2, 3] = (2.0, 8.0)
    throws = np.array(
        [[3.0, 0.0, 1.0, 0.0], [4.5, 0.02, 0.0, 0.0], [3.1, -0.35, 0.5, 4.0], [2.6, 0.5, -2, 0.0]]
    )
    seeds = derive_seeds(rng, 4)
    batch = simulate_batch(positions, [0, 0, 5, 0], throws, seeds=seeds)
    for k, slot in enumerate([0, 0, 5, 0]):
        one = simulate(positions[k], slot, throws[k], seed=int(seeds[k]))
        np.testing.assert_array_equal(one.position, batch.positions[k])
        np.testing.assert_array_equal(one.mid, batch.mid[k])
        assert one.ticks == batch.ticks[k]
    first = simulate(positions[0], 0, throws[0], np.random.default_rng(5))
    rows = simulate_batch(positions[0], 0, throws, np.random.default_rng(5))
    np.testing.assert_array_equal(first.position, rows.positions[0])


def test_batch__on_all_threads_equals_one_after_another(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba

    from rllib_curling.physics import engine

    rng = np.random.default_rng(3)
    n = 3 * engine.PARALLEL_MIN_THROWS + 1  # uneven chunks
    position = np.zeros((16, 2))
    position[0], position[1], position[2] = (2.375, 4.9), (2.5, 7.4), (2.1, 5.6)
    throws = np.column_stack(
        [rng.uniform(2.8, 5.5, n), rng.uniform(-0.6, 0.6, n), rng.choice([-1.6, 1.6], n)]
    )
    seeds = derive_seeds(rng, n)
    calls: list[str] = []
    for name in ("run_batch", "run_batch_parallel"):
        real = getattr(engine, name)
        monkeypatch.setattr(engine, name, lambda *a, real=real, name=name: (calls.append(name),
                                                                           real(*a)))  # fmt: skip
    together = simulate_batch(position, 3, throws, seeds=seeds)
    monkeypatch.setattr(engine, "PARALLEL_MIN_THROWS", n + 1)
    alone = simulate_batch(position, 3, throws, seeds=seeds)
    want = ["run_batch_parallel"] if numba.get_num_threads() > 1 else ["run_batch"]
    assert calls == [*want, "run_batch"]
    np.testing.assert_array_equal(together.positions, alone.positions)
    np.testing.assert_array_equal(together.mid, alone.mid)
    np.testing.assert_array_equal(together.ticks, alone.ticks)


def test_batch__trajectories_match_the_batched_run() -> None:
    throws = [[3.0, 0.0, 1.0], [5.0, 0.0, 0.0]]
    pos = one_stone(2.3506, 4.88, 1)
    plain = simulate_batch(pos, 0, throws, seeds=[1, 2])
    traced = simulate_batch(pos, 0, throws, seeds=[1, 2], trajectory_stride=25)
    np.testing.assert_array_equal(plain.positions, traced.positions)
    assert traced.trajectories is not None and len(traced.trajectories) == 2
    for k in range(2):
        np.testing.assert_array_equal(traced.trajectories[k][-1], plain.positions[k])


# --- contacts ---------------------------------------------------------------------------------

PARAMS, TABLE = compiled_model(PLATFORM)
finite = st.floats(-6.0, 6.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    angle=st.floats(0.0, 2 * np.pi),
    v1=st.tuples(finite, finite),
    v2=st.tuples(finite, finite),
    w=st.tuples(st.floats(-15.7, 15.7), st.floats(-15.7, 15.7)),
)
def test_collision__momentum_conserved_energy_not_gained(
    angle: float, v1: tuple[float, float], v2: tuple[float, float], w: tuple[float, float]
) -> None:
    pos = np.zeros((16, 2))
    pos[0] = (2.0, 6.0)
    pos[1] = pos[0] + 2 * PLATFORM.collider_radius * np.array([np.cos(angle), np.sin(angle)])
    vel = np.zeros((16, 2))
    vel[0], vel[1] = v1, v2
    spin = np.zeros(16)
    spin[0], spin[1] = np.clip(w, -3.14, 3.14)
    before_p = vel[0] + vel[1]
    f = PLATFORM.contact_inertia_factor * PLATFORM.collider_radius**2

    def energy() -> float:
        return float(np.sum(vel[:2] ** 2) + f * np.sum(spin[:2] ** 2))

    e0 = energy()
    collide(0, 1, pos, vel, spin, PARAMS)
    np.testing.assert_allclose(vel[0] + vel[1], before_p, atol=1e-12)
    assert energy() <= e0 + 1e-9
    n = (pos[1] - pos[0]) / np.linalg.norm(pos[1] - pos[0])
    assert (vel[0] - vel[1]) @ n <= 1e-12  # separating (or resting) afterwards


def test_collision__head_on_hit_transfers_the_motion() -> None:
    target = (2.3506, 4.88)
    res = simulate(
        one_stone(*target, 1), 0, (3.6, 0.0, 0.0), noise=False, trajectory_stride=1,
        remove_out_of_play=False,
    )  # fmt: skip
    shooter, hit = res.position[0], res.position[1]
    assert hit[1] < target[1] - 0.5  # the target is driven on
    traj = res.trajectory
    assert traj is not None
    contact = int(np.argmax(traj[:, 1, 1] < target[1] - 1e-9))
    assert np.linalg.norm(shooter - traj[contact, 0]) < 0.05  # shooter nearly stops


def test_no_tunnelling__fast_stone_hits_a_stone_in_its_path() -> None:
    for dx in (0.0, 0.2, -0.25):
        res = simulate(one_stone(2.3506 + dx, 6.0, 1), 0, (6.0, 0.0, 0.0), noise=False)
        assert not np.allclose(res.position[1], (2.3506 + dx, 6.0))  # moved or knocked out
    miss = simulate(one_stone(2.3506 + 0.3, 6.0, 1), 0, (6.0, 0.0, 0.0), noise=False)
    np.testing.assert_array_equal(miss.position[1], (2.6506, 6.0))


@st.composite
def layouts(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 8))
    pos = np.zeros((16, 2))
    placed: list[tuple[float, float]] = []
    for _ in range(n):
        x = draw(st.floats(1.0, 3.75))
        y = draw(st.floats(3.2, 9.5))
        if all(np.hypot(x - a, y - b) >= 2 * R + 1e-6 for a, b in placed):
            placed.append((x, y))
    pos[1 : 1 + len(placed)] = placed
    return pos


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pos=layouts(),
    v=st.floats(2.8, 6.0),
    h=st.floats(-0.8, 0.8),
    w=st.floats(-3.0, 3.0),
    seed=st.integers(0, 2**32),
)
def test_no_overlap_at_rest__and_nothing_left_outside_play(
    pos: np.ndarray, v: float, h: float, w: float, seed: int
) -> None:
    res = simulate(pos, 0, (v, h, w), seed=seed)
    live = res.position[np.any(res.position != 0.0, axis=1)]
    for a in range(len(live)):
        for b in range(a + 1, len(live)):
            assert np.linalg.norm(live[a] - live[b]) >= 2 * R - 1e-9
    assert np.all((live[:, 0] > sheet.PLAY_X_MIN) & (live[:, 0] < sheet.PLAY_X_MAX))
    assert np.all((live[:, 1] > sheet.PLAY_Y_MIN) & (live[:, 1] < sheet.PLAY_Y_MAX))


# --- out of play ------------------------------------------------------------------------------


def test_out_of_play__fast_stone_through_the_back_is_removed() -> None:
    res = simulate(EMPTY, 0, (4.5, 0.0, 0.0), noise=False)
    assert np.all(res.position[0] == 0.0)
    kept = simulate(EMPTY, 0, (4.5, 0.0, 0.0), noise=False, remove_out_of_play=False)
    assert kept.position[0, 1] < sheet.PLAY_Y_MIN


def test_out_of_play__stone_over_the_side_is_removed() -> None:
    res = simulate(EMPTY, 0, (3.0, 2.23, 3.0), noise=False)
    assert np.all(res.position[0] == 0.0)


def test_out_of_play__takeout_removes_the_target() -> None:
    res = simulate(one_stone(2.3506, 4.88, 1), 0, (6.0, 0.0, 0.0), noise=False)
    assert np.all(res.position[1] == 0.0)


# --- friction table and closed-form rigid motion ----------------------------------------------


def test_table__matches_the_reference_band_model() -> None:
    rng = np.random.default_rng(0)
    table = build_table(PLATFORM)
    last = table.shape[1] - 1
    for speed, spin in zip(
        rng.uniform(0.011, 6.0, 300), rng.uniform(-15.7, 15.7, 300), strict=True
    ):
        lat, dec, dom = band_forces(PLATFORM, speed, spin, PLATFORM.mu)
        wr = abs(spin) * PLATFORM.band_radius
        fi = wr / (speed + wr) * last
        k = min(int(fi), last - 1)
        reg = 2 if speed >= 1.5 else (1 if speed >= 1.0 else 0)
        row = table[reg, k] + (fi - k) * (table[reg, k + 1] - table[reg, k])
        q = speed**2 + wr**2
        approx = PLATFORM.mu * row[:3] + q * row[3:]
        scale = max(abs(dec), 1e-3)
        assert abs(approx[1] - dec) < 2e-3 * scale
        assert abs(approx[0] - lat) < 2e-3 * scale
        assert abs(approx[2] - dom) < 5e-3 * max(abs(dom), 1e-2)


def test_rigid_jump__equals_tick_by_tick_friction() -> None:
    from rllib_curling.physics.rigid import rigid_jump

    pos = np.zeros((16, 2))
    pos[0] = (2.0, 8.0)
    vel = np.zeros((16, 2))
    vel[0] = (0.6, -2.0)
    spin = np.zeros(16)
    spin[0] = 1.5
    mode = np.zeros(16, dtype=np.int8)
    mode[0] = 3
    n, _ = rigid_jump(pos, vel, spin, mode, np.zeros(16), PARAMS, 40, np.zeros((1, 16, 2)), 0, 0, 0)
    assert n == 40
    p, v, w = np.array([2.0, 8.0]), np.array([0.6, -2.0]), 1.5
    dv = PLATFORM.contact_mu * PLATFORM.contact_friction_anchors * PLATFORM.gravity * PLATFORM.dt
    for _ in range(40):
        s = np.linalg.norm(v)
        v = v * (1 - dv / s)
        w *= 1 - PLATFORM.angular_damping * PLATFORM.dt
        p = p + v * PLATFORM.dt
    np.testing.assert_allclose(pos[0], p, atol=1e-12)
    np.testing.assert_allclose(vel[0], v, atol=1e-12)
    assert spin[0] == pytest.approx(w, abs=1e-12)


# --- curling simulate -------------------------------------------------------------------------


def test_cli_simulate__json_draw_rests_near_the_tee(capsys: pytest.CaptureFixture[str]) -> None:
    from rllib_curling.cli.curling import main

    assert main(["simulate", "--v", "3", "--h", "0", "--w", "0", "--no-noise", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert abs(rec["x"] - 2.346) < 0.1 and abs(rec["y"] - 4.82) < 0.1
    assert len(rec["position"]) == 32 and rec["mid"]["vy"] < 0


def test_cli_simulate__throws_file_compares_with_its_rest_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli.curling import main

    csv_file = tmp_path / "t.csv"
    csv_file.write_text(
        "v,h,w,sweep,x,y,note\n3.0,0.0,0.0,0,2.346,4.82,a\n2.8,0.1,1.0,4,2.6,6.6,b\n"
    )
    pos = " ".join(["2.375", "4.88"] + ["0"] * 30)
    args = ["simulate", "--throws", str(csv_file), "--seed", "3", "--position", pos, "--json"]
    assert main(args) == 0
    recs = json.loads(capsys.readouterr().out)
    assert [r["throw"]["sweep"] for r in recs] == [0.0, 4.0]
    assert all(r["error"] is not None for r in recs)
    for rec in recs:  # the thrown stone is slot 1, the first empty one
        assert rec["x"] is None or rec["position"][2:4] == [rec["x"], rec["y"]]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--v", "nan"], "throw v=nan is not a finite number"),
        (["--v", "3", "--position", "1 2 3"], "--position needs 32 numbers"),
        (["--h", "0"], "give --v"),
        (["--throws", "/nonexistent/t.csv"], "No such file"),
    ],
)
def test_cli_simulate__bad_input_exits_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rllib_curling.cli.curling import main

    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
