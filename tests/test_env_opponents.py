"""``env.opponents.OpponentMixture``: the single-agent env's opponents drawn per pair of games,
as the env asks for them (``CurlingEnv._next_opponent``)."""

from __future__ import annotations

from collections import Counter

import pytest

from rllib_curling.env.opponents import OpponentMixture
from rllib_curling.errors import ConfigError


def play_pairs(mixture: OpponentMixture, pairs: int) -> list[int | str]:
    """Two games per draw, as the env plays them on one connection."""
    seen = []
    for _ in range(pairs):
        assert not mixture.in_pair()
        opponent = mixture.draw()
        if opponent != mixture.current:
            mixture.sit(opponent)
        for _game in range(2):
            seen.append(mixture.current)
            mixture.game_started()
    return seen


def test_draw__one_opponent_is_drawn_without_the_rng() -> None:
    mixture = OpponentMixture({4: 1.0}, seed=0)
    state = mixture.rng.bit_generator.state
    assert [mixture.draw() for _ in range(5)] == [4] * 5
    assert mixture.rng.bit_generator.state == state


def test_draw__a_mixture_keeps_each_opponent_for_a_pair_and_follows_the_weights() -> None:
    mixture = OpponentMixture({2: 0.25, 6: 0.75}, seed=3)
    seen = play_pairs(mixture, 400)
    assert all(seen[i] == seen[i + 1] for i in range(0, len(seen), 2))  # pairs
    counts = Counter(seen)
    assert set(counts) == {2, 6}
    assert 0.18 < counts[2] / len(seen) < 0.32


def test_draw__same_seed_same_opponents() -> None:
    a, b = OpponentMixture({2: 1, 4: 1, 6: 1}, seed=7), OpponentMixture({2: 1, 4: 1, 6: 1}, 7)
    assert play_pairs(a, 30) == play_pairs(b, 30)
    a.seed(1)
    b.seed(1)
    assert [a.draw() for _ in range(20)] == [b.draw() for _ in range(20)]


def test_in_pair__a_closed_connection_starts_a_new_pair() -> None:
    mixture = OpponentMixture({5: 1.0}, seed=0)
    mixture.game_started()
    assert mixture.in_pair()
    mixture.connection_closed()
    assert not mixture.in_pair()


def test_set_weights__parses_the_opponent_key_and_refuses_a_switch_to_external() -> None:
    mixture = OpponentMixture({2: 1.0}, seed=0)
    mixture.set_weights([3, 3, 7])
    assert mixture.weights == pytest.approx({3: 2 / 3, 7: 1 / 3})
    with pytest.raises(ConfigError, match="between built-in and external"):
        mixture.set_weights("external")
    with pytest.raises(ConfigError):
        mixture.set_weights({"x": 1})
