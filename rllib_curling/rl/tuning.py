"""Tune glue for ``rllib train``: start Ray, build and check a trial's config, run an experiment.

Output: by default Tune's progress table with the columns a curling run needs (``PROGRESS``),
nothing else — no config dump, no per-checkpoint lines (``verbose >= 1`` brings Tune's full
output back). Checks before Tune starts are in ``rl.experiments``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rllib_curling.errors import ConfigError
from rllib_curling.names import DEFAULT_MODULE_ID
from rllib_curling.rl.env_names import CURLING_ENVS, DC_ENVS, LEAGUE_ENV_NAME
from rllib_curling.rl.experiments import (
    ExperimentSpec,
    check_algorithm,
    check_config_keys,
    check_dc_env_config,
    check_env,
    check_env_config,
    check_resources,
)
from rllib_curling.rl.registration import register

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.tune import ResultGrid

#: Columns of the progress table: result key -> header.
PROGRESS = {
    "training_iteration": "iter",
    "time_total_s": "time (s)",
    "num_env_steps_sampled_lifetime": "env steps",
    "curling/env_steps_per_s": "steps/s",
    "env_runners/win_rate": "win rate",
    "env_runners/episode_return_mean": "mean return",
    "curling/opponent": "opponent",
}
#: Printed when joining a cluster fails on Ray's token authentication (Ray 2.60).
AUTH_HINT = (
    "this Ray cluster uses token authentication: set RAY_AUTH_MODE=token on every `ray start` "
    '(head and workers) and for `rllib train` too (README, "More than one machine")'
)


def quiet(verbose: int) -> None:
    """Below ``-v``: Ray's and RLlib's own log lines (warnings included) stay out of the output."""
    if not verbose:
        import ray.rllib  # noqa: F401  (sets its own logger's level on import: set ours after)

        for name in ("ray", "ray.rllib", "ray.tune"):
            logging.getLogger(name).setLevel(logging.ERROR)


def init_ray(address: str | None = None, num_cpus: int | None = None, verbose: int = 0) -> None:
    """Start (or, with ``address``, join) Ray; quiet (warnings only, in every process) unless
    ``verbose``.

    Joining a cluster that cannot be joined raises ``ConfigError``: one line, with the fix when
    the cluster refused our token (Ray's C++ client reports that only as repeated log lines on
    stderr, which are caught here instead of flooding the terminal).
    """
    import ray

    if ray.is_initialized():
        return
    kwargs: dict[str, Any] = {"ignore_reinit_error": True}
    if address:
        kwargs["address"] = address
    else:
        kwargs.update(num_cpus=num_cpus, include_dashboard=False)
    if not verbose:  # Tune's table is the output; errors still reach the user (error files)
        kwargs.update(logging_level="error", log_to_driver=False)
        kwargs["logging_config"] = ray.LoggingConfig(log_level="ERROR")
    if not address:
        ray.init(**kwargs)
        return
    with tempfile.TemporaryFile() as captured:
        try:
            with _stderr_to(captured):
                ray.init(**kwargs)
        except Exception as exc:
            captured.seek(0)
            log = captured.read().decode(errors="replace")
            if verbose:
                sys.stderr.write(log)
            if "InvalidAuthToken" in log + repr(exc) or type(exc).__name__ == "AuthenticationError":
                raise ConfigError(
                    f"the Ray cluster at {address} refused to authenticate us; {AUTH_HINT}"
                ) from exc
            raise ConfigError(f"cannot join the Ray cluster at {address}: {exc}") from exc
        if verbose:
            captured.seek(0)
            sys.stderr.write(captured.read().decode(errors="replace"))


@contextlib.contextmanager
def _stderr_to(file: IO[bytes]) -> Iterator[None]:
    """Send file descriptor 2 (where C++ libraries log) to ``file`` for the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        os.dup2(file.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def build_config(spec: ExperimentSpec) -> AlgorithmConfig:
    """The trial's config, checked (see ``rl.experiments``): an ``AlgorithmConfig``.

    For the curling envs the base is ``algorithm_configs.algorithm_config`` (the curling
    network, sized for small machines); other envs start from the algorithm's stock defaults.
    Dict keys are applied with ``update_from_dict`` (``{"grid_search": [...]}`` values stay for
    Tune).
    """
    from ray.tune.registry import get_trainable_cls

    from rllib_curling.rl.algorithm_configs import algorithm_config, dc_algorithm_config

    register()  # again: a ray.shutdown() since the import empties Ray's registry
    algo = check_algorithm(spec)
    check_env(spec.env, spec)
    if not isinstance(spec.config, dict):  # an AlgorithmConfig from a Python file
        config = spec.config.environment(spec.env) if spec.env else spec.config
        check_env(config.env, spec)
        if config.env in CURLING_ENVS:
            check_env_config(dict(config.env_config or {}), spec)
        if config.env in DC_ENVS:
            check_dc_env_config(dict(config.env_config or {}), spec)
        return config
    user = dict(spec.config)
    env = spec.env or user.pop("env", None)
    user.pop("env", None)
    check_env(env, spec)
    if env in CURLING_ENVS:
        env_config = dict(user.pop("env_config", None) or {})
        check_env_config(env_config, spec)
        if env == LEAGUE_ENV_NAME:
            from rllib_curling.rl.league import resolve_start_from

            env_config = resolve_start_from(env_config)
        base = algorithm_config(algo, env=env, env_config=env_config)
    elif env in DC_ENVS:
        env_config = dict(user.pop("env_config", None) or {})
        check_dc_env_config(env_config, spec)
        base = dc_algorithm_config(algo, env_config=env_config)
    else:
        base = get_trainable_cls(algo).get_default_config()
        if env:
            base = base.environment(env)
    check_config_keys(user, base, spec)
    config = base.update_from_dict(user) if user else base
    _absolute_input(config)
    return config


def _absolute_input(config: AlgorithmConfig) -> None:
    """Offline data folders (``input_``) relative to where ``rllib train`` runs, made absolute
    (Tune runs trials elsewhere); a missing one is a ``ConfigError``."""
    paths = config.input_
    if config.input_ == "sampler" or not isinstance(paths, str | list | tuple):
        return
    found = []
    for path in [paths] if isinstance(paths, str) else list(paths):
        if not isinstance(path, str) or "://" in path:
            found.append(path)
            continue
        local = Path(path).expanduser()
        if not local.exists():
            raise ConfigError(
                f"input_: no offline data at {path!r} (from {Path.cwd()}); make it with "
                f"`curling dataset {path}`"
            )
        found.append(str(local.resolve()))
    config.offline_data(input_=found)  # type: ignore[arg-type]  # a list, as RLlib's docs allow


def run_experiment(spec: ExperimentSpec, *, resume: bool = False, verbose: int = 0) -> str | None:
    """Run one experiment with Tune; return its best checkpoint (None if none was written)."""
    from ray import tune
    from ray.tune.registry import get_trainable_cls

    config = build_config(spec)
    trainable = get_trainable_cls(spec.run)
    check_resources(trainable, config)
    if spec.restore:
        config = _restore_on_init(config, spec.restore)
    if spec.start_from:
        if spec.restore:
            raise ConfigError("restore and start_from: give one (restore resumes a whole run)")
        config = _start_from_on_init(config, spec.start_from)
    storage = os.path.abspath(os.path.expanduser(spec.storage_path or "~/ray_results"))
    ckpt = {"checkpoint_at_end": True, **spec.checkpoint_config}
    reporter = None
    if not verbose:  # the compact table: Tune's classic reporter (its new one takes no columns)
        os.environ["RAY_AIR_NEW_OUTPUT"] = "0"
        reporter = tune.CLIReporter(
            metric_columns=PROGRESS, max_report_frequency=30, print_intermediate_tables=True
        )
    if spec.run is None:
        raise ConfigError("no algorithm: give --run ALGO (or run: in the file)")
    if resume:
        tuner = tune.Tuner.restore(str(Path(storage) / spec.name), trainable=spec.run)
    else:
        tuner = tune.Tuner(
            spec.run,  # registered (the curling-aware class): trials are named PPO_curling_...
            param_space=config.to_dict(),  # what Tune makes of a config object
            tune_config=tune.TuneConfig(num_samples=int(spec.num_samples)),
            run_config=tune.RunConfig(
                name=spec.name,
                storage_path=storage,
                stop=spec.stop or None,
                checkpoint_config=tune.CheckpointConfig(**ckpt),
                verbose=2 if verbose else 1,
                progress_reporter=reporter,
            ),
        )
    where = Path(storage) / spec.name
    print(f"[{spec.name}] {spec.run} on {getattr(config, 'env', spec.env)}, results in {where}"
          + ("" if verbose else " (-v: Ray's full output)"), flush=True)  # fmt: skip
    results = tuner.fit()
    return _best_checkpoint(results)


def _best_checkpoint(grid: ResultGrid) -> str | None:
    """The checkpoint ``find_checkpoint`` takes of the run's trials: that of the best trial
    (``rl.checkpoints.best_trial``), its best evaluated one when the run evaluated, else its
    newest; None when no trial wrote one."""
    from rllib_curling.rl.checkpoints import best_trial, trial_checkpoint

    results = [grid[i] for i in range(len(grid))]
    for result in results:
        if result.error:
            print(f"trial failed: {result.error}")
    trials = [Path(r.path) for r in results if any(Path(r.path).glob("checkpoint_*"))]
    return str(trial_checkpoint(best_trial(trials))) if trials else None


def _restore_on_init(config: AlgorithmConfig, checkpoint: str) -> AlgorithmConfig:
    """Make every trial start from ``checkpoint`` (the former ``--restore``)."""
    from rllib_curling.rl.checkpoints import find_checkpoint

    path = str(find_checkpoint(checkpoint))

    def restore(algorithm: Algorithm, **_: object) -> None:
        algorithm.restore_from_path(path)

    return config.callbacks(on_algorithm_init=restore)


def _start_from_on_init(config: AlgorithmConfig, checkpoint: str) -> AlgorithmConfig:
    """Every trial's policy starts with the weights of ``checkpoint``'s (``start_from``)."""
    from rllib_curling.rl.checkpoints import find_checkpoint, start_module_from

    try:
        path = str(find_checkpoint(checkpoint))
    except (FileNotFoundError, ValueError) as exc:
        raise ConfigError(f"start_from: {exc}") from None

    from rllib_curling.env.league import LEARNER

    module_id = LEARNER if config.env == LEAGUE_ENV_NAME else DEFAULT_MODULE_ID

    def start(algorithm: Algorithm, **_: object) -> None:
        start_module_from(algorithm, path, module_id)

    return config.callbacks(on_algorithm_init=start)
