"""CurlingVectorEnv: N games on one private server (a room each), stepped together; the same
games as N single envs, Gymnasium's next-step autoreset, checked actions, a hung server."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import psutil
import pytest

from rllib_curling import observation
from rllib_curling.env import CurlingEnv
from rllib_curling.env.vector import CurlingVectorEnv
from rllib_curling.errors import ConfigError, ConnectionLostError, InvalidActionError

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("no_leftover_servers")]

CONFIG = {"opponent": 2, "ends": 1, "action": "discrete"}


def _play(env: gym.Env | gym.vector.VectorEnv, actions: np.ndarray) -> list[tuple]:
    return [tuple(np.copy(x) for x in env.step(a)[:4]) for a in actions]


@pytest.mark.slow
def test_vector__same_observations_and_rewards_as_single_envs_with_the_same_seeds() -> None:
    n, steps, seed = 3, 24, 40  # 1-end games of 8 steps: every sub-env plays several games
    actions = np.random.default_rng(0).integers(0, 38, size=(steps, n))
    vector = CurlingVectorEnv(n, CONFIG)
    try:
        first, _ = vector.reset(seed=seed)
        results = _play(vector, actions)
    finally:
        vector.close()
    assert sum(int(r[2].sum()) for r in results) >= 2 * n  # at least two games each
    for i in range(n):
        single = CurlingEnv(CONFIG)
        try:
            obs, _ = single.reset(seed=seed + i)
            assert np.array_equal(obs, first[i])
            autoreset = False
            for t in range(steps):
                if autoreset:  # what the vector env does on the step after an episode's end
                    obs, _ = single.reset()
                    reward, terminated, truncated = 0.0, False, False
                else:
                    obs, reward, terminated, truncated, _ = single.step(actions[t, i])
                v_obs, v_reward, v_terminated, v_truncated = (r[i] for r in results[t])
                assert np.array_equal(obs, v_obs), (i, t)
                assert (reward, terminated, truncated) == (v_reward, v_terminated, v_truncated)
                autoreset = terminated or truncated
        finally:
            single.close()


def test_vector__spaces_one_server_process_a_port_per_env_and_close_stops_it() -> None:
    vector = CurlingVectorEnv(num_envs=4, config={"opponent": 0, "ends": 1})
    try:
        assert vector.single_observation_space == CurlingEnv().observation_space
        assert vector.observation_space.shape == (4, observation.OBS_SIZE)
        assert vector.action_space.shape == (4, 3)
        assert vector.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
        obs, infos = vector.reset(seed=1)
        assert vector.observation_space.contains(obs)
        assert len(set(vector.addresses)) == 4
        pids = {env._server.process.pid for env in vector.envs}
        assert len(pids) == 1  # one server process hosts the four rooms
        assert list(infos["seat"]) == [0, 0, 0, 0] and infos["_seat"].all()
        obs, rewards, terminated, truncated, infos = vector.step(vector.action_space.sample())
        assert vector.observation_space.contains(obs)
        assert rewards.shape == terminated.shape == truncated.shape == (4,)
        process = vector.envs[0]._server.process
    finally:
        vector.close()
    assert not process.alive()


def test_vector__more_envs_than_the_default_match_limit_all_play() -> None:
    """One server hosts every env's game: 20 envs (over the default 16 matches at once) all
    reset and step (the server allows a match per port)."""
    vector = CurlingVectorEnv(num_envs=20, config={"opponent": 0, "ends": 1})
    try:
        obs, _ = vector.reset(seed=3)
        obs, rewards, terminated, truncated, _ = vector.step(vector.action_space.sample())
        assert vector.observation_space.contains(obs) and rewards.shape == (20,)
    finally:
        vector.close()


def test_vector__next_step_autoreset_starts_the_next_game_with_reward_zero() -> None:
    vector = CurlingVectorEnv(2, CONFIG)
    try:
        vector.reset(seed=5)
        terminated = np.zeros(2, bool)
        for _ in range(8):  # 8 of our stones per 1-end game
            _, _, terminated, _, infos = vector.step(np.array([0, 1]))
        assert terminated.all()
        assert all(result in ("WIN", "LOSE", "DRAW") for result in infos["result"])
        obs, rewards, terminated, truncated, infos = vector.step(np.array([0, 1]))  # ignored
        assert not terminated.any() and not truncated.any() and (rewards == 0).all()
        assert all(state[0] in (0, 1) for state in infos["setstate"])  # a new game's first shot
        assert all(result is None for result in infos["result"])
        _, _, terminated, _, _ = vector.step(np.array([2, 3]))  # and play goes on
        assert not terminated.any()
    finally:
        vector.close()


def test_vector__a_bad_action_in_any_row_moves_no_sub_env() -> None:
    vector = CurlingVectorEnv(3, CONFIG)
    try:
        vector.reset(seed=6)
        before = [env._client.state for env in vector.envs]
        for bad in ([0, 1, 99], [0, 1.5, 2], np.array([0, 1]), None):
            with pytest.raises(InvalidActionError):
                vector.step(bad)
        assert [env._client.state for env in vector.envs] == before
        _, _, terminated, _, _ = vector.step(np.array([0, 1, 2]))
        assert not terminated.any()
    finally:
        vector.close()


def test_vector__refuses_server_lists_and_bad_seeds() -> None:
    with pytest.raises(ConfigError, match="private servers .* gym_env_vectorize_mode='sync'"):
        CurlingVectorEnv(2, {"server": "127.0.0.1:7788"})
    with pytest.raises(ConfigError, match="num_envs"):
        CurlingVectorEnv(0, CONFIG)
    with pytest.raises(ConfigError, match="unknown"):
        CurlingVectorEnv(2, {"oponent": 3})
    vector = CurlingVectorEnv(2, CONFIG)
    try:
        with pytest.raises(ValueError, match="consecutive"):
            vector.reset(seed=[3, 7])
        obs, _ = vector.reset(seed=[3, 4])
        assert obs.shape == (2, observation.OBS_SIZE)
    finally:
        vector.close()


@pytest.mark.slow
def test_vector__hung_server_is_killed_then_reset_starts_a_new_one() -> None:
    vector = CurlingVectorEnv(2, {**CONFIG, "server_timeout": 5.0})
    hung = None
    try:
        vector.reset(seed=7)
        hung = vector.envs[0]._server.process
        psutil.Process(hung.pid).suspend()  # SIGSTOP; on Windows every thread suspended
        start = time.monotonic()
        with pytest.raises(ConnectionLostError, match="did not answer for 5 s .* killed"):
            vector.step(np.array([0, 1]))
        assert time.monotonic() - start < 10.0
        assert not hung.alive()
        obs, _ = vector.reset()
        assert obs.shape == (2, observation.OBS_SIZE)
        assert vector.envs[1]._server.process.pid != hung.pid
        vector.step(np.array([0, 1]))
    finally:
        if hung is not None and hung.alive():
            hung.kill()
        vector.close()


def test_vector__rllib_creator_returns_a_vector_env_for_num_envs() -> None:
    from rllib_curling.rl.registration import _make_env

    vector = _make_env({**CONFIG, "num_envs": 2})
    single = _make_env(dict(CONFIG))
    try:
        assert isinstance(vector, CurlingVectorEnv) and vector.num_envs == 2
        assert isinstance(single, CurlingEnv)
    finally:
        vector.close()
        single.close()
