"""Experiments of ``rllib train``: a typed spec read from flags, YAML or Python files, checked in
the driver before Tune starts, so that a mistake ends the command in seconds with one line.

A YAML file maps experiment names to specs (the 1.x ``rllib train -f`` format)::

    curling-ppo:
      run: PPO                      # the algorithm
      env: curling                  # a registered env, a Gymnasium id, or a class path
      stop: {time_total_s: 1800}    # Tune stop criteria
      checkpoint_config: {checkpoint_frequency: 5, checkpoint_at_end: true, num_to_keep: 3}
      num_samples: 1
      storage_path: results         # optional, as --storage-path
      restore: CHECKPOINT           # optional, every trial resumes that algorithm's state
      start_from: CHECKPOINT        # optional, every trial's policy starts with its weights
                                    #   (any curling run's, e.g. BC's or MARWIL's, for PPO)
      config:                       # AlgorithmConfig keys (update_from_dict)
        env_config: {opponent: 2}
        lr: 3.0e-4

What is checked (``ConfigError`` naming the file, the experiment and the key, with the valid
choices): the keys of the spec and of ``checkpoint_config``; the algorithm; the env; every key of
``config`` (RLlib would silently set a misspelt one); ``env_config`` and the network's
``model_config`` of curling runs. YAML syntax errors become ``file:line:column: problem``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rllib_curling.errors import ConfigError, did_you_mean, refuse_unknown_keys

#: Keys of ``checkpoint_config`` (``ray.tune.CheckpointConfig``).
CHECKPOINT_KEYS = (
    "checkpoint_frequency", "checkpoint_at_end", "num_to_keep", "checkpoint_score_attribute",
    "checkpoint_score_order",
)  # fmt: skip
#: ``config`` keys that are not AlgorithmConfig attributes but that update_from_dict takes.
EXTRA_CONFIG_KEYS = ("env", "env_config", "model", "multiagent", "callbacks", "evaluation_config")


@dataclass
class ExperimentSpec:
    """One experiment. ``config`` is a dict of AlgorithmConfig keys, or an ``AlgorithmConfig``
    (from a Python file). ``source`` names where it came from, for error messages."""

    name: str
    run: str | None = None
    env: str | None = None
    stop: dict[str, Any] = field(default_factory=dict)
    config: Any = field(default_factory=dict)
    checkpoint_config: dict[str, Any] = field(default_factory=dict)
    num_samples: int = 1
    storage_path: str | None = None
    restore: str | None = None
    start_from: str | None = None
    source: str = ""  # the file it came from; "" = the command line

    @classmethod
    def from_mapping(cls, name: str, values: Any, source: str) -> ExperimentSpec:
        """A spec from one YAML entry; unknown keys (at every level we own) are errors."""
        where = f"{source}: experiment {name!r}"
        if not isinstance(values, dict):
            raise ConfigError(f"{where} must be a mapping of {spec_keys()}, got {values!r}")
        refuse_unknown_keys(values, spec_keys(), where=where)
        refuse_unknown_keys(values.get("checkpoint_config") or {}, CHECKPOINT_KEYS,
                            where=f"{where} checkpoint_config")  # fmt: skip
        for key in ("stop", "config", "checkpoint_config"):
            if values.get(key) is not None and not isinstance(values[key], dict):
                raise ConfigError(f"{where}: {key} must be a mapping, got {values[key]!r}")
        fields = {k: v for k, v in values.items() if v is not None}
        return cls(name=name, source=source, **fields)


def spec_keys() -> list[str]:
    """The keys an experiment entry may have."""
    return [f.name for f in dataclasses.fields(ExperimentSpec) if f.name not in ("name", "source")]


def read_experiment_file(path: str | Path) -> list[ExperimentSpec]:
    """The experiments of a YAML file, or of a Python file that defines ``config`` (an
    ``AlgorithmConfig``) and maybe ``stop``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no such experiment file: {path}")
    if path.suffix == ".py":
        namespace: dict[str, Any] = {"__file__": str(path), "__name__": "__rllib_config__"}
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
        config = namespace.get("config")
        if config is None or not hasattr(config, "algo_class"):
            raise ConfigError(f"{path} must define `config` (an AlgorithmConfig)")
        run = config.algo_class.__name__.removeprefix("Curling") if config.algo_class else None
        stop = namespace.get("stop") or {}
        return [ExperimentSpec(name=path.stem, run=run, config=config, stop=stop,
                               source=str(path))]  # fmt: skip
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ConfigError(f"{where}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{path} must map experiment names to {{{', '.join(spec_keys())}}}")
    return [ExperimentSpec.from_mapping(str(name), values, str(path))
            for name, values in data.items()]  # fmt: skip


# -- checks in the driver, before Tune starts ------------------------------------------------------


def check_algorithm(spec: ExperimentSpec) -> str:
    """The spec's algorithm, known to RLlib; ``ConfigError`` listing the valid names otherwise."""
    from ray.rllib.algorithms.registry import ALGORITHMS

    from rllib_curling.rl.trainables import ALGORITHMS as OURS

    if not spec.run:
        raise ConfigError(f"{_where(spec)}no algorithm: give --run ALGO (or run: in the file)")
    valid = sorted(set(OURS) | {a for a in ALGORITHMS if not a.startswith("_")})
    if spec.run not in valid:
        raise ConfigError(
            f"{_where(spec)}unknown algorithm {spec.run!r}{did_you_mean(spec.run, valid)}; "
            f"valid: {', '.join(valid)}"
        )
    return spec.run


def _where(spec: ExperimentSpec) -> str:
    """``"FILE: experiment NAME: "`` for a spec from a file, ``""`` for the command line."""
    return f"{spec.source}: experiment {spec.name!r}: " if spec.source else ""


def check_env(env: Any, spec: ExperimentSpec) -> None:
    """``env`` must be a registered env, a Gymnasium id or a class path (or an env class)."""
    if env is None or not isinstance(env, str):
        return
    import gymnasium
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from rllib_curling.rl.env_names import CURLING_ENVS, DC_ENVS

    if env in CURLING_ENVS + DC_ENVS or _global_registry.contains(ENV_CREATOR, env):
        return
    if "." in env or ":" in env:  # a class path, or a Gymnasium "module:Id-v0"
        return
    if env in gymnasium.registry:
        return
    known = [*CURLING_ENVS, *DC_ENVS, *sorted(gymnasium.registry)]
    raise ConfigError(
        f"{_where(spec)}unknown env {env!r}{did_you_mean(env, known)}; valid: "
        f"{', '.join(CURLING_ENVS + DC_ENVS)}, another env registered with "
        "ray.tune.register_env, a Gymnasium id such as CartPole-v1, or a class path such as "
        "my_pkg.envs.MyEnv"
    )


def check_config_keys(config: dict[str, Any], base: Any, spec: ExperimentSpec) -> None:
    """Every key of a dict config is an attribute of the algorithm's config (RLlib would set a
    misspelt key silently)."""
    valid = [k for k in vars(base) if not k.startswith("_")] + list(EXTRA_CONFIG_KEYS)
    for key in config:
        translated = base._translate_special_keys(key, warn_deprecated=False)
        if key in EXTRA_CONFIG_KEYS or key.startswith("evaluation_") or hasattr(base, translated):
            continue
        raise ConfigError(
            f"{_where(spec)}unknown config key {key!r}{did_you_mean(key, valid)}; see the "
            f"AlgorithmConfig of {spec.run} for the keys"
        )


def check_env_config(env_config: dict[str, Any], spec: ExperimentSpec) -> None:
    """Build ``CurlingEnvConfig`` from ``env_config`` (each grid-search value on its own); for
    ``curling_league`` its ``league`` key is a ``LeagueConfig`` (``env.league``)."""
    from rllib_curling.env.config import CurlingEnvConfig
    from rllib_curling.rl.env_names import LEAGUE_ENV_NAME

    if spec.env == LEAGUE_ENV_NAME or (spec.env is None and "league" in env_config):
        from rllib_curling.env.league import LeagueConfig

        env_config = dict(env_config)
        try:
            LeagueConfig.from_dict(env_config.pop("league", None))
        except ConfigError as exc:
            raise ConfigError(f"{_where(spec)}env_config: {exc}") from None
    _check_variants(env_config, spec, CurlingEnvConfig.from_dict)


def check_dc_env_config(env_config: dict[str, Any], spec: ExperimentSpec) -> None:
    """Build ``dc_env.DCEnvConfig`` from a DC env's ``env_config`` (each grid-search value on
    its own); ``ConfigError`` naming the file and experiment."""
    from rllib_curling.dc_env.config import DCEnvConfig

    _check_variants(env_config, spec, DCEnvConfig.from_dict)


def _check_variants(
    env_config: dict[str, Any], spec: ExperimentSpec, build: Callable[[dict[str, Any]], Any]
) -> None:
    """``build`` the env's config from ``env_config`` with each grid-search value on its own
    (the fixed keys alone first); ``ConfigError`` naming the file and experiment."""
    fixed = {k: v for k, v in env_config.items() if not _is_search(v)}
    variants = [fixed] + [
        {**fixed, key: value}
        for key, space in env_config.items() if _is_search(space)
        for value in space.get("grid_search", [])
    ]  # fmt: skip
    for values in variants:
        try:
            build(values)
        except ConfigError as exc:
            raise ConfigError(f"{_where(spec)}env_config: {exc}") from None


def _is_search(value: Any) -> bool:
    return isinstance(value, dict) and "grid_search" in value or hasattr(value, "sample")


def check_resources(algo_cls: Any, config: Any) -> None:
    """The trial must fit the Ray cluster: ``ConfigError`` saying what it needs otherwise."""
    import ray

    try:
        bundles = algo_cls.default_resource_request(config).bundles
    except Exception:  # noqa: BLE001 - a config RLlib cannot size is RLlib's error to raise
        return
    need = sum(b.get("CPU", 0.0) for b in bundles)
    have = ray.cluster_resources().get("CPU", 0.0)
    if need > have:
        runners = getattr(config, "num_env_runners", "?")
        raise ConfigError(
            f"each trial needs {need:g} CPUs (1 for the algorithm, 1 per env runner: "
            f"num_env_runners={runners}, plus learners), but the Ray cluster has {have:g}: "
            "lower num_env_runners (e.g. --config '{\"num_env_runners\": 1}') or add CPUs"
        )
