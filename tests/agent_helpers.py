"""Helpers of the agent-layer tests (``rllib_curling.agent``): small saved networks to load, and
clients that have seen a game without connecting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling import observation
from rllib_curling.aiming.templates import TEMPLATE_NAMES
from rllib_curling.client import CurlingClient

THROW_AWAY = TEMPLATE_NAMES.index("throw away")
DRAW_BUTTON = TEMPLATE_NAMES.index("draw button w+")
OBS_SPACE = gym.spaces.Box(-4.0, 4.0, (observation.OBS_SIZE,), np.float32)
TEMPLATES = gym.spaces.Discrete(len(TEMPLATE_NAMES))
#: A small curling network (``rl.network``'s model config).
SMALL = {"stone_hiddens": [16, 16], "context_hiddens": [8], "hiddens": [32]}
#: A small shot network (``rl.shot_network``'s model config).
SMALL_SHOTS = {"width": 32, "layers": 1, "hiddens": [64], "channels": 8, "dilations": [1, 2]}


def saved_module(
    path: Path, algo: str = "ppo", space: gym.Space = TEMPLATES, **model_config: Any
) -> Path:
    """An untrained small curling RLModule of ``algo`` over the action ``space`` (templates by
    default), ``model_config`` over the small one, saved at ``path`` as ``find_checkpoint``
    takes it."""
    from rllib_curling.rl.models import module_spec

    spec = module_spec(algo, **{**SMALL, **model_config})
    spec.observation_space, spec.action_space = OBS_SPACE, space
    spec.build().save_to_path(path)
    return path


def saved_shot_module(path: Path, algo: str = "ppo") -> Path:
    """An untrained small shot network (``action="shots"``: the env's Dict observation with the
    action mask) of ``algo``, saved at ``path``."""
    from rllib_curling.aiming import shots
    from rllib_curling.env.spaces import observation_space
    from rllib_curling.rl.models import module_spec
    from rllib_curling.rl.shot_network import SHOT_MODEL_NAME

    spec = module_spec(algo, SHOT_MODEL_NAME, **SMALL_SHOTS)
    spec.observation_space = observation_space("shots")
    spec.action_space = gym.spaces.Discrete(shots.N_SHOTS)
    spec.build().save_to_path(path)
    return path


def seen_client(
    seat: int, state: tuple[int, int, int, int], end_scores: list[int], position: np.ndarray
) -> CurlingClient:
    """A client that has seen SETSTATE ``state`` and this game's SCOREs (its view), never
    connected."""
    client = CurlingClient("127.0.0.1", 1)
    client.seat, client.state, client.end_scores = seat, state, end_scores
    client.position = position
    return client


def last_stone_tied() -> CurlingClient:
    """Our hammer stone of the last end, the game tied and the house empty: a draw into the
    house wins the game, a throw-away draws it."""
    return seen_client(1, (15, 3, 4, 1), [1, -1, 2, -2], np.zeros((16, 2)))
