"""RLlib callbacks that add curling metrics to training results (new API stack).

``CurlingMetrics`` logs, for every finished game, ``win_rate`` (1 for a win, else 0),
``draw_rate``, ``points_for`` and ``points_against`` (means over the last 100 games), so
results carry ``env_runners/win_rate`` next to ``env_runners/episode_return_mean``.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

WINDOW = 100
_RESULTS = ("WIN", "DRAW", "LOSE")


class CurlingMetrics(RLlibCallback):
    """Logs win rate and points of each finished single-agent curling game."""

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
