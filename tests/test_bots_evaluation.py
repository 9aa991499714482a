"""The compiled judgement of the search bots (bots.evaluation_kernel) against the numpy
definition in ``bots.evaluation``: the same values to the last bit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from positions import CENTRE_GUARD, GUARD, TX, TY, random_layouts

from rllib_curling.bots import evaluation as ev


def _positions(seed: int, n: int) -> np.ndarray:
    """Random layouts, plus positions built to reach every branch: guarded shot stones, centre
    guards of both parities, empty positions, a single stone on the button."""
    rng = np.random.default_rng(seed)
    out = random_layouts(rng, n)
    out[0] = 0.0
    out[1] = 0.0
    out[1, 3] = (TX, TY)
    for p in out[2::5]:  # a guard just in front of a house stone
        k = rng.integers(16)
        p[k] = (TX + rng.uniform(-0.5, 0.5), TY + rng.uniform(-0.8, 0.8))
        p[(k + rng.integers(1, 16)) % 16] = p[k] + (rng.uniform(-0.3, 0.3), rng.uniform(0.2, 3.0))
    out[3::7, rng.integers(16)] = CENTRE_GUARD
    out[4::7, rng.integers(16)] = GUARD
    return out


CONTEXTS = [
    ev.EvalContext(parity=parity, n_left=n_left, hammer=hammer, diff=diff, ends_after=ends_after)
    for parity, n_left, hammer, (diff, ends_after) in itertools.product(
        (0, 1), (0, 1, 2, 7, 15), (False, True), ((0, 3), (-2, 0), (1, -1))
    )
]


@pytest.mark.parametrize("simple", [False, True])
def test_end_branches__compiled_equals_the_numpy_definition(simple: bool) -> None:
    positions = _positions(31, 800)
    kinds = set()
    for ctx in CONTEXTS:
        want = ev.end_branches_numpy(positions, ctx, simple=simple)
        got = ev.end_branches(positions, ctx, simple=simple)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape == (len(positions), 2)
            np.testing.assert_array_equal(g, w)
        kinds.update(np.unique(want[1][:, 1]).round(6).tolist())
    if not simple:
        assert len(kinds) > 10  # many different threats: the branches were exercised


def test_evaluate__compiled_values_equal_the_numpy_definition() -> None:
    positions = _positions(32, 300)
    for ctx in CONTEXTS[::3]:
        values, probs = ev.end_branches_numpy(positions, ctx)
        for win_prob in (False, True):
            want = ev.win_value(values, probs, ctx) if win_prob else (values * probs).sum(-1)
            np.testing.assert_array_equal(ev.evaluate(positions, ctx, win_prob=win_prob), want)


def test_end_branches__an_empty_batch() -> None:
    values, probs = ev.end_branches(np.zeros((0, 16, 2)), CONTEXTS[5])
    assert values.shape == probs.shape == (0, 2)
