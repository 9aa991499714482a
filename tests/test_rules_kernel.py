"""The compiled rules (rllib_curling.rules_kernel) against the numpy definitions in ``rules``."""

from __future__ import annotations

import numpy as np
import pytest
from positions import CENTRE_GUARD, random_layouts

from rllib_curling import rules, rules_kernel, sheet
from rllib_curling.errors import InvalidThrowError


def _outcomes(rng: np.random.Generator, before: np.ndarray, n: int) -> np.ndarray:
    """``n`` positions after a throw from ``before``: random layouts, and stones of ``before``
    that stayed, barely moved (within ``MOVE_TOLERANCE``) or slid sideways (the centre line)."""
    afters = random_layouts(rng, n)
    nudge = rng.choice([0.0, 5e-4, 0.05, 0.3], size=(n, 16, 1)) * np.array([1.0, 0.0])
    stay = rng.random((n, 16, 1)) < 0.6
    return np.where(stay, before + nudge, afters)


def _assert_same(got: tuple, want: tuple) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_resolve_batch__equals_the_numpy_rules_for_every_shot() -> None:
    rng = np.random.default_rng(21)
    seen = {"fgz": 0, "centre": 0}
    for before in random_layouts(rng, 40):
        before[4] = CENTRE_GUARD  # a guard on the centre line for both parities of shot
        before[5] = (sheet.CENTRE_X + 0.3, 8.0)
        afters = _outcomes(rng, before, 60)
        for shot in range(16):
            b = before.copy()
            b[shot:] = 0.0
            want = rules.resolve_shot_batch_numpy(b, afters, shot)
            got = rules.resolve_shot_batch(b, afters, shot)
            _assert_same(got, want)
            seen["fgz"] += int(want[1].sum())
            seen["centre"] += int(want[2].sum())
    assert seen["fgz"] > 100 and seen["centre"] > 100  # both rules were exercised


def test_resolve_batch__a_before_per_outcome_and_any_batch_shape() -> None:
    rng = np.random.default_rng(22)
    befores = random_layouts(rng, 240)
    befores[::3, 0] = CENTRE_GUARD
    afters = np.stack([_outcomes(rng, b, 1)[0] for b in befores])
    for shot in (0, 1, 3, 4, 5, 15):
        b = befores.copy()
        b[:, shot:] = 0.0
        _assert_same(
            rules.resolve_shot_batch(b, afters, shot),
            rules.resolve_shot_batch_numpy(b, afters, shot),
        )
        shaped = (b.reshape(4, 60, 16, 2), afters.reshape(4, 60, 16, 2))
        _assert_same(
            rules.resolve_shot_batch(*shaped, shot), rules.resolve_shot_batch_numpy(*shaped, shot)
        )
        one = (b[7], afters[7])  # one position: 0-d flags
        _assert_same(
            rules.resolve_shot_batch(*one, shot), rules.resolve_shot_batch_numpy(*one, shot)
        )


def test_resolve_batch__empty_batch_and_empty_positions() -> None:
    empty = np.zeros((16, 2))
    got = rules.resolve_shot_batch(empty, np.zeros((0, 16, 2)), 0)
    assert got[0].shape == (0, 16, 2) and got[1].shape == (0,)
    _assert_same(
        rules.resolve_shot_batch(empty, np.zeros((3, 16, 2)), 2),
        rules.resolve_shot_batch_numpy(empty, np.zeros((3, 16, 2)), 2),
    )


def test_resolve_batch__rejects_a_wrong_shape() -> None:
    with pytest.raises(InvalidThrowError, match="shape"):
        rules.resolve_shot_batch(np.zeros((16, 2)), np.zeros((5, 15, 2)), 0)


def test_points__equal_the_numpy_scoring() -> None:
    layouts = random_layouts(np.random.default_rng(23), 3000)
    layouts[0] = 0.0
    dist = rules.house_distances(layouts)
    for parity in (0, 1):
        want = rules.points_from_distances(dist, np.arange(16) % 2 == parity)
        got = np.array([rules_kernel.points(d, parity) for d in dist])
        np.testing.assert_array_equal(got, want)
    assert len(set(want.tolist())) > 5


def test_house_distance__equals_the_numpy_predicates_to_the_last_bit() -> None:
    layouts = random_layouts(np.random.default_rng(24), 200).reshape(-1, 2)
    edge = sheet.HOUSE_SCORE_RADIUS - sheet.BOUNDARY_EPS  # the house edge with its slack
    a = np.linspace(-1.5, 1.5, 200)
    ring = np.stack([sheet.TEE_X + edge * np.sin(a), sheet.TEE_Y + edge * np.cos(a)], 1)
    d = rules.distance_to_tee(ring)
    assert (d == edge).any() and (d < edge).any() and (d > edge).any()  # on, in, out
    layouts = np.concatenate([layouts, ring])
    got = np.array([rules_kernel.house_distance(x, y) for x, y in layouts])
    np.testing.assert_array_equal(got, rules.house_distances(layouts[None])[0])
    fgz = [rules_kernel.in_fgz(x, y) for x, y in layouts]
    np.testing.assert_array_equal(fgz, rules.in_free_guard_zone(layouts))
    line = [rules_kernel.on_centre_line(x, y) for x, y in layouts]
    np.testing.assert_array_equal(line, rules.touches_centre_line(layouts))
