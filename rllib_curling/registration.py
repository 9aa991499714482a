"""Registration of the env and the network with Gymnasium, Ray Tune and RLlib's ModelCatalog.

``import rllib_curling`` must make ``"curling"`` known to RLlib and ``"curling_net"`` known to the
ModelCatalog, but importing Ray costs over a second (and Gymnasium a few tenths) and
``curling server`` must start fast with numpy alone. So registration happens when the registry
is first imported: if it is already imported, at once; otherwise an import hook waits for
``ray.tune.registry`` (env), ``ray.rllib.models.catalog`` (model) and
``gymnasium.envs.registration`` (``Curling-v0``) and registers right after they load. Either way
the order of ``import ray`` / ``import gymnasium`` and ``import rllib_curling`` does not matter.
The id ``rllib_curling:Curling-v0`` makes gymnasium import this package, which then registers it
at once (also inside RLlib's env runner processes).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

ENV_NAME = "curling"
MULTI_AGENT_ENV_NAME = "curling_multi"
GYM_ID = "Curling-v0"
MODEL_NAME = "curling_net"


def _register_gymnasium(registration: ModuleType) -> None:
    """Register ``Curling-v0`` (usable as ``rllib_curling:Curling-v0``) with Gymnasium."""
    if GYM_ID not in registration.registry:
        registration.register(id=GYM_ID, entry_point="rllib_curling.env:CurlingEnv")


def _make_env(env_config: object) -> object:
    from rllib_curling.env import CurlingEnv

    return CurlingEnv.from_env_context(env_config)


def _make_multi_agent_env(env_config: object) -> object:
    from rllib_curling.multi_agent import CurlingMultiAgentEnv

    return CurlingMultiAgentEnv.from_env_context(env_config)


def _register_env(registry: ModuleType) -> None:
    registry.register_env(ENV_NAME, _make_env)
    registry.register_env(MULTI_AGENT_ENV_NAME, _make_multi_agent_env)


def _register_model(_catalog: ModuleType) -> None:
    from rllib_curling.models_v2 import register_model

    register_model()


_HOOKS: dict[str, Callable[[ModuleType], None]] = {
    "gymnasium.envs.registration": _register_gymnasium,
    "ray.tune.registry": _register_env,
    "ray.rllib.models.catalog": _register_model,
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback right after one of the watched modules has been executed."""

    def find_spec(self, name: str, path: object, target: object = None) -> object:
        callback = _HOOKS.get(name)
        if callback is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            original(module)
            callback(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_FINDER = _AfterImport()


def register_all() -> None:
    """Register everything now, or as soon as Gymnasium's or Ray's registries are imported."""
    for name, callback in _HOOKS.items():
        if name in sys.modules:
            callback(sys.modules[name])
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
