"""The guided search (``agent.guided``): candidates from the network's prior, noise drawn on
every visit, halving to the best mean, exact values where the end is over. The network is
injected (a ``Judge``): here small functions of the positions whose right answer is known."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rllib_curling import rules, sheet
from rllib_curling.agent.guided import GuidedSearch, GuidedSpec, View
from rllib_curling.aiming import shots
from rllib_curling.game import Game, GameConfig, GameState
from rllib_curling.win_table import load as load_win_table

TABLE = load_win_table()
TX, TY = sheet.TEE


def _draw(x: float, y: float, spin: float = shots.SPIN) -> int:
    """The shot index of the draw to (x, y) with ``spin``."""
    (i,) = np.flatnonzero(np.all(np.isclose(shots.DRAW_POINTS, (x, y)), axis=1))
    return int(i) + (0 if spin > 0 else len(shots.DRAW_POINTS))


class Judge:
    """A network whose prior prefers ``favourite`` shots (in that order) and whose chance to
    win for the player to throw is ``win(positions, view)``; it records what it was asked."""

    def __init__(self, favourite: list[int], win: object) -> None:
        self.logits = np.zeros(shots.N_SHOTS)
        self.logits[favourite] = np.arange(len(favourite), 0, -1) + 10.0
        self.win = win
        self.asked: list[tuple[np.ndarray, View]] = []

    def __call__(self, positions: np.ndarray, view: View) -> tuple[np.ndarray, np.ndarray]:
        self.asked.append((positions.copy(), view))
        logits = np.broadcast_to(self.logits, (len(positions), shots.N_SHOTS))
        return logits, self.win(positions, view)  # type: ignore[operator]


def _their_stone_far_from_tee(positions: np.ndarray, view: View) -> np.ndarray:
    """The opponent's chance to win (they throw next) grows as our last stone is farther from
    the tee: whoever is searched should draw to the button."""
    ours = positions[:, view.shot - 1]
    distance = np.hypot(ours[:, 0] - TX, ours[:, 1] - TY)
    out = np.where(rules.in_play(positions)[:, view.shot - 1], distance, 5.0)
    return np.asarray(1.0 - np.exp(-out))


def _state_at(shot: int, first_seat: int = 0) -> GameState:
    state = Game.init(GameConfig(ends=4))
    return GameState(
        position=state.position, shot=shot, end=1, first_seat=first_seat,
        end_scores=((0, 0),), config=state.config,
    )  # fmt: skip


def test_guided_search__halving_keeps_the_best_mean_and_plays_it() -> None:
    button, near, far = _draw(TX, TY), _draw(TX + 0.5, TY), _draw(TX, TY + 1.5)
    judge = Judge([far, near, button], _their_stone_far_from_tee)
    spec = GuidedSpec(candidates=3, samples=4, replies=0)
    found = GuidedSearch(judge, TABLE, spec).judge(_state_at(0), np.random.default_rng(1))
    assert list(found.shots) == [far, near, button]  # the prior's order
    assert found.shots[found.best] == button
    assert found.mean[2] > found.mean[1] > found.mean[0]
    # 3 candidates x 4 visits, then the better 2 x 8 more: the worst is dropped after round 1
    assert list(found.visits) == [4, 12, 12] and found.rounds == 2


def test_guided_search__noise_is_drawn_afresh_on_every_visit() -> None:
    judge = Judge([_draw(TX, TY)], _their_stone_far_from_tee)
    bot = GuidedSearch(judge, TABLE, GuidedSpec(candidates=2, samples=6, replies=0))
    bot.judge(_state_at(2), np.random.default_rng(3))
    positions, view = judge.asked[1]  # the first round's outcomes (0: the root's prior)
    assert view.shot == 3  # the opponent to throw next
    rests = {tuple(np.round(p[2], 6)) for p in positions[:6]}  # one candidate's 6 visits
    assert len(rests) == 6


def test_guided_search__the_end_is_exact_after_its_last_stone() -> None:
    # Stone 15 (the hammer's): nothing is asked of the network after the prior, and every
    # value is the win table's for the end's exact score.
    judge = Judge([_draw(TX, TY), _draw(TX, TY + 1.0)], lambda p, v: np.full(len(p), 0.123))
    state = _state_at(15)
    found = GuidedSearch(judge, TABLE, GuidedSpec(candidates=2, samples=3, replies=2)).judge(
        state, np.random.default_rng(0)
    )
    assert len(judge.asked) == 1
    view = View.of(state, state.next_seat, 15)
    exact = {float(TABLE.after_end(view.diff, s, view.ends_after, view.hammer)) for s in (0, 1)}
    assert all(any(np.isclose(m, e) for e in exact) for m in found.mean)


def test_guided_search__the_answer_to_the_last_stone_is_exact_for_us() -> None:
    # Stone 14: the opponent's answers are the end's last stone; our value after each is
    # exact, and the opponent keeps the answer worst for us.
    calls = []

    def never_after_the_end(positions: np.ndarray, view: View) -> np.ndarray:
        calls.append(view.shot)
        return np.full(len(positions), 0.5)

    judge = Judge([_draw(TX, TY)], never_after_the_end)
    state = _state_at(14)
    bot = GuidedSearch(judge, TABLE, GuidedSpec(candidates=2, samples=2, replies=3))
    found = bot.judge(state, np.random.default_rng(0))
    assert calls == [14, 15]  # the root, then the opponent's prior in the one round: no leaf
    view = View.of(state, state.next_seat, 14)
    exact = [float(TABLE.after_end(view.diff, s, view.ends_after, view.hammer)) for s in (-1, 0, 1)]
    assert all(any(np.isclose(m, e) for e in exact) for m in found.mean)


def test_guided_search__a_time_limit_stops_after_the_round_that_spends_it() -> None:
    ticks = itertools.count()
    judge = Judge([_draw(TX, TY + 1.5), _draw(TX, TY)], _their_stone_far_from_tee)
    spec = GuidedSpec(candidates=4, samples=2, replies=0, time_limit=0.5)
    bot = GuidedSearch(judge, TABLE, spec, clock=lambda: float(next(ticks)))
    found = bot.judge(_state_at(0), np.random.default_rng(0))
    assert found.rounds == 1 and list(found.visits) == [2, 2, 2, 2]
    assert found.shots[found.best] == _draw(TX, TY)


def test_guided_search__a_centre_line_foul_counts_as_the_worse_choice_for_us(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every throw is called a foul here; the opponent then chooses between our stone kept
    # (their chance 0.3) and the position restored (no stone: 0.8), so our value is 0.2.
    real = rules.resolve_shot_batch

    def every_throw_a_foul(before: np.ndarray, after: np.ndarray, shot: int) -> tuple:
        positions, fgz, centre = real(before, after, shot)
        return positions, fgz, np.ones_like(centre)

    monkeypatch.setattr(rules, "resolve_shot_batch", every_throw_a_foul)

    def restored_suits_them(positions: np.ndarray, view: View) -> np.ndarray:
        return np.where(rules.in_play(positions).any(axis=1), 0.3, 0.8)

    judge = Judge([_draw(TX, TY)], restored_suits_them)
    bot = GuidedSearch(judge, TABLE, GuidedSpec(candidates=2, samples=2, replies=0))
    found = bot.judge(_state_at(0), np.random.default_rng(0))
    assert np.allclose(found.mean, 0.2)


def test_guided_spec__bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="candidates and samples must be at least 1"):
        GuidedSpec(candidates=0)
    with pytest.raises(ValueError, match="time_limit must be positive"):
        GuidedSpec(time_limit=0)
