"""Fixtures of the RLlib-layer tests (a pytest plugin: ``pytest_plugins = ("rl_fixtures",)``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained curling RLModule with a small network, saved as ``find_checkpoint`` takes it."""
    import gymnasium as gym
    import numpy as np

    from rllib_curling.env.spaces import observation_space
    from rllib_curling.rl.models import module_spec

    spec = module_spec("ppo", stone_hiddens=[8], context_hiddens=[8], hiddens=[8])
    spec.observation_space = observation_space()
    spec.action_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    path = tmp_path_factory.mktemp("checkpoint") / "tiny"
    spec.build().save_to_path(str(path))
    return path
