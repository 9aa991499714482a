"""The DC env (``rllib_curling.dc_env``): Gymnasium's API, the spaces, the action mask, seeding,
rewards at a game's end, the mirror symmetry, the config's errors."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rllib_curling import dc_sheet
from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_env import DC_GYM_ID, DCCurlingEnv, DCEnvConfig
from rllib_curling.dc_env.spaces import (
    ACTION_MASK,
    OBS_SIZE,
    OBSERVATIONS,
    dc_layout,
    encode,
    mirror_observation,
)
from rllib_curling.dc_game import DCGame, DCGameConfig
from rllib_curling.errors import ConfigError, InvalidActionError

TY = dc_sheet.TEE_Y


def _random_game(env: DCCurlingEnv, seed: int) -> tuple[list[float], dict, list]:
    """Play one game with random legal actions; (rewards, last info, observations)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rewards, seen, done = [], [obs], False
    while not done:
        if env.config.action == "shots":
            action = int(rng.choice(np.flatnonzero(obs[ACTION_MASK])))
        else:
            action = env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        seen.append(obs)
        done = terminated or truncated
    return rewards, info, seen


@pytest.mark.parametrize("action", ["shots", "throw"])
def test_dc_env__passes_gymnasiums_env_checker(action: str) -> None:
    check_env(DCCurlingEnv(action=action, ends=1, opponent=2), skip_render_check=True)


def test_dc_env__gym_make_and_shapes() -> None:
    env = gym.make(f"rllib_curling:{DC_GYM_ID}", ends=1, opponent=0)
    obs, info = env.reset(seed=3)
    n = dc_layout().n
    assert env.action_space == gym.spaces.Discrete(n)
    assert obs[OBSERVATIONS].shape == (OBS_SIZE,) and obs[OBSERVATIONS].dtype == np.float32
    assert obs[ACTION_MASK].shape == (n,)
    assert info["opponent"] == 0 and info["team"] == 0 and info["shot"] == 0
    obs, reward, terminated, truncated, info = env.step(dc_layout().throw_away)
    assert env.observation_space.contains(obs) and isinstance(reward, float)
    assert not terminated and not truncated and info["shot"] == 2  # ours, then the bot's


def test_dc_env__layout_has_fine_draws_guards_hits_and_a_throw_away() -> None:
    layout = dc_layout()
    xs, ys = layout.draw_xy[:, 0], layout.draw_xy[:, 1]
    house = np.hypot(xs, ys - TY) < dc_sheet.HOUSE_SCORE_RADIUS
    assert np.min(np.diff(np.unique(np.round(xs[house], 6)))) < 0.3
    assert ((ys < TY - 2.0) & (ys > dc_sheet.HOG_Y)).sum() > 100  # the guard zone's grid
    assert set(layout.draws[:, 2]) == {1.0, -1.0}
    assert set(layout.hits[:, 3].astype(int)) == set(range(16))
    assert len(set(layout.hits[:, 1])) >= 3 and len(set(layout.hits[:, 0])) >= 3
    assert layout.describe(layout.throw_away) == "throw-away"


def test_dc_env__mask_allows_hits_only_on_stones_in_play() -> None:
    env = DCCurlingEnv(ends=1, opponent=2, seed=0)
    layout = dc_layout()
    obs, _ = env.reset(seed=0)
    hits = slice(layout.n_draws, layout.n_draws + layout.n_hits)
    assert obs[ACTION_MASK][: layout.n_draws].all() and obs[ACTION_MASK][-1] == 1
    assert not obs[ACTION_MASK][hits].any()  # an empty sheet: nothing to hit
    draw = int(np.flatnonzero(np.hypot(*(layout.draw_xy - (0.0, TY)).T) < 0.01)[0])
    obs, *_ = env.step(draw)  # our stone on the button, then level 2's draw to it
    on = np.flatnonzero(env.state.position.any(axis=1))
    assert len(on) >= 1
    rows = layout.hits[:, 3].astype(int)
    np.testing.assert_array_equal(obs[ACTION_MASK][hits], np.isin(rows, on).astype(np.float32))


def test_dc_env__a_masked_shot_is_the_throw_away_and_a_bad_action_is_refused() -> None:
    layout = dc_layout()
    played = []
    for action in (layout.n_draws + 5, layout.throw_away):  # row 5 is not in play yet
        env = DCCurlingEnv(ends=1, opponent=0)
        env.reset(seed=1)
        before = env.state
        if action != layout.throw_away:
            assert env.reset(seed=1)[0][ACTION_MASK][action] == 0
            with pytest.raises(InvalidActionError, match="does not fit the action space"):
                env.step(layout.n)
            assert env.state == before  # refused before anything was thrown
        env.step(action)
        played.append(env.state)
    assert played[0] == played[1]  # the same game: the masked shot was thrown away


@pytest.mark.parametrize("action", ["shots", "throw"])
def test_dc_env__same_seed_same_game(action: str) -> None:
    def play() -> tuple[list[float], list]:
        env = DCCurlingEnv(action=action, ends=1, opponent=[1, 3])
        env.action_space.seed(5)
        rewards, _, seen = _random_game(env, seed=11)
        return rewards, seen

    (r1, o1), (r2, o2) = play(), play()
    assert r1 == r2 and len(o1) == len(o2)
    for a, b in zip(o1, o2, strict=True):
        a, b = (a[OBSERVATIONS], b[OBSERVATIONS]) if action == "shots" else (a, b)
        np.testing.assert_array_equal(a, b)


def test_dc_env__a_whole_game_ends_with_the_result_and_the_ends_points() -> None:
    env = DCCurlingEnv(ends=2, opponent=3, reward="win_score", score_weight=0.1)
    for seed in (0, 1):
        rewards, info, _ = _random_game(env, seed)
        mine, theirs = info["score"]
        outcome = {"WIN": 1.0, "LOSE": -1.0, "DRAW": 0.0}[info["result"]]
        assert info["result"] == ("WIN" if mine > theirs else "LOSE")
        assert sum(rewards) == pytest.approx(outcome + 0.1 * (mine - theirs))
        last = env.state.end_scores[-1]
        last_points = last[info["team"]] - last[1 - info["team"]]
        assert rewards[-1] == pytest.approx(outcome + 0.1 * last_points)
        assert len(rewards) == 8 * len(env.state.end_scores)
    win = DCCurlingEnv(ends=1, opponent=0, reward="win")
    rewards, info, _ = _random_game(win, 2)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and abs(rewards[-1]) == 1.0


def test_dc_env__games_alternate_the_hammer_and_a_mixture_is_drawn_per_pair() -> None:
    env = DCCurlingEnv(ends=1, opponent={0: 1, 1: 1, 2: 1})
    seen = []
    env.reset(seed=4)
    for _ in range(8):
        seen.append((env._team, env.opponent))
        env.reset()
    assert [t for t, _ in seen] == [0, 1] * 4
    assert all(seen[k][1] == seen[k + 1][1] for k in range(0, 8, 2))
    assert len({level for _, level in seen}) > 1


def test_dc_env__left_right_mirror_negates_only_x_and_mirrors_the_shots() -> None:
    rng = np.random.default_rng(0)
    position = np.zeros((16, 2))
    position[:7] = np.c_[rng.uniform(-1.5, 1.5, 7), rng.uniform(33.0, 39.5, 7)]
    state = dataclasses.replace(DCGame.init(DCGameConfig(standard_end_count=2)),
                                position=position, shot=7)  # fmt: skip
    flipped = dataclasses.replace(state, position=position * (-1.0, 1.0))
    obs = encode(state, team=1)
    np.testing.assert_allclose(encode(flipped, team=1), mirror_observation(obs), atol=1e-6)
    assert not np.allclose(obs, mirror_observation(obs))
    layout, tables = dc_layout(), dc_shot_tables()
    for index in (0, 17, layout.n_draws - 1, layout.n_draws + 3):
        a = layout.throw(index, tables, position)
        b = layout.throw(int(layout.mirror[index]), tables, flipped.position)
        np.testing.assert_allclose(b, a * (-1.0, 1.0, -1.0), atol=2e-3)


def test_dc_env__truncates_a_game_still_tied_after_the_extra_ends() -> None:
    env = DCCurlingEnv(ends=1, opponent=0, max_extra_ends=1)
    env.reset(seed=0)
    done, steps = False, 0
    while not done:  # both throw everything away: blank ends, tied for ever
        _, reward, terminated, truncated, info = env.step(dc_layout().throw_away)
        done, steps = terminated or truncated, steps + 1
    assert truncated and not terminated and steps == 16 and reward == 0.0
    assert info["result"] is None and info["score"] == (0, 0)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"oponent": 3}, "unknown DC env_config key 'oponent' (did you mean 'opponent'?)"),
        ({"opponent": 9}, "opponent must be a built-in level [0, 1, 2, 3, 4, 5, 6, 7, 8]"),
        ({"opponent": "external"}, "opponent must be a built-in level"),
        ({"action": "discrete"}, "action must be one of ['shots', 'throw']"),
        ({"reward": "shaped"}, "reward must be one of"),
        ({"rule": "nope"}, "rule must be one of"),
        ({"ends": 0}, "standard_end_count must be a positive int"),
        ({"max_extra_ends": -1}, "max_extra_ends must be an int >= 0"),
        ({"score_weight": float("nan")}, "score_weight must be a number >= 0"),
    ],
)
def test_dc_env_config__refuses_bad_values_in_one_line(values: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        DCEnvConfig.from_dict(values)
    assert message in str(caught.value) and "\n" not in str(caught.value)
