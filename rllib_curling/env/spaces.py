"""The env's spaces, and the two translations between a client's view of a game and them:
``observe`` (what the server said → an observation) and ``throw_for`` (an action → a throw).

Both envs, the policy player (``curling play``, ``rllib evaluate``) and the benchmarks use these,
so a trained policy sees and acts exactly as it did in training.

| function                   | returns                                                     |
|----------------------------|-------------------------------------------------------------|
| ``observation_space()``    | ``Box(-4, 4, (120,), float32)`` laid out as ``observation`` |
| ``action_space(config)``   | ``Box(-1, 1, (3,))`` / ``(4,)`` with sweep, or              |
|                            | ``Discrete(len(TEMPLATES))`` for ``action="discrete"``       |
| ``action_mode(space)``     | ``("continuous" | "discrete", sweep)`` of an action space   |
| ``my_parity(client)``      | 0 if the client throws first in this end (even rows), else 1 |
| ``observe(client)``        | the observation of the game as the client last saw it      |
| ``throw_for(action, ...)`` | the throw ``(v, h, w, sweep)`` of an action                 |
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling import observation
from rllib_curling.aiming.tables import ShotTables
from rllib_curling.aiming.templates import TEMPLATES, Throw
from rllib_curling.client import CurlingClient
from rllib_curling.env import actions
from rllib_curling.env.config import CurlingEnvConfig


def observation_space() -> gym.spaces.Box:
    """The observation space of every curling env (layout in ``env.observation``)."""
    return gym.spaces.Box(
        observation.OBS_LOW, observation.OBS_HIGH, (observation.OBS_SIZE,), np.float32
    )


def action_space(config: CurlingEnvConfig) -> gym.Space:
    """The action space for ``config.action`` (and ``config.sweep``)."""
    if config.action == "discrete":
        return gym.spaces.Discrete(len(TEMPLATES))
    return gym.spaces.Box(-1.0, 1.0, (4 if config.sweep else 3,), np.float32)


def action_mode(space: gym.Space) -> tuple[str, bool]:
    """``("continuous" | "discrete", sweep)`` of a curling action space (a policy's)."""
    if isinstance(space, gym.spaces.Discrete):
        return "discrete", False
    if isinstance(space, gym.spaces.Box) and space.shape in ((3,), (4,)):
        return "continuous", space.shape == (4,)
    raise ValueError(f"not a curling action space: {space}")


def my_parity(client: CurlingClient, state: tuple[int, int, int, int] | None = None) -> int:
    """0 if the client's stones are the even rows of this end (it throws first), else 1;
    ``state`` (SETSTATE fields) of another moment of the end, default the last one."""
    state = client.state if state is None else state
    assert state is not None, "no SETSTATE received yet"
    shot, _, _, next_seat = state
    first = next_seat if shot % 2 == 0 else 1 - next_seat  # seat throwing first this end
    return 0 if first == client.seat else 1


def observe(client: CurlingClient) -> np.ndarray:
    """The observation (``env.observation``) of the game as ``client`` last saw it."""
    assert client.state is not None, "no SETSTATE received yet"
    shot, end, total, _ = client.state
    mine, theirs = client.totals
    return observation.encode_observation(
        client.position, shot, end, total, my_parity(client), mine - theirs
    )


def throw_for(action: Any, client: CurlingClient, mode: str, tables: ShotTables) -> Throw:
    """The throw (v, h, w, sweep) for an action of the given mode ("continuous"/"discrete")."""
    if mode == "discrete":
        index = int(np.asarray(action).item())
        return actions.discrete_throw(index, client.position, my_parity(client), tables)
    return actions.continuous_throw(np.asarray(action), tables)
