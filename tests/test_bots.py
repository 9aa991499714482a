"""Tests of the built-in bots (rllib_curling.bots: levels, simple, scripted, search, evaluation)."""

from __future__ import annotations

import numpy as np
import pytest
from positions import random_layouts

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import aim_h, draw_speeds, path_x, shot_tables
from rllib_curling.aiming.templates import TAP_DEPTH
from rllib_curling.bots import LEVELS, Bot, make_bot
from rllib_curling.bots import evaluation as bots_eval
from rllib_curling.bots.candidates import SearchSpec, hit_candidates, hit_candidates_batch
from rllib_curling.bots.search import SPECS as SEARCH_SPECS
from rllib_curling.bots.simple import RANDOM_V
from rllib_curling.game import Game, GameConfig, GameState

TX, TY = sheet.TEE


def position(**stones: tuple[float, float]) -> np.ndarray:
    out = np.zeros((16, 2))
    for name, xy in stones.items():
        out[int(name[1:])] = xy
    return out


def crowded(shot: int, seed: int = 0) -> np.ndarray:
    """Stones 0..shot-1 scattered over the house and the guard zone."""
    rng = np.random.default_rng(seed)
    out = np.zeros((16, 2))
    for k in range(shot):
        out[k] = (TX + rng.uniform(-1.5, 1.5), TY + rng.uniform(-1.2, 4.0))
    return out


STATES = {
    "empty house": GameState(),
    "guard phase": GameState(position=position(s0=(TX, 7.6), s1=(TX + 0.8, TY)), shot=2),
    "crowded house": GameState(position=crowded(12), shot=12, end=1, end_scores=((1, 0),)),
    "last stone": GameState(
        position=crowded(15, seed=1), shot=15, end=3, first_seat=1, end_scores=((0, 1),) * 3
    ),
    "unlimited": GameState(
        position=crowded(7, seed=2),
        shot=7,
        end=5,
        end_scores=((1, 0),) * 5,
        config=GameConfig(ends=-1),
    ),
}


@pytest.fixture(scope="module")
def all_bots() -> dict[int, Bot]:
    return {level: make_bot(level) for level in LEVELS}


@pytest.mark.parametrize("name", sorted(STATES))
def test_choose__every_level_throws_within_the_platform_ranges(
    all_bots: dict[int, Bot], name: str
) -> None:
    state = STATES[name]
    for level, bot in all_bots.items():
        throw = bot.choose(state, np.random.default_rng(level))
        assert len(throw) == 4, (level, throw)
        v, h, w, sweep = throw
        assert np.all(np.isfinite(throw)), (level, throw)
        assert 0.0 <= v <= sheet.V_MAX and abs(h) <= sheet.H_MAX and abs(w) <= sheet.W_MAX
        assert 0.0 <= sweep <= 12.0
        assert all(type(x) is float for x in throw), (level, throw)


@pytest.mark.parametrize("level", LEVELS)
def test_choose__same_rng_same_throw(all_bots: dict[int, Bot], level: int) -> None:
    state = STATES["crowded house"]
    first = all_bots[level].choose(state, np.random.default_rng(7))
    again = make_bot(level).choose(state, np.random.default_rng(7))
    assert first == again


def test_make_bot__levels_and_names() -> None:
    for level in LEVELS:
        bot = make_bot(level)
        assert bot.level == level and bot.name
    assert make_bot(np.int64(3)).level == 3


@pytest.mark.parametrize("bad", [-1, 9, 2.0, "3", True, None])
def test_make_bot__invalid_level_lists_the_valid_ones(bad: object) -> None:
    with pytest.raises(ValueError, match=r"\[0, 1, 2, 3, 4, 5, 6, 7, 8\]"):
        make_bot(bad)


def test_level0__every_stone_ends_out_of_play() -> None:
    bot = make_bot(0)
    rng = np.random.default_rng(0)
    for state in (STATES["empty house"], STATES["crowded house"]):
        t = Game.step(state, bot.choose(state, rng), rng)
        assert t.thrown_rest is None
        np.testing.assert_array_equal(t.state.position[: state.shot], state.position[: state.shot])


def test_level1__throws_vary_over_the_ranges() -> None:
    bot, rng = make_bot(1), np.random.default_rng(0)
    throws = np.array([bot.choose(GameState(), rng) for _ in range(200)])
    assert throws[:, 0].min() >= RANDOM_V[0] and throws[:, 0].max() <= RANDOM_V[1]
    assert throws[:, 0].std() > 0.5 and throws[:, 1].std() > 0.4
    assert (throws[:, 2] > 0).any() and (throws[:, 2] < 0).any()


def test_level2__draws_end_in_the_house_noise_off() -> None:
    bot = make_bot(2)
    rng = np.random.default_rng(0)
    spins = set()
    for _ in range(6):
        throw = bot.choose(GameState(), rng)
        spins.add(np.sign(throw[2]))
        t = Game.step(GameState(), throw, noise=False)
        assert t.thrown_rest is not None
        assert rules.distance_to_tee(np.array(t.thrown_rest)) < 0.3
    assert spins == {1.0, -1.0}


@pytest.mark.parametrize("level", [3, 4, 6, 8])
def test_takeout__removes_the_opponent_shot_stone(level: int) -> None:
    # the opponent (even rows, no hammer) lies on the button; we throw stone 1
    state = GameState(position=position(s0=(TX + 0.1, TY + 0.2)), shot=1)
    throw = make_bot(level).choose(state, np.random.default_rng(0))
    t = Game.step(state, throw, noise=False)
    after = t.state.position
    assert not rules.in_play(after[0]) or rules.score_end(after)[1] > 0


def test_search__uses_the_last_stone_to_score() -> None:
    # hammer's last stone, opponent shot stone open on the button; expect to score at least 1
    state = GameState(position=position(s0=(TX, TY + 0.3), s2=(TX - 1.5, TY + 3.0)), shot=15, end=0)
    for level in (6, 7, 8):
        throw = make_bot(level).choose(state, np.random.default_rng(1))
        t = Game.step(state, throw, noise=False)
        assert t.end_score == (0, 1) or t.end_score[1] >= 1, level


def test_centerline_choice__is_reset_or_keep() -> None:
    guard = (TX, 7.5)
    state = GameState(position=position(s0=guard), shot=1)
    after = position(s0=(TX + 0.8, 7.0), s1=(TX, 7.6))
    t = Game.settle(state, after)
    assert t.centre_line_violation
    for level in LEVELS:
        assert make_bot(level).centerline_choice(t) in ("RESET", "KEEP")


def test_path_x__matches_the_scalar_tables() -> None:
    tables = shot_tables()
    for v, w, y in [(3.0, 1.57, 4.88), (4.5, -1.57, 7.0), (2.6, 3.0, 9.0), (5.9, 0.5, 3.0)]:
        want = sheet.RELEASE_X + 0.2 + tables.lateral(v, w, y)
        assert path_x(tables, v, 0.2, w, y) == pytest.approx(want, abs=1e-9)


def test_evaluate__prefers_our_stone_on_the_button() -> None:
    state = GameState(position=position(s0=(TX + 0.5, TY)), shot=1)  # we are odd rows
    ctx = bots_eval.EvalContext.of(state)
    ours = position(s0=(TX + 0.5, TY), s1=(TX, TY))
    theirs_only = position(s0=(TX + 0.5, TY))
    values = bots_eval.evaluate(np.stack([ours, theirs_only]), ctx, win_prob=True)
    assert values[0] > values[1]
    assert ctx.parity == 1 and ctx.hammer and ctx.n_left == 14


def _hits_one_by_one(tables: object, position: np.ndarray, spec: SearchSpec) -> np.ndarray:
    """The hit candidates as the search built them before the batch (a loop per spin, speed and
    offset): the reference the vectorised ``hit_candidates_batch`` must equal to the last bit."""
    stones = position[rules.in_play(position)]
    if len(stones) == 0:
        return np.zeros((0, 4))
    out = []
    for w in spec.spins:
        for speed in spec.hit_speeds:
            v = draw_speeds(tables, stones[:, 1] - TAP_DEPTH, w) if speed == 0.0 else None
            v = np.full(len(stones), speed) if v is None else v
            for dx in spec.hit_offsets:
                h = aim_h(tables, stones[:, 0] + dx, stones[:, 1], v, w)
                out.append(np.stack([v, h, np.full_like(v, w), 0 * v], axis=1))
    return np.concatenate(out)


@pytest.mark.parametrize("level", [6, 8])
def test_hit_candidates__batch_equals_the_loop_per_position(level: int) -> None:
    tables = shot_tables()
    layouts = random_layouts(np.random.default_rng(level), 60)
    layouts[0] = 0.0  # an empty position among them
    spec = SEARCH_SPECS[level]
    batch = hit_candidates_batch(tables, layouts, spec)
    assert len(batch) == len(layouts)
    for layout, got in zip(layouts, batch, strict=True):
        want = _hits_one_by_one(tables, layout, spec)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(hit_candidates(tables, layout, spec), want)


def test_search__noisy_replies_judge_the_opponents_best_answers_under_noise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dataclasses

    from rllib_curling.bots import search

    spec = dataclasses.replace(SEARCH_SPECS[8], reply=3, reply_top=2, reply_samples=5)
    bot = search.SearchBot(8, spec)
    noisy_batches: list[int] = []
    from rllib_curling import physics  # the search imports it when it runs: patch it there

    original = physics.simulate_batch

    def counting(positions, slots, throws, rng=None, *, noise=True, **kw):  # type: ignore[no-untyped-def]
        if noise and np.ndim(positions) == 3 and slots == STATES["guard phase"].shot + 1:
            noisy_batches.append(len(throws))
        return original(positions, slots, throws, rng, noise=noise, **kw)

    monkeypatch.setattr(physics, "simulate_batch", counting)
    state = STATES["guard phase"]
    first = bot.choose(state, np.random.default_rng(4))
    assert noisy_batches == [3 * 2 * 5]  # 3 candidates x their 2 best answers x 5 throws
    assert bot.choose(state, np.random.default_rng(4)) == first  # same rng, same throw


def test_search__a_value_weight_needs_a_learned_value() -> None:
    from rllib_curling.bots.search import SearchBot

    with pytest.raises(ValueError, match="leaf_value"):
        SearchBot(8, value_weight=0.5)
    with pytest.raises(ValueError, match="value_weight"):
        SearchBot(8, leaf_value=lambda s, p, k: np.zeros(len(p)), value_weight=1.5)
