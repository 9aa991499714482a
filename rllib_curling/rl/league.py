"""League self-play on ``CurlingLeagueEnv`` (``env.league``): the sampling rule, the snapshot
rule, the RLlib callback that applies them, and the config that ``env: curling_league`` gets.
(Two ``league`` modules on purpose: ``env.league`` is the env the games run in, this one the
training rules RLlib applies to it; each layer has its half.)

**Who plays whom.** The learner module ``"main"`` plays pairs of games against opponents drawn
from a league: the built-in levels of ``LeagueConfig.levels`` and frozen snapshots of itself
(``"main_v1"``, ``"main_v2"``, …: copies of "main"'s weights, frozen, in RLModules
``"snapshot_0"`` … added while training as in RLlib's league-based self-play example; see
``env.league`` for the slots). Only ``"main"`` is trained.

**Sampling rule: prioritised fictitious self-play** (PFSP, AlphaStar, Vinyals et al. 2019).
Opponent i is drawn with probability ∝ max(f(pᵢ), ``floor``), where pᵢ is the learner's win rate
(draws count half) over its last ``window`` games against i, and ``prior`` stands in for p while
there is no game against i yet:

- ``rule="hard"`` (default): f(p) = (1 − p)², AlphaStar's rule for its main agents. Games go
  where the learner still loses: a level it beats every time is all but dropped, so the samples
  are not spent on solved opponents, while an opponent that still wins keeps coming back until
  it is beaten; unlike uniform fictitious self-play, it does not waste most games on the old,
  weak snapshots of a growing league. The goal (beat level 8) is the hardest opponent, which this
  rule keeps in the mix from the start.
- ``rule="variance"``: f(p) = p(1 − p), AlphaStar's rule for opponents of the learner's own
  strength: most games where the result is most uncertain (p near ½), which carry the most
  information about the outcome; for a learner far below the strongest levels.
- ``floor`` keeps every opponent in play now and then (a solved level is still checked, so
  forgetting shows up in its p and raises its weight again); ``prior`` (½) gives a new snapshot
  a weight near the top, so it is measured soon.

**Snapshot rule** (``snapshot_due``): a new snapshot of "main" joins the league when at least
``snapshot_min_iterations`` training iterations have passed since the last one and the learner
wins at least ``snapshot_threshold`` of its last games (≥ ``snapshot_min_games`` of them) against
the newest snapshot: each snapshot is then measurably stronger than the one before (the gating of
AlphaGo Zero), so the league is a ladder of the learner's own past. The first snapshot needs
only the iterations and ``snapshot_min_games`` games in all. Only the newest
``max_snapshots`` stay: a new snapshot overwrites the weights of the oldest one's module (a game
against it still under way finishes against the new weights).

**Metrics** (training results): ``league/size``, ``league/snapshots``, ``league/weights/<name>``
(probabilities), ``league/win_rate/<name>`` and ``league/games/<name>`` (lifetime); and, as
``CurlingMetrics`` gives single-agent runs (``rl.callbacks.log_game``), ``env_runners/win_rate``
(draws half, as every win rate here), ``draw_rate``, ``points_for``, ``points_against`` over all
the learner's games, and ``curling/env_steps_per_s``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.annotations import override

from rllib_curling.env.league import (
    LEARNER,
    LeagueConfig,
    check_league,
    level_name,
    snapshot_name,
    snapshot_slot,
)
from rllib_curling.errors import ConfigError
from rllib_curling.rl.callbacks import (
    SamplingSpeed,
    WinRates,
    env_config_of,
    game_result,
    log_game,
    on_every_env_runner,
)

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.env.env_runner import EnvRunner
    from ray.rllib.evaluation.episode_v2 import EpisodeV2
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger
    from ray.rllib.utils.typing import EpisodeType


def league_mapping_fn(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Agent → module: agent IDs of ``CurlingLeagueEnv`` are module IDs (``"main"``, or the
    ``"snapshot_S"`` slot of the snapshot it plays)."""
    return str(agent_id)


def pfsp_weights(
    opponents: list[str], win_rates: Mapping[str, float], config: LeagueConfig
) -> dict[str, float]:
    """The sampling probabilities of ``opponents`` (module docstring): ∝ max(f(p), floor), with
    p from ``win_rates`` (``config.prior`` where missing or NaN: RLlib's mean of no games)."""
    if not opponents:
        raise ConfigError("the league has no opponents")
    raw = {}
    for name in opponents:
        p = float(win_rates.get(name, config.prior))
        p = min(max(p, 0.0), 1.0) if math.isfinite(p) else config.prior  # NaN: no games yet
        f = (1.0 - p) ** 2 if config.rule == "hard" else p * (1.0 - p)
        raw[name] = max(f, config.floor)
    if sum(raw.values()) <= 0:  # floor 0 and every f 0: fall back to equal weights
        raw = dict.fromkeys(opponents, 1.0)
    return check_league(raw, config.max_snapshots)


def snapshot_due(
    *,
    iterations_since: int,
    newest_win_rate: float | None,
    newest_games: int,
    total_games: int,
    has_snapshot: bool,
    config: LeagueConfig,
) -> bool:
    """Whether "main" earns a new snapshot now (module docstring, "Snapshot rule")."""
    if config.max_snapshots == 0 or iterations_since < config.snapshot_min_iterations:
        return False
    if not has_snapshot:
        return total_games >= config.snapshot_min_games
    return (
        newest_games >= config.snapshot_min_games
        and newest_win_rate is not None
        and newest_win_rate >= config.snapshot_threshold
    )


def learner_final_info(episode: EpisodeType | EpisodeV2) -> dict[str, Any] | None:
    """The learner's info on the last step of a finished ``CurlingLeagueEnv`` episode."""
    agent_episodes = getattr(episode, "agent_episodes", None) or {}
    learner = agent_episodes.get(LEARNER)
    if learner is None:
        return None
    try:
        info = learner.get_infos(-1)
    except (IndexError, KeyError, TypeError):
        return None
    return info if isinstance(info, dict) and game_result(info) is not None else None


def set_league_on_runner(env_runner: EnvRunner, weights: dict[str, float]) -> int:
    """``set_league(weights)`` on every ``CurlingLeagueEnv`` of an env runner; how many."""
    env = getattr(env_runner, "env", None)
    done = 0
    for sub in getattr(env, "envs", None) or []:
        target = getattr(sub, "unwrapped", sub)
        if hasattr(target, "set_league"):
            target.set_league(weights)
            done += 1
    return done


class LeagueCallback(RLlibCallback):
    """Logs the learner's results per opponent, adds snapshots of "main" and pushes PFSP
    sampling weights to every env runner after each iteration (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._speed = SamplingSpeed()
        self.snapshots: list[str] = []  # in the league, oldest first
        self.versions = 0  # snapshots made so far
        self.last_snapshot_iteration = 0
        self.win_rates: WinRates | None = None
        self.weights: dict[str, float] = {}

    @override(RLlibCallback)
    def on_episode_end(
        self,
        *,
        episode: EpisodeType | EpisodeV2,
        metrics_logger: MetricsLogger | None = None,
        **kwargs: Any,
    ) -> None:
        info = learner_final_info(episode)
        if metrics_logger is None or info is None:
            return
        runner = kwargs.get("env_runner")
        window = _league_config(getattr(runner, "config", None)).window
        opponent, result = info["opponent"], game_result(info)
        assert result is not None  # learner_final_info checked it
        metrics_logger.log_value(("league", "win_rate", opponent), result.points, window=window)
        metrics_logger.log_value(("league", "games", opponent), 1, reduce="lifetime_sum")
        log_game(metrics_logger, result, info["score"])

    @override(RLlibCallback)
    def on_algorithm_init(self, *, algorithm: Algorithm, **kwargs: Any) -> None:
        self._speed.start()
        config = _league_config(algorithm.config)
        if config.start_from:
            start_learner_from(algorithm, config.start_from)
        self._push(algorithm, pfsp_weights(self._opponents(config), {}, config))

    @override(RLlibCallback)
    def on_train_result(self, *, algorithm: Algorithm, result: dict, **kwargs: Any) -> None:
        config = _league_config(algorithm.config)
        iteration = int(result.get("training_iteration", 0))
        stats = (result.get("env_runners") or {}).get("league") or {}
        if self.win_rates is None:
            self.win_rates = WinRates(config.window)
        self.win_rates.update(
            {k: float(v) for k, v in (stats.get("games") or {}).items()},
            {k: float(v) for k, v in (stats.get("win_rate") or {}).items()},
        )
        win_rates, games = self.win_rates.rates(), self.win_rates.games
        newest = self.snapshots[-1] if self.snapshots else None
        if snapshot_due(
            iterations_since=iteration - self.last_snapshot_iteration,
            newest_win_rate=win_rates.get(newest) if newest else None,
            newest_games=games.get(newest, 0) if newest else 0,
            total_games=sum(games.values()),
            has_snapshot=newest is not None,
            config=config,
        ):
            self._add_snapshot(algorithm, iteration, config)
        self._push(algorithm, pfsp_weights(self._opponents(config), win_rates, config))
        result["league"] = {
            "size": len(self.weights),
            "snapshots": len(self.snapshots),
            "weights": dict(self.weights),
            "win_rate": win_rates,
            "games": dict(games),
        }
        self._add_speed(result)

    def _add_speed(self, result: dict) -> None:
        """``curling/env_steps_per_s`` of this iteration (as ``CurlingMetrics``) and
        ``curling/opponent`` = -1 (a league, not one level)."""
        self._speed.add_to(result)
        result.setdefault("curling", {})["opponent"] = -1

    def _opponents(self, config: LeagueConfig) -> list[str]:
        return [level_name(level) for level in config.levels] + list(self.snapshots)

    def _add_snapshot(self, algorithm: Algorithm, iteration: int, config: LeagueConfig) -> None:
        """Freeze a copy of "main" as ``main_vN`` in its slot's module (rllib.md §8): the module
        is added the first time the slot is used, later overwritten."""
        self.versions += 1
        slot = snapshot_slot(self.versions, config.max_snapshots)
        main = algorithm.get_module(LEARNER)
        if main is None:
            raise ConfigError(f"a league run without its learner module {LEARNER!r}")
        if algorithm.get_module(slot) is None:
            algorithm.add_module(module_id=slot, module_spec=RLModuleSpec.from_module(main))
        state = {"learner_group": {"learner": {"rl_module": {slot: main.get_state()}}}}
        algorithm.set_state(state)  # also syncs the new weights to every env runner
        self.snapshots = [*self.snapshots, snapshot_name(self.versions)][-config.max_snapshots :]
        self.last_snapshot_iteration = iteration

    def _push(self, algorithm: Algorithm, weights: dict[str, float]) -> None:
        """The new sampling weights to every env runner, the local one included."""
        self.weights = weights
        on_every_env_runner(algorithm, lambda runner: set_league_on_runner(runner, weights))


def start_learner_from(algorithm: Algorithm, checkpoint: str) -> None:
    """Load the policy of ``checkpoint`` into the learner ``"main"`` (``start_module_from``)."""
    from rllib_curling.rl.checkpoints import start_module_from

    start_module_from(algorithm, checkpoint, LEARNER)


def resolve_start_from(env_config: dict[str, Any]) -> dict[str, Any]:
    """``env_config`` with ``league.start_from`` as the absolute path of the checkpoint it names
    (Tune runs trials in other directories); ``ConfigError`` (one line) if there is none."""
    from rllib_curling.rl.checkpoints import find_checkpoint

    league = dict(env_config.get("league") or {})
    if not league.get("start_from"):
        return env_config
    try:
        league["start_from"] = str(find_checkpoint(league["start_from"]))
    except (FileNotFoundError, ValueError) as exc:
        raise ConfigError(f"league start_from: {exc}") from None
    return {**env_config, "league": league}


def _league_config(algo_config: AlgorithmConfig | None) -> LeagueConfig:
    return LeagueConfig.from_dict(env_config_of(algo_config).get("league"))


def configure_league(config: AlgorithmConfig) -> AlgorithmConfig:
    """What ``env: curling_league`` adds to an ``AlgorithmConfig`` (``rl.trainables``): the
    modules (``"main"``, trained; snapshots come later), the identity mapping, and
    ``LeagueCallback`` beside the user's callbacks. Idempotent; returns ``config``."""
    config.multi_agent(
        policies={LEARNER},
        policy_mapping_fn=league_mapping_fn,
        policies_to_train=[LEARNER],
    )
    current = config.callbacks_class
    classes = list(current) if isinstance(current, list | tuple) else [current]
    classes = [c for c in classes if c is not RLlibCallback]
    if LeagueCallback not in classes:
        config.callbacks(callbacks_class=[*classes, LeagueCallback] if classes else LeagueCallback)
    return config
