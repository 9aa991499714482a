"""RLlib callbacks that add curling metrics to training results (new API stack).

``CurlingMetrics`` logs, for every finished game, ``win_rate`` (1 for a win, else 0),
``draw_rate``, ``points_for`` and ``points_against`` (means over the last 100 games), so results
carry ``env_runners/win_rate`` next to ``env_runners/episode_return_mean``. After each training
iteration it adds ``curling/env_steps_per_s`` (env steps sampled per second of that iteration)
and ``curling/opponent`` (the built-in level the env plays; ``-1`` for "external"), which the
``rllib train`` progress table shows.
"""

from __future__ import annotations

import time
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.utils.annotations import override

WINDOW = 100
_RESULTS = ("WIN", "DRAW", "LOSE")
STEPS_KEY = "num_env_steps_sampled_lifetime"


class CurlingMetrics(RLlibCallback):
    """Logs win rate and points of each finished single-agent curling game, and the sampling
    speed and opponent of each iteration."""

    def __init__(self) -> None:
        super().__init__()
        self._last: tuple[float, float] | None = None  # (time, env steps) at the last result

    @override(RLlibCallback)
    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None or not hasattr(episode, "get_infos"):
            return
        try:
            info = episode.get_infos(-1)
        except (IndexError, KeyError, TypeError):
            return
        if not isinstance(info, dict) or info.get("result") not in _RESULTS:
            return
        mine, theirs = info["score"]
        metrics_logger.log_value("win_rate", float(info["result"] == "WIN"), window=WINDOW)
        metrics_logger.log_value("draw_rate", float(info["result"] == "DRAW"), window=WINDOW)
        metrics_logger.log_value("points_for", float(mine), window=WINDOW)
        metrics_logger.log_value("points_against", float(theirs), window=WINDOW)

    @override(RLlibCallback)
    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        self._last = (time.monotonic(), 0.0)

    @override(RLlibCallback)
    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        now = time.monotonic()
        steps = float(result.get(STEPS_KEY, 0.0) or 0.0)
        curling = result.setdefault("curling", {})
        if self._last is not None and now > self._last[0]:
            curling["env_steps_per_s"] = (steps - self._last[1]) / (now - self._last[0])
        self._last = (now, steps)
        opponent = (algorithm.config.env_config or {}).get("opponent", 2)
        curling["opponent"] = opponent if isinstance(opponent, int) else -1
