"""`import rllib_curling` registers the env and the network, whatever the import order, and
stays light (no Ray, no Gymnasium) for `curling server`."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import__does_not_import_ray_or_gymnasium() -> None:
    code = "import sys, rllib_curling; print('ray' in sys.modules, 'gymnasium' in sys.modules)"
    assert _run(code) == "False False"


@pytest.mark.parametrize(
    "imports",
    [
        "import rllib_curling; import ray.tune.registry",
        "import ray.tune.registry; import rllib_curling",
    ],
)
def test_register__env_known_to_ray_in_either_order(imports: str) -> None:
    code = (
        f"{imports}\n"
        "from ray.tune.registry import _global_registry, ENV_CREATOR\n"
        "print(_global_registry.contains(ENV_CREATOR, 'curling'),"
        " _global_registry.contains(ENV_CREATOR, 'curling_multi'))"
    )
    assert _run(code) == "True True"


def test_register__model_known_to_the_modelcatalog() -> None:
    code = (
        "import rllib_curling\n"
        "from ray.rllib.models import ModelCatalog\n"
        "from ray.tune.registry import _global_registry, RLLIB_MODEL\n"
        "print(_global_registry.contains(RLLIB_MODEL, 'curling_net'))"
    )
    assert _run(code) == "True"


@pytest.mark.parametrize(
    "code",
    [
        "import gymnasium as gym; e = gym.make('rllib_curling:Curling-v0', opponent=0)",
        "import rllib_curling, gymnasium as gym; e = gym.make('Curling-v0', opponent=0)",
    ],
)
def test_register__gymnasium_id(code: str) -> None:
    assert _run(f"{code}; print(e.observation_space.shape)") == "(120,)"
