"""The curling callback's pieces that need no Ray run: the curriculum's promotion rule and how a
new opponent mixture reaches every env (the RLlib run is in test_rllib.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

from rllib_curling.env import CurlingEnv
from rllib_curling.env.config import CurriculumConfig
from rllib_curling.env.vector import CurlingVectorEnv
from rllib_curling.rl.callbacks import CurlingMetrics, opponent_key, set_env_opponents


def _stats(games: float, rate: float) -> dict:
    return {"games": games, "score_rate": rate}


def test_promotion__needs_window_games_at_the_level_and_the_rate() -> None:
    curriculum = CurriculumConfig(levels=(2, 3, 4), promote_at=0.7, window=10)
    callback = CurlingMetrics()
    # RLlib reports lifetime games and the mean of each iteration's games.
    callback._maybe_promote(curriculum, {"L2": _stats(6, 1.0)})
    assert callback.stage == 0  # 6 games < window
    callback._maybe_promote(curriculum, {"L2": _stats(9, float("nan"))})  # none this time
    callback._maybe_promote(curriculum, {"L2": _stats(12, 0.0)})  # (6·1 + 6·0) / 12 < 0.7
    assert callback.stage == 0
    callback._maybe_promote(curriculum, {"L2": _stats(22, 0.8)})  # latest 10: 0.8
    assert callback.stage == 1
    # Level 3 counts from its promotion: 4 games (all lost) in the next iteration, ...
    callback._maybe_promote(curriculum, {"L2": _stats(30, 1.0), "L3": _stats(4, 0.0)})
    assert callback.stage == 1
    callback._maybe_promote(curriculum, {"L3": _stats(9, 1.0)})  # 9 games since
    assert callback.stage == 1
    callback._maybe_promote(curriculum, {"L3": _stats(13, 1.0)})  # last 10: 9 won, 1 lost
    assert callback.stage == 2
    callback._maybe_promote(curriculum, {"L4": _stats(1000, 1.0)})  # the top stays the top
    assert callback.stage == 2


def test_opponent_key__levels_and_external() -> None:
    assert opponent_key(4) == "L4" and opponent_key("external") == "external"


@pytest.mark.parametrize("kind", ["curling_vector", "sync", "single"])
def test_set_env_opponents__reaches_every_sub_env(kind: str) -> None:
    config = {"opponent": 2, "ends": 1}
    if kind == "curling_vector":
        env = CurlingVectorEnv(3, config)
    elif kind == "sync":
        env = gym.vector.SyncVectorEnv([lambda: CurlingEnv(config)] * 3)
    else:
        env = gym.wrappers.PassiveEnvChecker(CurlingEnv(config))
    try:
        count = set_env_opponents(env, {2: 0.5, 5: 0.5})
        subs = [e.unwrapped for e in getattr(env.unwrapped, "envs", [env])]
        assert count == (1 if kind == "curling_vector" else len(subs))
        assert all(e.opponents == {2: 0.5, 5: 0.5} for e in subs)
    finally:
        env.close()


class _Episode:
    """What ``on_episode_end`` reads of an episode: the infos of its steps."""

    def __init__(self, info: dict) -> None:
        self.info = info

    def get_infos(self, index: int) -> dict:
        return self.info


@pytest.mark.parametrize(("result", "win_rate"), [("WIN", 1.0), ("DRAW", 0.5), ("LOSE", 0.0)])
def test_curling_metrics__win_rate_counts_a_draw_half(result: str, win_rate: float) -> None:
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    logger = MetricsLogger()
    info = {"result": result, "score": (2, 1), "opponent": 3}
    CurlingMetrics().on_episode_end(episode=_Episode(info), metrics_logger=logger)
    assert logger.peek("win_rate") == win_rate
    assert logger.peek(("opponents", "L3", "score_rate")) == win_rate
    assert logger.peek("draw_rate") == float(result == "DRAW")
    assert (logger.peek("points_for"), logger.peek("points_against")) == (2.0, 1.0)


def test_curling_metrics__a_game_without_result_logs_nothing() -> None:
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    logger = MetricsLogger()
    info = {"result": None, "score": (0, 0)}
    CurlingMetrics().on_episode_end(episode=_Episode(info), metrics_logger=logger)
    assert not logger.reduce()
