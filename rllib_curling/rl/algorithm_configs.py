"""Ready-made RLlib configs: ``algorithm_config(algo)``, the curling network and batch sizes that
train on a 2-core machine as they are (the algorithm classes are in ``rl.trainables``, their
registration with Tune in ``rl.registration``; YAML experiments are read by ``rl.experiments``
and run by ``rl.tuning``):

| algo   | stack   | network                    | sizes (per iteration)                        |
|--------|---------|----------------------------|----------------------------------------------|
| PPO    | new/old | ``CurlingActorCritic``     | 2000 steps, minibatch 250, 6 epochs          |
| IMPALA | new/old | ``CurlingActorCritic``     | batches of 500, learner in the driver,       |
|        |         |                            | samples awaited (``SAMPLER_WAIT_S``)         |
| APPO   | new/old | ``CurlingAPPOActorCritic`` | as IMPALA, plus target networks              |
| DQN    | new     | ``CurlingQNetwork``        | RLlib's defaults: batch 32, dueling+double-Q |
| BC     | new     | ``CurlingActorCritic``     | offline batches of 1024, one pre-learner,    |
|        |         |                            | data mapped once (``CurlingBCLearner``: soft |
|        |         |                            | targets, value head trained on results)      |
| MARWIL | new     | ``CurlingActorCritic``     | as BC; advantage-weighted, value trained     |

DQN, BC and MARWIL set ``env_config["action"] = "discrete"`` (the env's discretised shot table;
the offline data of ``curling dataset`` holds template indices). BC and MARWIL read the data of
``config.offline_data(input_=[folder])`` and use the env (no env runners) only to evaluate;
they train PPO's module, so PPO can start from their checkpoints. The old API stack
(``old_stack=True``) uses the ModelCatalog model ``"curling_net"`` (``CurlingModelV2``) and
``num_gpus=0``; it is offered for neither DQN (broken in RLlib 2.60) nor the offline algorithms.
The configs' algorithm classes are the curling-aware ones of ``rl.trainables`` (``TRAINABLES``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rllib_curling.errors import ConfigError
from rllib_curling.rl.env_names import DC_ENV_NAME, ENV_NAME

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.impala import IMPALAConfig


def _algorithm_classes() -> dict[str, tuple[type, type]]:
    """``{"PPO": (CurlingPPO, PPOConfig), ...}``: the curling-aware classes and their configs."""
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.bc import BCConfig
    from ray.rllib.algorithms.dqn import DQNConfig
    from ray.rllib.algorithms.impala import IMPALAConfig
    from ray.rllib.algorithms.marwil import MARWILConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    from rllib_curling.rl.trainables import ALGORITHMS, TRAINABLES

    configs = {"PPO": PPOConfig, "DQN": DQNConfig, "IMPALA": IMPALAConfig, "APPO": APPOConfig,
               "BC": BCConfig, "MARWIL": MARWILConfig}  # fmt: skip
    return {name: (TRAINABLES[name], configs[name]) for name in ALGORITHMS}


#: RLlib's ``gym_env_vectorize_mode`` for the curling env: its creator returns a
#: ``CurlingVectorEnv`` (``env.vector``).
VECTOR_MODE = "vector_entry_point"
#: How long IMPALA and APPO wait for their remote runners' samples in a training step (s).
#: RLlib's 0 polls them in a busy loop that takes a core from them: on 2 cores a first batch
#: of a fake env came after 28 s instead of 5 s.
SAMPLER_WAIT_S = 0.1


def _canonical(algo: str) -> str:
    from rllib_curling.rl.trainables import ALGORITHMS

    name = str(algo).upper()
    if name not in ALGORITHMS:
        raise ConfigError(f"unknown algorithm {algo!r}; valid: {', '.join(ALGORITHMS)}")
    return name


def algorithm_config(
    algo: str,
    *,
    env: Any = ENV_NAME,
    env_config: dict[str, Any] | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    model_config: dict[str, Any] | None = None,
    old_stack: bool = False,
) -> AlgorithmConfig:
    """An ``AlgorithmConfig`` for ``algo`` (``rl.trainables.ALGORITHMS``, any case) with the
    curling network (``model_config`` keys: ``rllib_curling.rl.models.DEFAULT_MODEL_CONFIG``).

    The fastest sampling path that fits: on the new API stack, with private servers
    (``server="auto"``, the default), each env runner's ``num_envs_per_env_runner`` envs are one
    ``CurlingVectorEnv`` (``gym_env_vectorize_mode="vector_entry_point"``: one server process
    per runner, every sub-env's throw sent before any reply is awaited).

    Change anything further with the usual ``config.training(...)`` etc. before ``build_algo()``.
    """
    from rllib_curling.rl.models import module_spec, network_name
    from rllib_curling.rl.network import MODEL_NAME, resolve_model_config
    from rllib_curling.rl.shot_network import resolve_shot_model_config
    from rllib_curling.rl.trainables import DISCRETE, OFFLINE, curling_defaults

    name = _canonical(algo)
    env_config = dict(env_config or {})
    if name in DISCRETE:
        if env_config.get("action", "discrete") not in ("discrete", "shots"):
            raise ConfigError(
                f"{name} needs discrete actions; got env_config action={env_config['action']!r} "
                "(drop it, or use 'discrete' or 'shots')"
            )
        env_config.setdefault("action", "discrete")
    network = network_name(env_config.get("action", "continuous"))
    if old_stack and name in OFFLINE:
        raise ConfigError(f"{name} runs on the new API stack only here; use old_stack=False")
    if name == "DQN":
        if old_stack:
            raise ConfigError(
                "DQN on the old API stack is broken in RLlib 2.60: its EpisodeReplayBuffer check "
                "fails ('TypeError: argument of type 'ABCMeta' is not iterable' in "
                "Algorithm._create_local_replay_buffer_if_necessary). Use old_stack=False."
            )
    if network == MODEL_NAME:
        model_config = resolve_model_config(model_config)
    else:
        model_config = resolve_shot_model_config(model_config)
        if old_stack:
            raise ConfigError("action='shots' runs on the new API stack only")
    config = _stock_config(name, env, env_config, num_env_runners, num_envs_per_env_runner)
    if name in OFFLINE:  # the learner's pipeline reads the data; the env gives its spaces
        from rllib_curling.env.config import CurlingEnvConfig
        from rllib_curling.env.spaces import action_space, observation_space

        config.environment(
            observation_space=observation_space(env_config["action"]),
            action_space=action_space(CurlingEnvConfig.from_dict(env_config)),
        ).env_runners(num_env_runners=0)
    elif not old_stack and env == ENV_NAME and env_config.get("server", "auto") == "auto":
        config.env_runners(gym_env_vectorize_mode=VECTOR_MODE)
    if old_stack:
        config.api_stack(
            enable_rl_module_and_learner=False, enable_env_runner_and_connector_v2=False
        )
        config.training(model={"custom_model": MODEL_NAME, "custom_model_config": model_config})
    else:
        config.rl_module(rl_module_spec=module_spec(name, network, **model_config))
    return curling_defaults(name, config)  # metrics (curling env), old-stack model, DQN actions


#: The algorithms ``dc_algorithm_config`` offers (their modules need only ``ValueFunctionAPI``;
#: BC reads a DC dataset, ``curling dataset --ice dc``).
DC_ALGORITHMS = ("PPO", "IMPALA", "BC")


#: ``DCBCLearner``'s settings for BC on ``"curling_dc"``: the end-score head is
#: trained too (the DC agent's search reads it: ``agent.dc_search``).
DC_OFFLINE_LOSS = {"end_score_coeff": 1.0}


def dc_algorithm_config(
    algo: str,
    *,
    env_config: dict[str, Any] | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    model_config: dict[str, Any] | None = None,
) -> AlgorithmConfig:
    """An ``AlgorithmConfig`` for ``algo`` (``DC_ALGORITHMS``) on the DC env ``"curling_dc"``
    (``dc_env.DCCurlingEnv``, in process: no servers), sized for 2 cores as
    ``algorithm_config``: with ``action="shots"`` (the default) the masked actor-critic
    ``rl.dc_models.DCMaskedActorCritic`` (``model_config``: its ``hidden`` widths), with
    ``"throw"`` RLlib's default MLP. ``ConfigError`` for a bad ``env_config`` or algorithm.

    BC (``action="shots"`` only) clones the teacher of a DC dataset (``curling dataset --ice
    dc``; set the folder with ``config.offline_data(input_=[folder])``): stock BC with
    ``rl.dc_learner.DCBCLearner`` (the teacher's shot, the value head on the games' ``result``,
    the end-score head on the ends' ``end_points``: ``DC_OFFLINE_LOSS``; half of each batch
    mirrored), no env runners, the DC env's spaces given directly; it trains the module PPO
    uses, so PPO can start from its checkpoint (``start_from``)."""
    from rllib_curling.dc_env.config import DCEnvConfig
    from rllib_curling.rl.dc_models import dc_module_spec
    from rllib_curling.rl.trainables import OFFLINE

    name = str(algo).upper()
    if name not in DC_ALGORITHMS:
        raise ConfigError(f"{DC_ENV_NAME} trains with {', '.join(DC_ALGORITHMS)}; got {algo!r}")
    env_config = dict(env_config or {})
    dc_config = DCEnvConfig.from_dict(env_config)
    action = dc_config.action
    if name in OFFLINE and action != "shots":
        raise ConfigError(f"{name} on {DC_ENV_NAME} needs action='shots', got {action!r}")
    config = _stock_config(name, DC_ENV_NAME, env_config, num_env_runners, num_envs_per_env_runner)
    spec = dc_module_spec(action, **(model_config or {}))
    if spec is not None:
        config.rl_module(rl_module_spec=spec)
    if name in OFFLINE:  # the learner's pipeline reads the data; the env gives its spaces
        from rllib_curling.dc_env.spaces import action_space, observation_space
        from rllib_curling.rl.dc_learner import DCBCLearner

        config.environment(observation_space=observation_space(action),
                           action_space=action_space(dc_config))  # fmt: skip
        config.env_runners(num_env_runners=0).learners(
            learner_class=DCBCLearner, learner_config_dict=dict(DC_OFFLINE_LOSS)
        )
    return config


def _stock_config(
    name: str, env: str, env_config: dict[str, Any], runners: int, envs_per_runner: int
) -> AlgorithmConfig:
    """Stock ``name``'s config on ``env`` in torch, with its env runners, sized (``_size``)."""
    algo_cls, config_cls = _algorithm_classes()[name]
    config = (
        config_cls(algo_class=algo_cls)
        .environment(env, env_config=env_config)
        .framework("torch")
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=envs_per_runner)
    )
    _size(config, name)
    return config


def _size(config: AlgorithmConfig, name: str) -> None:
    """Batch sizes and resources that fit 2 CPU cores (new- and old-stack keys alike)."""
    from rllib_curling.rl.trainables import OFFLINE

    config.learners(num_learners=0, num_gpus_per_learner=0)
    if name == "PPO":
        config.training(
            train_batch_size_per_learner=2000,
            train_batch_size=2000,
            minibatch_size=250,
            num_epochs=6,
            lr=3.0e-4,
        )
    elif name in ("IMPALA", "APPO"):
        # num_learners=0: a learner actor would need a third CPU and IMPALA would hang.
        cast("IMPALAConfig", config).training(  # APPOConfig is an IMPALAConfig
            train_batch_size_per_learner=500,
            train_batch_size=500,
            timeout_s_sampler_manager=SAMPLER_WAIT_S,
        )
    elif name in OFFLINE:
        # Ray Data runs the data pipeline outside a Tune trial's placement group, on the CPUs
        # the trial leaves: RLlib's default of two pre-learner actors of a CPU each would take
        # the last CPU of 2 and the reads would wait for one forever. So one actor that takes
        # no CPU, and reads of half a CPU. num_learners=0 needs dataset_num_iters_per_learner.
        config.training(train_batch_size_per_learner=1024, lr=1.0e-3)
        config.offline_data(
            dataset_num_iters_per_learner=20,
            map_batches_kwargs={"concurrency": 1, "num_cpus": 0},
            input_read_method_kwargs={"ray_remote_args": {"num_cpus": 0.5}},
        )
        if name == "BC":  # its pre-learner needs no module: map the data once, keep it in memory
            config.offline_data(materialize_data=False, materialize_mapped_data=True)
    # DQN: RLlib's defaults (batch 32, 1000 steps before learning, dueling + double-Q) fit.
