"""Tune glue for the ``rllib`` command: build a trial's config and run one experiment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rllib_curling.rl.registration import CURLING_ENVS, register

BEST_METRIC = "env_runners/episode_return_mean"


def init_ray(address: str | None = None, num_cpus: int | None = None, verbose: int = 0) -> None:
    """Start (or, with ``address``, join) Ray, quietly unless ``verbose``."""
    import ray

    if ray.is_initialized():
        return
    kwargs: dict[str, Any] = {"ignore_reinit_error": True}
    if address:
        kwargs["address"] = address
    else:
        kwargs.update(num_cpus=num_cpus, include_dashboard=False)
    if not verbose:
        kwargs["logging_level"] = "warning"
    ray.init(**kwargs)


def build_config(algo: str, env: str | None, config: Any) -> Any:
    """The trial's config: an AlgorithmConfig (from a .py file) or a dict of keys (YAML/JSON).

    For the curling envs the base is ``training.algorithm_config`` (curling network); other envs
    start from the algorithm's stock defaults. Dict keys are applied with ``update_from_dict``
    (``env_config`` is merged key by key, ``{"grid_search": [...]}`` values stay for Tune).
    """
    from ray.tune.registry import get_trainable_cls

    from rllib_curling.rl.training import algorithm_config

    register()  # again: a ray.shutdown() since the import empties Ray's registry
    if not isinstance(config, dict | None):
        return config.environment(env) if env else config
    user = dict(config or {})
    env = env or user.pop("env", None)
    user.pop("env", None)
    if env in CURLING_ENVS:
        base = algorithm_config(algo, env=env, env_config=user.pop("env_config", None))
    else:
        base = get_trainable_cls(algo).get_default_config()
        if env:
            base = base.environment(env)
    return base.update_from_dict(user) if user else base


def run_experiment(
    name: str, spec: dict[str, Any], *, resume: bool = False, verbose: int = 0
) -> str | None:
    """Run one ``{run, env, stop, config, ...}`` experiment; return its best checkpoint."""
    from ray import tune
    from ray.tune.registry import get_trainable_cls

    algo = str(spec["run"])
    config = build_config(algo, spec.get("env"), spec.get("config"))
    if spec.get("restore"):
        config = _restore_on_init(config, str(spec["restore"]))
    storage = os.path.abspath(os.path.expanduser(spec.get("storage_path") or "~/ray_results"))
    ckpt = {"checkpoint_at_end": True, **(spec.get("checkpoint_config") or {})}
    trainable = get_trainable_cls(algo)
    if resume:
        tuner = tune.Tuner.restore(str(Path(storage) / name), trainable=trainable)
    else:
        tuner = tune.Tuner(
            trainable,
            param_space=config,
            tune_config=tune.TuneConfig(num_samples=int(spec.get("num_samples", 1))),
            run_config=tune.RunConfig(
                name=name,
                storage_path=storage,
                stop=spec.get("stop") or None,
                checkpoint_config=tune.CheckpointConfig(**ckpt),
                verbose=2 if verbose else 1,
            ),
        )
    results = tuner.fit()
    return _best_checkpoint(results)


def _best_checkpoint(results: Any) -> str | None:
    for result in results:
        if result.error:
            print(f"trial failed: {result.error}")
    try:
        best = results.get_best_result(metric=BEST_METRIC, mode="max", filter_nan_and_inf=True)
        if best.checkpoint:
            return best.checkpoint.path
    except (RuntimeError, KeyError, ValueError):
        pass
    for result in results:
        if result.checkpoint:
            return result.checkpoint.path
    return None


def _restore_on_init(config: Any, checkpoint: str) -> Any:
    """Make every trial start from ``checkpoint`` (the former ``--restore``)."""
    path = os.path.abspath(checkpoint)

    def restore(algorithm: Any, **_: Any) -> None:
        algorithm.restore_from_path(path)

    return config.callbacks(on_algorithm_init=restore)
