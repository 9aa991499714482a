"""The env's spaces, and the two translations between a client's view of a game and them:
``observe`` (what the server said → an observation) and ``throw_for`` (an action → a throw).

Both envs, the policy player (``curling play``, ``rllib evaluate``) and the benchmarks use these,
so a trained policy sees and acts exactly as it did in training.

| function                   | returns                                                     |
|----------------------------|-------------------------------------------------------------|
| ``observation_space(mode)``| ``Box(-4, 4, (168,), float32)`` laid out as ``observation``; |
|                            | for ``action="shots"`` a ``Dict`` of it (``"observations"``)|
|                            | and ``"action_mask"``: ``Box(0, 1, (N_SHOTS,), float32)``, 1 |
|                            | where the shot is legal (``aiming.shots.legal_shots``)      |
| ``action_space(config)``   | ``Box(-1, 1, (3,))`` / ``(4,)`` with sweep,                  |
|                            | ``Discrete(len(TEMPLATES))`` for ``action="discrete"``,      |
|                            | ``Discrete(N_SHOTS)`` for ``action="shots"``, or             |
|                            | ``throw_space(sweep)`` for ``action="throw"``                |
| ``action_mode(space)``     | ``("continuous" | "discrete" | "shots" | "throw", sweep)``  |
|                            | of a space                                                  |
| ``check_action(a, space)`` | ``a`` checked (``InvalidActionError`` if it does not fit):  |
|                            | an int index, or a float64 array of the Box's shape         |
| ``my_parity(client)``      | 0 if the client throws first in this end (even rows), else 1 |
| ``observe(client, mode)``  | the observation of the game as the client last saw it      |
| ``throw_for(action, ...)`` | the throw ``(v, h, w, sweep)`` of an action                 |
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling import observation, sheet
from rllib_curling.aiming import shots
from rllib_curling.aiming.tables import ShotTables
from rllib_curling.aiming.templates import TEMPLATES, Throw
from rllib_curling.client import CurlingClient
from rllib_curling.env import actions
from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.errors import InvalidActionError
from rllib_curling.game import GameState

#: The keys of ``action="shots"``'s observations (RLlib's action-masking idiom).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


def observation_space(mode: str = "continuous") -> gym.Space:
    """The observation space of a curling env whose action mode is ``mode`` (layout in
    ``observation``): the flat Box, or for ``"shots"`` a Dict of it and the action mask."""
    box = gym.spaces.Box(
        observation.OBS_LOW, observation.OBS_HIGH, (observation.OBS_SIZE,), np.float32
    )
    if mode != "shots":
        return box
    mask = gym.spaces.Box(0.0, 1.0, (shots.N_SHOTS,), np.float32)
    return gym.spaces.Dict({OBSERVATIONS: box, ACTION_MASK: mask})


def action_space(config: CurlingEnvConfig) -> gym.Space:
    """The action space for ``config.action`` (and ``config.sweep``)."""
    if config.action == "discrete":
        return gym.spaces.Discrete(len(TEMPLATES))
    if config.action == "shots":
        return gym.spaces.Discrete(shots.N_SHOTS)
    if config.action == "throw":
        return throw_space(config.sweep)
    return gym.spaces.Box(-1.0, 1.0, (4 if config.sweep else 3,), np.float32)


def throw_space(sweep: bool = False) -> gym.spaces.Box:
    """``action="throw"``: the protocol's ``(v, h, w)`` (and sweep) within the platform's limits."""
    low = [0.0, -sheet.H_MAX, -sheet.W_MAX] + ([0.0] if sweep else [])
    high = [sheet.V_MAX, sheet.H_MAX, sheet.W_MAX] + ([sheet.SWEEP_MAX] if sweep else [])
    return gym.spaces.Box(np.array(low, np.float32), np.array(high, np.float32), dtype=np.float32)


def action_mode(space: gym.Space) -> tuple[str, bool]:
    """``("continuous" | "discrete" | "shots" | "throw", sweep)`` of a curling action space (a
    policy's)."""
    if isinstance(space, gym.spaces.Discrete):
        return ("shots" if int(space.n) == shots.N_SHOTS else "discrete"), False
    if isinstance(space, gym.spaces.Box) and space.shape in ((3,), (4,)):
        sweep = space.shape == (4,)
        return ("throw" if space == throw_space(sweep) else "continuous"), sweep
    raise ValueError(f"not a curling action space: {space}")


def check_action(action: Any, space: gym.Space) -> int | np.ndarray:
    """``action`` checked against a curling action space, before anything reaches the server:
    both envs call it first in ``step``, so a bad action leaves the game as it was.

    - ``Discrete(n)``: one integer in range: a Python int, a numpy integer, or an integer array
      of shape ``()`` or ``(1,)``; returned as an ``int``. Bools (Python's ``True`` is an int),
      floats (``3.0`` too: RLlib sends numpy integers, so a float means a mixed-up pipeline) and
      anything else are refused.
    - ``Box``: real numbers (int or float dtype; a list or tuple of them) of exactly the space's
      shape, all finite; returned as a new float64 array. Bools, complex numbers, strings,
      objects, other shapes, NaN and infinities are refused. Finite values outside the bounds
      pass: the action map clips them, as RLlib itself does with ``normalize_actions`` (its
      default) and as a policy sampling outside the Box needs.

    Anything else raises ``InvalidActionError`` (a ``ValueError``) in one line naming the value
    received and the space.
    """
    if isinstance(space, gym.spaces.Discrete):
        return _check_index(action, space)
    if isinstance(space, gym.spaces.Box):
        return _check_box(action, space)
    raise ValueError(f"not a curling action space: {space}")


def _check_index(action: Any, space: gym.spaces.Discrete) -> int:
    value = action
    if isinstance(value, np.ndarray) and value.shape in ((), (1,)):
        value = value.reshape(())[()]  # the numpy scalar inside
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise _refused(action, space, "an integer index is needed")
    low, high = int(space.start), int(space.start) + int(space.n) - 1
    if not low <= value <= high:
        raise _refused(action, space, f"the index must be in {low}..{high}")
    return int(value)


def _check_box(action: Any, space: gym.spaces.Box) -> np.ndarray:
    if isinstance(action, list | tuple) and any(isinstance(x, bool | np.bool_) for x in action):
        raise _refused(action, space, "bools are not numbers here")
    try:
        array = None if action is None or isinstance(action, str | bytes) else np.asarray(action)
    except ValueError:  # ragged nested sequences
        array = None
    if array is None or array.dtype.kind not in "iuf":
        got = type(action).__name__ if array is None else f"dtype {array.dtype}"
        raise _refused(action, space, f"real numbers (int or float dtype) are needed, not {got}")
    if array.shape != space.shape:
        raise _refused(action, space, f"shape {array.shape} instead of {space.shape}")
    if not np.isfinite(array).all():
        raise _refused(action, space, "NaN or infinity in it")
    return array.astype(np.float64)


def _refused(action: Any, space: gym.Space, why: str) -> InvalidActionError:
    """The one-line error for an action that does not fit ``space``."""
    if isinstance(action, np.ndarray):
        text = np.array2string(action, separator=", ", threshold=12, max_line_width=10**6)
        shown = f"array({text}, dtype={action.dtype})"
    else:
        shown = repr(action)
    shown = " ".join(shown.split())
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    return InvalidActionError(f"action {shown} does not fit the action space {space}: {why}")


def my_parity(client: CurlingClient, state: tuple[int, int, int, int] | None = None) -> int:
    """0 if the client's stones are the even rows of this end (it throws first), else 1;
    ``state`` (SETSTATE fields) of another moment of the end, default the last one."""
    state = client.state if state is None else state
    assert state is not None, "no SETSTATE received yet"
    shot, _, _, next_seat = state
    first = next_seat if shot % 2 == 0 else 1 - next_seat  # seat throwing first this end
    return 0 if first == client.seat else 1


def observe(client: CurlingClient, mode: str = "continuous") -> Any:
    """The observation (``observation_space(mode)``) of the game as ``client`` last saw it."""
    assert client.state is not None, "no SETSTATE received yet"
    shot, end, total, _ = client.state
    mine, theirs = client.totals
    obs = observation.encode_observation(
        client.position, shot, end, total, my_parity(client), mine - theirs
    )
    return _in_mode(obs, client.position, mode)


def observe_state(state: GameState, seat: int, mode: str = "continuous") -> Any:
    """The observation (``observation_space(mode)``) ``CurlingEnv`` gives the player in ``seat``
    of a game state (``game.GameState``): what ``observe`` gives that player's client there."""
    return _in_mode(observation.state_observation(state, seat), state.position, mode)


def _in_mode(obs: np.ndarray, position: np.ndarray, mode: str) -> Any:
    """The flat observation as ``mode`` shows it: with ``"shots"``, in a Dict with the legal
    shots of ``position`` (``ACTION_MASK``, 1.0 legal)."""
    if mode != "shots":
        return obs
    return {OBSERVATIONS: obs, ACTION_MASK: shots.legal_shots(position).astype(np.float32)}


def throw_for(action: Any, client: CurlingClient, mode: str, tables: ShotTables) -> Throw:
    """The throw (v, h, w, sweep) for an action of the given mode (``action_mode``), in the
    game as ``client`` last saw it (``action_throw``)."""
    if mode not in ("discrete", "shots"):
        return action_throw(action, mode, tables)
    shot = client.state[0] if client.state is not None else None
    return action_throw(action, mode, tables, client.position, my_parity(client), shot)


def action_throw(
    action: Any,
    mode: str,
    tables: ShotTables,
    position: np.ndarray | None = None,
    parity: int = 0,
    shot: int | None = None,
) -> Throw:
    """The throw (v, h, w, sweep) for an action of the given mode (``action_mode``): the one
    dispatch to ``env.actions``' maps. A discrete action (a template) needs the ``position``
    (throwing-order rows), the thrower's ``parity`` and the ``shot`` about to be thrown; a
    shot (``aiming.shots``) the position (a hit at a stone not in play is the throw-away)."""
    if mode == "throw":
        return actions.raw_throw(action)
    if mode == "shots":
        assert position is not None, "a shot needs the position"
        return shots.shot_throw(int(np.asarray(action).item()), position, tables)
    if mode == "discrete":
        assert position is not None, "a discrete action needs the position"
        index = int(np.asarray(action).item())
        return actions.discrete_throw(index, position, parity, tables, shot)
    return actions.continuous_throw(np.asarray(action), tables)
