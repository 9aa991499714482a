"""``CurlingVectorEnv``: ``num_envs`` games of ``CurlingEnv`` stepped together, pipelined.

Each sub-env is a ``CurlingEnv`` with its own port: a room of **one** private ``curling server``
process that the vector env starts for all of them (``env.servers.PrivateServer``), so memory
and start-up are paid once per vector env, not once per game. ``step`` sends every sub-env's
throw first and only then waits for the replies, so the server plays the throws (and its bots'
answers) while this process turns earlier replies into observations; RLlib batches the
network's forward pass over the ``num_envs`` observations.

With RLlib (what ``rllib_curling.rl.algorithm_configs.algorithm_config`` sets up)::

    config.environment("curling", env_config={...})
    config.env_runners(num_envs_per_env_runner=8, gym_env_vectorize_mode="vector_entry_point")

The registered creator returns a ``CurlingVectorEnv`` when RLlib passes ``num_envs`` (its vector
entry point), a ``CurlingEnv`` otherwise.

## Semantics (Gymnasium ``VectorEnv``)

- Spaces: ``single_observation_space`` / ``single_action_space`` are ``CurlingEnv``'s; the
  batched ones add a leading ``num_envs`` axis.
- **Autoreset: next step** (``AutoresetMode.NEXT_STEP``, what RLlib's env runners expect): the
  ``step`` after a sub-env's episode ended ignores that sub-env's action, starts its next game and
  returns the game's first observation with reward 0, ``terminated = truncated = False``.
- Infos: Gymnasium's vector layout (a dict of arrays, with ``_key`` masks); RLlib turns it into
  one dict per sub-env.
- ``reset(seed=s)`` restarts the shared server seeded so that room ``i`` plays as a
  ``CurlingEnv`` reset with ``seed=s + i``: the same observations and rewards for the same
  actions (a list of seeds must be consecutive, ``[s, s + 1, ...]``).
- Opponent mixtures (``opponent`` a list or mapping): each sub-env draws its own opponent per
  pair of games; with ``reset(seed=s)`` sub-env ``i`` draws as a ``CurlingEnv`` seeded ``s + i``.
  ``set_opponents`` changes the mixture of every sub-env (the curriculum callback uses it).
- Actions are checked before anything is sent (``env.spaces.check_action`` for every row): a bad
  one raises ``InvalidActionError`` (a ``ValueError``) and no sub-env moves.
- A lost or hung server raises ``ConnectionLostError`` from ``step``/``reset`` (a hung one is
  killed, ``env.servers``); the next ``reset`` starts a new server for all sub-envs.
- Private servers only (``server="auto"``): RLlib's vector entry point tells the env no
  ``worker_index``, so servers from a list cannot be shared out; use
  ``gym_env_vectorize_mode="sync"`` with them.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.env.curling_env import CurlingEnv
from rllib_curling.env.servers import EnvServer, PrivateServer
from rllib_curling.env.spaces import check_action
from rllib_curling.errors import ConfigError, InvalidActionError


class CurlingVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` ``CurlingEnv`` games on one private server, stepped together (module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self, num_envs: int | None = None, config: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        values = {**dict(config or {}), **kwargs}
        num = values.pop("num_envs", None) if num_envs is None else num_envs
        values.pop("num_envs", None)
        if num is None:
            num = 1
        if isinstance(num, bool) or not isinstance(num, int | np.integer) or num < 1:
            raise ConfigError(f"num_envs must be an int >= 1, got {num!r}")
        self.config = CurlingEnvConfig.from_dict(values)
        if self.config.server != "auto":
            raise ConfigError(
                "CurlingVectorEnv plays on private servers (server='auto'); for servers you "
                f"started (server={self.config.server!r}) use gym_env_vectorize_mode='sync'"
            )
        self.num_envs = int(num)
        self._private = PrivateServer(self.config, rooms=self.num_envs)
        self.envs = [
            CurlingEnv(values, env_server=EnvServer(self.config, 0, private=self._private, room=i))
            for i in range(self.num_envs)
        ]
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._observations = create_empty_array(
            self.single_observation_space, n=self.num_envs, fn=np.zeros
        )

    @property
    def addresses(self) -> list[str | None]:
        """``"host:port"`` of each sub-env's room (None before the first reset)."""
        return [env.address for env in self.envs]

    def set_opponents(self, opponent: Any) -> None:
        """Every sub-env draws its opponents from ``opponent`` (``CurlingEnv.set_opponents``)."""
        for env in self.envs:
            env.set_opponents(opponent)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        base = self._base_seed(seed)
        if base is not None:
            for i, env in enumerate(self.envs):
                env.disconnect()
                env.seed_opponents(base + i)
            self._private.reseed(base)  # room i plays as a server seeded base + i
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(base)
        infos: dict[str, Any] = {}
        observations = []
        for i, env in enumerate(self.envs):
            obs, info = env.reset(options=options)
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        self._autoreset[:] = False
        return self._batch(observations), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        try:
            count = None if isinstance(actions, str | bytes) else len(actions)
        except TypeError:
            count = None
        if count != self.num_envs:
            raise InvalidActionError(
                f"actions {actions!r:.120} do not fit the action space {self.action_space}: "
                f"one action per sub-env ({self.num_envs}) is needed"
            )
        rows = [
            None if self._autoreset[i] else check_action(actions[i], self.single_action_space)
            for i in range(self.num_envs)
        ]  # all checked before any is sent
        for env, action in zip(self.envs, rows, strict=True):
            if action is not None:
                env.send_action(action)
        observations = []
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminateds = np.zeros(self.num_envs, dtype=bool)
        truncateds = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        for i, env in enumerate(self.envs):
            if rows[i] is None:  # its episode ended on the last step: its next game
                obs, info = env.reset()
            else:
                obs, rewards[i], terminateds[i], truncateds[i], info = env.finish_step()
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        self._autoreset = terminateds | truncateds
        return self._batch(observations), rewards, terminateds, truncateds, infos

    def close_extras(self, **kwargs: Any) -> None:
        for env in getattr(self, "envs", ()):  # not set when the constructor raised
            env.close()
        if hasattr(self, "_private"):
            self._private.stop()

    def _batch(self, observations: list[Any]) -> Any:
        """The sub-envs' observations as one batch (an array, or a dict of arrays for
        ``action="shots"``), a copy: the buffer is reused."""
        batch = concatenate(self.single_observation_space, observations, self._observations)
        self._observations = batch
        return copy.deepcopy(batch)

    def _base_seed(self, seed: int | list[int | None] | None) -> int | None:
        """The server seed of room 0 (module docstring), or None to keep the server."""
        if seed is None:
            return None
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            return int(seed)
        seeds: list[int | None] = list(seed)  # type: ignore[arg-type]  # a bool is no seed list
        if all(s is None for s in seeds):
            return None
        ints = [int(s) for s in seeds if isinstance(s, int | np.integer)]
        if (
            len(seeds) != self.num_envs
            or len(ints) != len(seeds)
            or any(s != ints[0] + i for i, s in enumerate(ints))
        ):
            raise ValueError(
                f"seed must be an int, None, or {self.num_envs} consecutive ints "
                f"[s, s + 1, ...] (one server seeds its rooms so), got {seed!r}"
            )
        return ints[0]
