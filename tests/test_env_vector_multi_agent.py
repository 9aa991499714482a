"""CurlingVectorMultiAgentEnv: league and self-play games stepped together play the same games as
RLlib's sync vector env, refuse a bad action before any game moves, and reach RLlib's runners."""

from __future__ import annotations

from typing import Any

import pytest
from ray.rllib.env.vector.sync_vector_multi_agent_env import SyncVectorMultiAgentEnv

from rllib_curling.env.league import CurlingLeagueEnv
from rllib_curling.env.multi_agent import CurlingMultiAgentEnv
from rllib_curling.env.vector_multi_agent import CurlingVectorMultiAgentEnv

CONFIG = {"action": "discrete", "ends": 1}


def _league_envs(n: int) -> list[Any]:
    envs = [CurlingLeagueEnv(CONFIG) for _ in range(n)]
    for env in envs:
        env.set_league({"level_2": 1.0, "level_3": 1.0})
    return envs


def _actions(observations: list[dict], step: int) -> list[dict]:
    """One action for the mover of every game, a fixed function of the step."""
    return [{agent: (step * 7 + i * 3) % 40 for agent in obs} for i, obs in enumerate(observations)]


def _run(vector: Any, steps: int, observations: list[dict] | None = None) -> list[tuple]:
    """Step ``steps`` times from a reset with seed 21 (or from ``observations``); what was seen."""
    if observations is None:
        observations, _ = vector.reset(seed=21)
    trace = []
    for step in range(steps):
        observations, rewards, terminateds, _, infos = vector.step(_actions(observations, step))
        trace.append((
            [{a: o.tolist() for a, o in obs.items()} for obs in observations],
            [dict(r) for r in rewards],
            [t["__all__"] for t in terminateds],
            [{a: i.get("result") for a, i in info.items()} for info in infos],
        ))  # fmt: skip
    return trace


@pytest.mark.slow
def test_vector_multi_agent__plays_the_same_games_as_rllibs_sync_vector_env() -> None:
    sync = SyncVectorMultiAgentEnv(env_fns=[lambda env=env: env for env in _league_envs(2)])
    try:
        expected = _run(sync, 40)  # 16 throws a 1-end game: two games each, with autoresets
    finally:
        sync.close()
    together = CurlingVectorMultiAgentEnv(_league_envs(2))
    try:
        got = _run(together, 40)
    finally:
        together.close()
    assert sum(sum(ended) for _, _, ended, _ in got) >= 4  # every game ended at least once
    assert got == expected


@pytest.mark.slow
def test_vector_multi_agent__a_bad_action_moves_no_game() -> None:
    reference = CurlingVectorMultiAgentEnv([CurlingMultiAgentEnv(CONFIG) for _ in range(2)])
    try:
        expected = _run(reference, 3)
    finally:
        reference.close()
    vector = CurlingVectorMultiAgentEnv([CurlingMultiAgentEnv(CONFIG) for _ in range(2)])
    try:
        observations, _ = vector.reset(seed=21)
        bad = _actions(observations, 0)
        bad[1] = {agent: 999 for agent in observations[1]}  # outside Discrete(n)
        with pytest.raises(ValueError, match="999"):
            vector.step(bad)
        # Game 0's throw was not sent either: the games go on as if the bad step never was.
        assert _run(vector, 3, observations) == expected
    finally:
        vector.close()


def test_vector_multi_agent__takes_only_curling_games() -> None:
    with pytest.raises(TypeError, match="CurlingMultiAgentEnv"):
        CurlingVectorMultiAgentEnv([object()])


@pytest.mark.slow
def test_vector_multi_agent__from_sync_takes_the_games_over_and_keeps_them_open() -> None:
    import gc

    envs = [CurlingMultiAgentEnv(CONFIG) for _ in range(2)]
    sync = SyncVectorMultiAgentEnv(env_fns=[lambda env=env: env for env in envs])
    together = CurlingVectorMultiAgentEnv.from_sync(sync)
    try:
        observations, _ = together.reset(seed=1)
        del sync
        gc.collect()  # the sync env is gone; it must not have closed the games it handed over
        assert [env.unwrapped for env in together.envs] == envs
        assert len(_run(together, 2, observations)) == 2  # the games go on, unreset
    finally:
        together.close()
