"""Curling-aware PPO, DQN, IMPALA, APPO, BC and MARWIL: stock RLlib algorithms that give curling
runs the curling network and the curling metrics, whatever form the config comes in.

``import rllib_curling.rl`` registers these with Tune under the stock names
(``rl.registration.register_trainables``), so the course's
idioms work on Ray 2.60's new API stack::

    tune.run("PPO", config={"env": "curling"})                                  # or "IMPALA", ...
    tune.run("PPO", config={"env": "curling", "model": {"custom_model": "curling_net"}})
    tune.Tuner("DQN", param_space={"env": "curling"}).fit()
    rllib train --run APPO --env curling

A run is a *curling run* when its env is one of ``CURLING_ENVS`` or its model asks for
``custom_model: "curling_net"``. For those, :func:`curling_defaults` gives the config (unless the
user set their own):

| stack | what is added                                                                 |
|-------|-------------------------------------------------------------------------------|
| new   | ``rl_module_spec`` = the curling RLModule of the algorithm (``custom_model`` |
|       | and ``custom_model_config`` move into it: RLlib would refuse them here);       |
|       | ``CurlingMetrics`` beside any callbacks of the user (single-agent env)        |
| new   | ``"curling_league"``: modules ``{"main"}`` trained, the identity mapping fn  |
|       | and ``LeagueCallback`` (``rl.league.configure_league``)                       |
| new   | ``"curling_multi"``, ``"curling_league"``: ``env_runner_cls`` =               |
|       | ``rl.env_runners.CurlingMultiAgentEnvRunner`` (games stepped together)        |
| old   | ``model.custom_model = "curling_net"`` (the ModelCatalog ModelV2), no GPUs     |
| DQN, BC, MARWIL | ``env_config.action = "discrete"`` (discrete actions, template indices) |
| BC    | ``learner_class`` = ``rl.learners.CurlingBCLearner`` (soft targets, a value   |
|       | head trained on results) unless the user set one                              |

Their checkpoints also keep the curriculum's stage (``CURLING_STATE`` in the algorithm's state,
``rl.callbacks.CurlingMetrics``), so a restored run resumes at its level.

Everything else (batch sizes, learning rates, runners) stays as the user or RLlib set it; for
ready-made settings that fit a small machine use ``rl.algorithm_configs.algorithm_config``.
Other envs run exactly as stock RLlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
from ray.rllib.algorithms.appo import APPO
from ray.rllib.algorithms.bc import BC
from ray.rllib.algorithms.dqn import DQN
from ray.rllib.algorithms.impala import IMPALA
from ray.rllib.algorithms.marwil import MARWIL
from ray.rllib.algorithms.ppo import PPO
from ray.rllib.utils.annotations import override

from rllib_curling.rl.callbacks import CurlingMetrics
from rllib_curling.rl.env_names import CURLING_ENVS, ENV_NAME, LEAGUE_ENV_NAME, MULTI_AGENT_ENV_NAME
from rllib_curling.rl.network import MODEL_NAME

#: Algorithms that learn from offline data (``curling dataset``: template indices).
OFFLINE = ("BC", "MARWIL")
#: Algorithms that need the env's discrete actions: DQN's Q-network, and the offline ones.
DISCRETE = ("DQN", *OFFLINE)


def is_curling_run(config: AlgorithmConfig) -> bool:
    """True when the config's env is a curling env or its model asks for the curling network."""
    env = config.env if isinstance(config.env, str) else None
    return env in CURLING_ENVS or (config.model or {}).get("custom_model") == MODEL_NAME


def curling_defaults(algo: str, config: AlgorithmConfig) -> AlgorithmConfig:
    """Give a curling run of ``algo`` the curling network and metrics (see the module table).

    Modifies and returns ``config``; anything else is returned unchanged.
    """
    if not is_curling_run(config):
        return config
    model = dict(config.model or {})
    custom = model.pop("custom_model", None)
    user_model_config = dict(model.pop("custom_model_config", None) or {})
    env_config = dict(config.env_config or {})
    if algo in DISCRETE:
        env_config.setdefault("action", "discrete")
        config.environment(env_config=env_config)
    if not config.enable_rl_module_and_learner:  # the old API stack: the ModelCatalog model
        from rllib_curling.rl.model_v2 import register_model

        register_model()
        config.training(model={**model, "custom_model": MODEL_NAME,
                               "custom_model_config": user_model_config})  # fmt: skip
        config.resources(num_gpus=0)
        return config
    if custom is not None or user_model_config:  # RLlib refuses both on the new stack
        config.training(model={**model, "custom_model": None, "custom_model_config": {}})
    from rllib_curling.rl.models import module_spec, network_name

    network = network_name(env_config.get("action", "continuous"))
    spec = config._rl_module_spec
    if spec is None:
        config.rl_module(rl_module_spec=module_spec(algo, network, **user_model_config))
    elif user_model_config and _is_curling_spec(spec):  # e.g. a YAML's over algorithm_config's
        merged = {**(spec.model_config or {}), **user_model_config}
        config.rl_module(rl_module_spec=module_spec(algo, network, **merged))
    if algo == "BC" and config._learner_class is None:
        config.learners(learner_class=learner_for(network, config.learner_config_dict))
    if config.env in (MULTI_AGENT_ENV_NAME, LEAGUE_ENV_NAME) and config.env_runner_cls is None:
        from rllib_curling.rl.env_runners import CurlingMultiAgentEnvRunner

        config.env_runners(env_runner_cls=CurlingMultiAgentEnvRunner)
    if config.env == ENV_NAME:
        add_curling_metrics(config)
    elif config.env == LEAGUE_ENV_NAME:
        from rllib_curling.rl.league import configure_league

        configure_league(config)
    return config


def _is_curling_spec(spec: Any) -> bool:
    """Whether ``spec`` is an ``RLModuleSpec`` of one of the curling networks (``models``)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from rllib_curling.rl.models import MODULES

    ours = {cls for by_algo in MODULES.values() for cls in by_algo.values()}
    return isinstance(spec, RLModuleSpec) and spec.module_class in ours


def add_curling_metrics(config: AlgorithmConfig) -> None:
    """Add ``CurlingMetrics`` to the config's callbacks (keeping the user's)."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    current = config.callbacks_class
    classes = list(current) if isinstance(current, list | tuple) else [current]
    classes = [c for c in classes if c is not RLlibCallback]
    if CurlingMetrics not in classes:
        config.callbacks(callbacks_class=[*classes, CurlingMetrics] if classes else CurlingMetrics)


def _as_config(algo_cls: type[Algorithm], config: Any, env: Any) -> Any:
    """The user's config as an ``AlgorithmConfig`` with curling defaults (as RLlib would)."""
    if config is None:
        return config
    if isinstance(config, dict):
        config = algo_cls.get_default_config().update_from_dict(config)
    elif isinstance(config, AlgorithmConfig):
        config = config.copy(copy_frozen=False)
    else:
        return config
    if env is not None:
        config.environment(env)
    return curling_defaults(algo_cls.__name__.removeprefix("Curling"), config)


if TYPE_CHECKING:  # the mixin stands in front of a stock Algorithm: type it as one
    _MixinBase = Algorithm
else:
    _MixinBase = object


class _CurlingDefaults(_MixinBase):
    """Mixin in front of a stock algorithm: the config gets :func:`curling_defaults` before the
    algorithm (or Tune, asking for its resources) sees it."""

    _stock: type[Algorithm]

    @override(Algorithm)
    def __init__(self, config: Any = None, env: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(_as_config(self._stock, config, env), env, *args, **kwargs)

    @classmethod
    @override(Algorithm)
    def default_resource_request(cls, config: Any) -> Any:
        return super().default_resource_request(_as_config(cls._stock, config, None))

    @override(Algorithm)
    def get_state(
        self, components: Any = None, *, not_components: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        state = super().get_state(components, not_components=not_components, **kwargs)
        metrics = _curling_metrics(self)
        if metrics is not None and self._check_component(CURLING_STATE, components, not_components):
            state[CURLING_STATE] = metrics.get_curriculum_state()
        return state

    @override(Algorithm)
    def set_state(self, state: dict[str, Any]) -> None:
        super().set_state(state)
        metrics = _curling_metrics(self)
        if metrics is not None and CURLING_STATE in state:
            metrics.set_curriculum_state(self, state[CURLING_STATE])


#: The key of the curling callback's state (the curriculum's stage) in an algorithm's state.
CURLING_STATE = "curling"


def _curling_metrics(algorithm: Any) -> CurlingMetrics | None:
    callbacks = getattr(algorithm, "callbacks", None)
    found = [c for c in (callbacks if isinstance(callbacks, list) else [callbacks])
             if isinstance(c, CurlingMetrics)]  # fmt: skip
    return found[0] if found else None


class CurlingPPO(_CurlingDefaults, PPO):
    """PPO; curling runs get the curling network and metrics (module docstring)."""

    _stock = PPO


class CurlingDQN(_CurlingDefaults, DQN):
    """DQN; curling runs get the curling Q-network, metrics and discrete actions."""

    _stock = DQN


class CurlingIMPALA(_CurlingDefaults, IMPALA):
    """IMPALA; curling runs get the curling network and metrics (module docstring)."""

    _stock = IMPALA


class CurlingAPPO(_CurlingDefaults, APPO):
    """APPO; curling runs get the curling network and metrics (module docstring)."""

    _stock = APPO


class CurlingBC(_CurlingDefaults, BC):
    """BC (behaviour cloning on offline data, ``curling dataset``); curling runs train PPO's
    curling network, so PPO can start from the result."""

    _stock = BC


class CurlingMARWIL(_CurlingDefaults, MARWIL):
    """MARWIL (advantage-weighted cloning on offline data); curling runs train PPO's curling
    network (policy and value), so PPO can start from the result."""

    _stock = MARWIL


#: Tune names → the curling-aware classes (``rl.registration.register_trainables`` registers
#: them).
TRAINABLES: dict[str, type[Algorithm]] = {
    "PPO": CurlingPPO,
    "DQN": CurlingDQN,
    "IMPALA": CurlingIMPALA,
    "APPO": CurlingAPPO,
    "BC": CurlingBC,
    "MARWIL": CurlingMARWIL,
}
#: The algorithms with a curling-aware class (and a ready-made ``algorithm_config``).
ALGORITHMS = tuple(TRAINABLES)


def learner_for(network: str, learner_config_dict: dict[str, Any]) -> type:
    """BC's Learner for a network (``models.network_name``): ``CurlingShotLearner`` for the shot
    network, else ``CurlingBCLearner``; the settings are checked now, so a bad one fails in one
    line."""
    from rllib_curling.rl.learners import CurlingBCLearner, OfflineLossConfig
    from rllib_curling.rl.shot_learner import CurlingShotLearner, ShotLossConfig
    from rllib_curling.rl.shot_network import SHOT_MODEL_NAME

    if network == SHOT_MODEL_NAME:
        ShotLossConfig.of(learner_config_dict)
        return CurlingShotLearner
    OfflineLossConfig.of(learner_config_dict)
    return CurlingBCLearner
