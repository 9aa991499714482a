"""RLlib callbacks that add curling metrics to training results and drive the curriculum.

``CurlingMetrics`` (new API stack) logs, for every finished single-agent game:

| result key (under ``env_runners/``)   | what                                                   |
|---------------------------------------|--------------------------------------------------------|
| ``win_rate``                          | the win rate, draws half: 1 / ½ / 0 for a win / draw / |
|                                       | loss (``game.Result.points``); mean of the last 100    |
| ``draw_rate``                         | 1 for a draw, else 0; mean of the last 100             |
| ``points_for``, ``points_against``    | the game's total points; mean of the last 100          |
| ``opponents/L{n}/score_rate``         | the same win rate (draws half) against level n only:   |
|                                       | mean of the last ``window`` games against it           |
| ``opponents/L{n}/games``              | games against level n since training started           |

**Win rate** has one meaning in the package: wins + draws / 2 over the games (``game.Result``
and ``game.score_rate``), as ``curling match``, ``curling ladder``, ``curling rate``,
``rllib evaluate`` and the league count it. (Until issue 27 ``env_runners/win_rate`` counted
wins only; the wins alone are ``win_rate - draw_rate / 2``.) A metric over no games is not
logged: RLlib reports NaN for a window with no values, and ``WinRates`` skips it.

After each training iteration it adds ``curling/env_steps_per_s`` (env steps sampled per second
of that iteration) and ``curling/opponent``: the built-in level the env plays (with a mixture, the
one with the most weight; with a curriculum, its current level; ``-1`` for "external"); with a
curriculum also ``curling/curriculum_stage`` (index into its levels).

**Curriculum** (``env_config["curriculum"]``, ``env.config.CurriculumConfig``): after each
iteration, once at least ``window`` games were played against the current level since it became
current and the score rate over the latest ``window`` of them reaches ``promote_at``, the next
level becomes current: every env runner's envs get the new mixture (the current level
``1 - review``, the levels passed ``review`` between them) through ``set_opponents``. The
mixture is sent again after every iteration, so an env runner that was restarted catches up.
The stage is saved in every checkpoint (the curling algorithms' ``get_state`` asks
:meth:`CurlingMetrics.get_curriculum_state`): a restored run resumes at its level, sends its
mixture to the env runners at once, and plays ``window`` games there before the next promotion.

Shared with the league's callback (``rl.league``): ``WinRates`` (score rate per opponent over
the last N games, kept in the driver) and ``SamplingSpeed`` (``curling/env_steps_per_s``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import gymnasium as gym
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.utils.annotations import override

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.env.env_runner import EnvRunner
    from ray.rllib.evaluation.episode_v2 import EpisodeV2
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger
    from ray.rllib.utils.typing import EpisodeType

from rllib_curling.env.config import CurlingEnvConfig, CurriculumConfig
from rllib_curling.game import Result

WINDOW = 100
STEPS_KEY = "num_env_steps_sampled_lifetime"


def opponent_key(level: int | str) -> str:
    """The metrics group of one opponent: ``L4`` for level 4 (an int of any kind: vector envs
    hand infos over as numpy arrays), ``external``."""
    text = str(level)
    return f"L{text}" if text.isdigit() else text


def game_result(info: object) -> Result | None:
    """The learner's result in the last info of a finished curling game, None if there is
    none (a truncated game, another env's info)."""
    if not isinstance(info, dict):
        return None
    try:
        return Result(info.get("result"))
    except ValueError:
        return None


def log_game(metrics_logger: MetricsLogger, result: Result, score: tuple[int, int]) -> None:
    """Log one finished game of the learner: ``win_rate`` (its ``Result.points``: draws half),
    ``draw_rate``, ``points_for`` and ``points_against`` (``score``: mine, theirs), each the mean
    of the last ``WINDOW`` games."""
    mine, theirs = score
    metrics_logger.log_value("win_rate", result.points, window=WINDOW)
    metrics_logger.log_value("draw_rate", float(result is Result.DRAW), window=WINDOW)
    metrics_logger.log_value("points_for", float(mine), window=WINDOW)
    metrics_logger.log_value("points_against", float(theirs), window=WINDOW)


class SamplingSpeed:
    """``curling/env_steps_per_s``: env steps sampled per second between training results."""

    def __init__(self) -> None:
        self._last: tuple[float, float] | None = None  # (time, env steps) at the last result

    def start(self) -> None:
        self._last = (time.monotonic(), 0.0)

    def add_to(self, result: dict) -> None:
        """Put this iteration's speed in ``result["curling"]["env_steps_per_s"]``."""
        now, steps = time.monotonic(), float(result.get(STEPS_KEY, 0.0) or 0.0)
        if self._last is not None and now > self._last[0]:
            speed = (steps - self._last[1]) / (now - self._last[0])
            result.setdefault("curling", {})["env_steps_per_s"] = speed
        self._last = (now, steps)


class WinRates:
    """The learner's score rate (wins + draws / 2) per opponent over its last ``window`` games,
    kept in the driver: RLlib's results give each opponent's mean over one iteration's games
    only (the env runners' windows restart every iteration). Used by the curriculum and the
    league."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.games: dict[str, int] = {}  # lifetime games per opponent, as last reported
        self._history: dict[str, list[tuple[int, float]]] = {}  # (games, mean) per iteration

    def update(self, games: Mapping[str, float], means: Mapping[str, float]) -> None:
        """Add one iteration: lifetime ``games`` and this iteration's ``means`` per opponent."""
        for name, total in games.items():
            new = int(total) - self.games.get(name, 0)
            self.games[name] = int(total)
            mean = means.get(name)
            if new <= 0 or mean is None or not math.isfinite(mean):
                continue
            history = self._history.setdefault(name, [])
            history.append((min(new, self.window), float(mean)))
            while sum(n for n, _ in history[1:]) >= self.window:
                history.pop(0)

    def rates(self) -> dict[str, float]:
        """Each opponent's win rate (draws half) over (up to) its last ``window`` games; an
        opponent without a game yet is left out."""
        out = {}
        for name, history in self._history.items():
            left, total = self.window, 0.0
            for n, mean in reversed(history):
                take = min(n, left)
                total, left = total + take * mean, left - take
                if left == 0:
                    break
            out[name] = total / (self.window - left)
        return out


def set_env_opponents(
    env: gym.Env | gym.vector.VectorEnv | None, weights: dict[int | str, float]
) -> int:
    """Give every curling env inside ``env`` (a ``CurlingVectorEnv``, Gymnasium's sync or
    async vector envs of ``CurlingEnv``, or one env, wrapped or not) the opponent mixture
    ``weights``; returns how many envs took it (None: an env runner without an env yet)."""
    if env is None:
        return 0
    base = getattr(env, "unwrapped", env)
    if hasattr(base, "set_opponents"):
        base.set_opponents(weights)
        return 1
    return sum(set_env_opponents(sub, weights) for sub in getattr(base, "envs", ()))


class CurlingMetrics(RLlibCallback):
    """Logs win rate (draws half) and points of each finished single-agent curling game (per
    opponent too), the sampling speed and opponent of each iteration, and runs the curriculum
    (module doc)."""

    def __init__(self) -> None:
        super().__init__()
        self._speed = SamplingSpeed()
        self._curriculum: CurriculumConfig | None = None
        self.stage = 0
        self._rates: WinRates | None = None  # score rate per opponent (driver)
        self._games_at_promotion = 0  # lifetime games against the current level when promoted

    @override(RLlibCallback)
    def on_episode_end(
        self,
        *,
        episode: EpisodeType | EpisodeV2,
        metrics_logger: MetricsLogger | None = None,
        **kwargs: Any,
    ) -> None:
        if metrics_logger is None or not hasattr(episode, "get_infos"):
            return
        try:
            info = episode.get_infos(-1)
        except (IndexError, KeyError, TypeError):
            return
        result = game_result(info)
        if result is None or not isinstance(info, dict):
            return
        log_game(metrics_logger, result, info["score"])
        opponent = info.get("opponent")
        if opponent is not None:
            group = ("opponents", opponent_key(opponent))
            window = self._curriculum.window if self._curriculum else WINDOW
            metrics_logger.log_value((*group, "score_rate"), result.points, window=window)
            metrics_logger.log_value((*group, "games"), 1, reduce="lifetime_sum")

    @override(RLlibCallback)
    def on_algorithm_init(self, *, algorithm: Algorithm, **kwargs: Any) -> None:
        self._speed.start()

    @override(RLlibCallback)
    def on_environment_created(self, *, env_runner: EnvRunner, env: gym.Env, **kwargs: Any) -> None:
        # Env runners read the curriculum's window for their metrics; the driver's copy (with
        # on_algorithm_init) runs the promotions.
        self._curriculum = _env_of(env_runner.config.env_config).curriculum_config

    @override(RLlibCallback)
    def on_train_result(self, *, algorithm: Algorithm, result: dict, **kwargs: Any) -> None:
        self._speed.add_to(result)
        curling = result.setdefault("curling", {})
        env = _env_of(env_config_of(algorithm.config))
        curriculum = env.curriculum_config
        if curriculum is None:
            weights = env.opponents
            main = max(weights, key=weights.__getitem__)
            curling["opponent"] = main if isinstance(main, int) else -1
            return
        self._curriculum = curriculum
        opponents = result.get("env_runners", {}).get("opponents", {})
        self._maybe_promote(curriculum, opponents)
        _set_opponents(algorithm, curriculum.weights(self.stage))
        curling["opponent"] = curriculum.levels[self.stage]
        curling["curriculum_stage"] = self.stage

    def get_curriculum_state(self) -> dict[str, int]:
        """What a checkpoint keeps of the curriculum: its stage."""
        return {"stage": self.stage}

    def set_curriculum_state(self, algorithm: Algorithm, state: Mapping[str, Any]) -> None:
        """Resume at a checkpoint's stage: the env runners get its mixture now, and the games
        against its level count from the next iteration's results."""
        curriculum = _env_of(env_config_of(algorithm.config)).curriculum_config
        if curriculum is None:
            return
        self._curriculum = curriculum
        self.stage = min(int(state.get("stage", 0)), len(curriculum.levels) - 1)
        self._rates = None
        self._games_at_promotion = -1  # counted from the games seen at the next update
        _set_opponents(algorithm, curriculum.weights(self.stage))

    def _maybe_promote(self, curriculum: CurriculumConfig, opponents: dict[str, Any]) -> None:
        """Move to the next level once at least ``window`` games were played against the
        current one since it became current and the score rate over the last ``window`` of
        them reaches ``promote_at``."""
        if self._rates is None:
            self._rates = WinRates(curriculum.window)
        self._rates.update(
            {k: float(v.get("games", 0) or 0) for k, v in opponents.items()},
            {k: float(v.get("score_rate", math.nan)) for k, v in opponents.items()},
        )
        key = opponent_key(curriculum.levels[self.stage])
        if self._games_at_promotion < 0:  # resumed from a checkpoint: its games start now
            self._games_at_promotion = self._rates.games.get(key, 0)
        played = self._rates.games.get(key, 0) - self._games_at_promotion
        if self.stage == len(curriculum.levels) - 1 or played < curriculum.window:
            return
        if self._rates.rates().get(key, 0.0) < curriculum.promote_at:
            return
        self.stage += 1
        self._games_at_promotion = self._rates.games.get(
            opponent_key(curriculum.levels[self.stage]), 0
        )


def _env_of(env_config: Mapping[str, Any] | None) -> CurlingEnvConfig:
    """The env's config, parsed once (its curriculum and opponents read from it)."""
    return CurlingEnvConfig.from_dict(dict(env_config or {}))


def env_config_of(config: AlgorithmConfig | None) -> Mapping[str, Any]:
    """The env config of an algorithm's (or an env runner's) ``config``; empty when it has
    none."""
    return (config.env_config if config is not None else None) or {}


def on_every_env_runner(algorithm: Algorithm, call: Callable[[EnvRunner], object]) -> None:
    """``call(runner)`` on every env runner of ``algorithm``, the local one included (none:
    an offline algorithm)."""
    if algorithm.env_runner_group is not None:
        algorithm.env_runner_group.foreach_env_runner(call, local_env_runner=True)


def _set_opponents(algorithm: Algorithm, weights: dict[int | str, float]) -> None:
    """Give every env runner's curling envs the mixture ``weights``."""
    on_every_env_runner(algorithm, lambda runner: set_env_opponents(runner.env, weights))
