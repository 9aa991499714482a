"""bots.rating: Bradley-Terry ratings on the Elo scale, with 95 % intervals, from game results."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling.bots.rating import ELO_PER_NAT, GameScore, fit_ratings, tally

TRUE_ELO = {"a": 0.0, "b": 150.0, "c": -100.0, "d": 300.0}


def _games(elo: dict[str, float], per_pair: int, seed: int, draw: float = 0.1) -> list[GameScore]:
    """Synthetic round robin: a draw with chance ``draw``, else a win with the model's chance
    chosen so that the expected score is the Bradley-Terry one."""
    rng = np.random.default_rng(seed)
    names = list(elo)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            expected = 1.0 / (1.0 + 10.0 ** ((elo[b] - elo[a]) / 400.0))
            win = (expected - draw / 2) / (1 - draw)
            for _ in range(per_pair):
                u = rng.random()
                s = 0.5 if u < draw else 1.0 if rng.random() < win else 0.0
                out.append((a, b, s))
    return out


def test_fit__recovers_known_strengths_within_its_intervals() -> None:
    fit = fit_ratings(list(TRUE_ELO), _games(TRUE_ELO, 300, seed=1))
    for k, name in enumerate(fit.players):
        assert fit.low[k] <= TRUE_ELO[name] <= fit.high[k], (name, fit.rating[k], fit.stderr[k])
    assert fit.order() == [3, 1, 0, 2]  # d, b, a, c


def test_fit__the_anchor_is_zero_with_no_width() -> None:
    games = _games(TRUE_ELO, 50, seed=2)
    for anchor in TRUE_ELO:
        fit = fit_ratings(list(TRUE_ELO), games, anchor=anchor)
        k = fit.players.index(anchor)
        assert fit.rating[k] == 0.0 and fit.stderr[k] == 0.0
    default = fit_ratings(list(TRUE_ELO), games)
    assert default.anchor == "a" and default.rating[0] == 0.0


def test_fit__moving_the_anchor_shifts_every_rating_alike() -> None:
    games = _games(TRUE_ELO, 50, seed=3)
    by_a = fit_ratings(list(TRUE_ELO), games, anchor="a")
    by_d = fit_ratings(list(TRUE_ELO), games, anchor="d")
    np.testing.assert_allclose(by_a.rating - by_a.rating[3], by_d.rating, atol=1e-6)


def test_fit__symmetric_in_the_order_of_players_and_of_seats() -> None:
    games = _games(TRUE_ELO, 40, seed=4)
    fit = fit_ratings(list(TRUE_ELO), games)
    flipped = fit_ratings(list(TRUE_ELO), [(b, a, 1.0 - s) for a, b, s in games])
    np.testing.assert_allclose(fit.rating, flipped.rating, atol=1e-8)
    np.testing.assert_allclose(fit.stderr, flipped.stderr, atol=1e-8)
    names = ["d", "c", "b", "a"]
    reordered = fit_ratings(names, games, anchor="a")
    for k, name in enumerate(names):
        assert reordered.rating[k] == pytest.approx(fit.rating[fit.players.index(name)], abs=1e-6)


def test_fit__two_players_with_mirrored_records() -> None:
    games = [("x", "y", 1.0)] * 7 + [("x", "y", 0.0)] * 3
    x = fit_ratings(["x", "y"], games, anchor="y")
    y = fit_ratings(["x", "y"], games, anchor="x")
    assert x.rating[0] == pytest.approx(-y.rating[1])
    assert x.rating[0] > 0 and x.stderr[0] == pytest.approx(y.stderr[1])
    assert x.expected("x", "y") == pytest.approx(1 - x.expected("y", "x"))


def test_fit__perfect_records_give_finite_ratings() -> None:
    games = [("top", "mid", 1.0)] * 10 + [("mid", "low", 1.0)] * 10 + [("top", "low", 1.0)] * 10
    fit = fit_ratings(["low", "mid", "top"], games)
    assert np.all(np.isfinite(fit.rating)) and np.all(np.isfinite(fit.stderr))
    assert fit.rating[0] == 0.0 < fit.rating[1] < fit.rating[2]
    assert fit.rating[2] < 3000


def test_fit__a_player_without_games_stays_near_the_mean() -> None:
    fit = fit_ratings(["a", "b", "idle"], [("a", "b", 0.5)] * 20)
    assert np.all(np.isfinite(fit.rating)) and abs(fit.rating[2]) < 1.0
    assert fit.stderr[2] > 5 * fit.stderr[1]
    assert np.isnan(fit.score_share[2]) and fit.as_dict()["ratings"][2]["score"] is None


def test_fit__intervals_shrink_with_more_games() -> None:
    few = fit_ratings(list(TRUE_ELO), _games(TRUE_ELO, 30, seed=5))
    many = fit_ratings(list(TRUE_ELO), _games(TRUE_ELO, 300, seed=5))
    assert np.all(many.stderr[1:] < few.stderr[1:] / 2.5)


def test_fit__stderr_matches_the_two_player_binomial() -> None:
    # two players, no prior to speak of: se of the log-odds is 1 / sqrt(n p (1 - p))
    games = [("x", "y", 1.0)] * 600 + [("x", "y", 0.0)] * 400
    fit = fit_ratings(["x", "y"], games, anchor="y")
    assert fit.rating[0] == pytest.approx(ELO_PER_NAT * np.log(1.5), rel=0.01)
    assert fit.stderr[0] == pytest.approx(ELO_PER_NAT / np.sqrt(1000 * 0.24), rel=0.01)


def test_tally__scores_and_games_matrices() -> None:
    score, games = tally(["a", "b"], [("a", "b", 1.0), ("b", "a", 0.5), ("a", "b", 0.0)])
    np.testing.assert_array_equal(score, [[0, 1.5], [1.5, 0]])
    np.testing.assert_array_equal(games, [[0, 3], [3, 0]])


@pytest.mark.parametrize(
    ("players", "games", "anchor", "message"),
    [
        (["a"], [], None, "at least 2 players, got 1"),
        (["a", "a"], [], None, "more than once"),
        (["a", "b"], [], "z", "the anchor 'z'"),
        (["a", "b"], [("a", "c", 1.0)], None, "game between 'a' and 'c'"),
        (["a", "b"], [("a", "b", 0.7)], None, "score is one of"),
        (["a", "b"], [("a", "a", 1.0)], None, "against itself"),
    ],
)
def test_fit__bad_input_is_one_line(
    players: list[str], games: list[GameScore], anchor: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message) as info:
        fit_ratings(players, games, anchor=anchor)
    assert "\n" not in str(info.value)
