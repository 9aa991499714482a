"""Registration is explicit and `import rllib_curling` stays light (no Ray, torch, Gymnasium):
`curling server` must start with numpy alone. Each check runs in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = "('ray', 'torch', 'gymnasium', 'matplotlib')"


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_import__loads_neither_ray_torch_gymnasium_nor_matplotlib() -> None:
    code = f"import sys, rllib_curling; print([m for m in {HEAVY} if m in sys.modules])"
    assert _run(code) == "[]"


def test_curling_server_help__loads_neither_ray_torch_gymnasium_nor_matplotlib() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from rllib_curling.cli.curling import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['server', '--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print([m for m in {HEAVY} if m in sys.modules])"
    )
    assert _run(code) == "[]"


def test_server_layers__load_neither_ray_torch_gymnasium_nor_matplotlib() -> None:
    code = (
        "import sys\n"
        "import rllib_curling.server, rllib_curling.client, rllib_curling.bots\n"
        "import rllib_curling.physics, rllib_curling.aiming.tables\n"
        f"print([m for m in {HEAVY} if m in sys.modules])"
    )
    assert _run(code) == "[]"


@pytest.mark.parametrize(
    "imports",
    [
        "import rllib_curling.rl; import ray.tune.registry",
        "import ray.tune.registry; import rllib_curling.rl",
        "import ray; import rllib_curling",  # Ray already in use: import rllib_curling registers
    ],
)
@pytest.mark.slow
def test_register__envs_and_trainables_known_to_ray(imports: str) -> None:
    code = (
        f"{imports}\n"
        "from ray.tune.registry import _global_registry, ENV_CREATOR, TRAINABLE_CLASS\n"
        "envs = ('curling', 'curling_multi')\n"
        "print(all(_global_registry.contains(ENV_CREATOR, e) for e in envs),"
        " _global_registry.contains(TRAINABLE_CLASS, 'PPO'))"
    )
    assert _run(code) == "True True"


@pytest.mark.slow
def test_register__model_known_to_the_modelcatalog() -> None:
    code = (
        "import rllib_curling.rl\n"
        "from ray.tune.registry import _global_registry, RLLIB_MODEL\n"
        "print(_global_registry.contains(RLLIB_MODEL, 'curling_net'))"
    )
    assert _run(code) == "True"


@pytest.mark.parametrize(
    "code",
    [
        "import gymnasium as gym; e = gym.make('rllib_curling:Curling-v0', opponent=0)",
        "import rllib_curling.env, gymnasium as gym; e = gym.make('Curling-v0', opponent=0)",
    ],
)
def test_register__gymnasium_id(code: str) -> None:
    from rllib_curling.observation import OBS_SIZE

    assert _run(f"{code}; print(e.observation_space.shape); e.close()") == f"({OBS_SIZE},)"
