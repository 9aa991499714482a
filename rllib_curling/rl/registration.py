"""Registration with Ray: the env names, the ModelCatalog model and the Tune trainables.

Explicit, no import hooks: :func:`register` runs when ``rllib_curling.rl`` is imported (the
``rllib`` command and every module of this layer import it), and
``import rllib_curling`` imports ``rllib_curling.rl`` when Ray is already imported. After it:

| registry                         | names                          | what                         |
|----------------------------------|--------------------------------|------------------------------|
| Tune/RLlib envs (``env_names``)  | ``"curling"``                  | ``CurlingEnv``, or           |
|                                  |                                | ``CurlingVectorEnv`` (vector |
|                                  |                                | entry point: ``num_envs``)   |
|                                  | ``"curling_multi"``            | ``CurlingMultiAgentEnv``     |
|                                  | ``"curling_league"``           | ``CurlingLeagueEnv``         |
|                                  | ``"curling_dc"``               | ``DCCurlingEnv`` (DC's ice)  |
| RLlib ``ModelCatalog`` (old API) | ``"curling_net"``              | ``CurlingModelV2``           |
| Tune trainables                  | ``"PPO"``, ``"DQN"``,          | the curling-aware algorithms |
|                                  | ``"IMPALA"``, ``"APPO"``,      | (``rl.trainables``)          |
|                                  | ``"BC"``, ``"MARWIL"``         |                              |

Gymnasium's id ``rllib_curling:Curling-v0`` needs none of this: Gymnasium imports
``rllib_curling``, which registers ``Curling-v0`` (``rllib_curling.env.register_gymnasium``).

Ray keeps its registry in the cluster's store, which ``ray.shutdown()`` empties; call
:func:`register` again after a new ``ray.init()`` in the same process (it is idempotent).
"""

from __future__ import annotations

from typing import Any

from rllib_curling.rl.env_names import (
    CURLING_ENVS,
    DC_ENV_NAME,
    ENV_NAME,
    LEAGUE_ENV_NAME,
    MULTI_AGENT_ENV_NAME,
)
from rllib_curling.rl.network import MODEL_NAME

__all__ = [
    "CURLING_ENVS", "DC_ENV_NAME", "ENV_NAME", "LEAGUE_ENV_NAME", "MODEL_NAME",
    "MULTI_AGENT_ENV_NAME", "register", "register_envs", "register_trainables",
]  # fmt: skip


def _make_env(env_config: Any) -> Any:
    """``CurlingVectorEnv`` when RLlib's vector entry point asks for ``num_envs`` of them
    (``gym_env_vectorize_mode="vector_entry_point"``), else one ``CurlingEnv``."""
    if "num_envs" in env_config:
        from rllib_curling.env.vector import CurlingVectorEnv

        return CurlingVectorEnv(config=dict(env_config))
    from rllib_curling.env.curling_env import CurlingEnv

    return CurlingEnv.from_env_context(env_config)


def _make_multi_agent_env(env_config: Any) -> Any:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

    return CurlingMultiAgentEnv.from_env_context(env_config)


def _make_league_env(env_config: Any) -> Any:
    from rllib_curling.env.league import CurlingLeagueEnv

    return CurlingLeagueEnv.from_env_context(env_config)


def _make_dc_env(env_config: Any) -> Any:
    from rllib_curling.dc_env.dc_env import DCCurlingEnv

    return DCCurlingEnv.from_env_context(env_config)


def register_envs() -> None:
    """Register the curling envs (module table) with Tune (RLlib resolves env names there)."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, _make_env)
    register_env(MULTI_AGENT_ENV_NAME, _make_multi_agent_env)
    register_env(LEAGUE_ENV_NAME, _make_league_env)
    register_env(DC_ENV_NAME, _make_dc_env)


def register_trainables() -> list[str]:
    """Register the curling-aware algorithms (``rl.trainables.TRAINABLES``) with Tune under
    their stock names; returns the names.

    ``tune.run("PPO", config={"env": "curling"})`` then trains the curling network, and Tune
    resolves ``"PPO"`` without importing every RLlib algorithm. Safe to call again
    (re-registers, which also restores them after a ``ray.shutdown()``/``ray.init()``).
    """
    from ray import tune

    from rllib_curling.rl.trainables import TRAINABLES

    for name, algorithm_cls in TRAINABLES.items():
        tune.register_trainable(name, algorithm_cls)
    return list(TRAINABLES)


def register() -> None:
    """Register the envs, the ModelCatalog model and the trainables (see the module table)."""
    from rllib_curling.rl.model_v2 import register_model

    register_envs()
    register_model()
    register_trainables()
