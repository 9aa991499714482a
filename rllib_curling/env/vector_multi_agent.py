"""``CurlingVectorMultiAgentEnv``: games of ``CurlingMultiAgentEnv`` (or ``CurlingLeagueEnv``)
stepped together, pipelined, as ``CurlingVectorEnv`` steps single-agent games.

RLlib 2.60's multi-agent env runner vectorizes only in "sync" mode: its
``SyncVectorMultiAgentEnv`` steps the sub-envs one after the other, so each game's server (a
private one per game) computes its bot's answer while the others wait. This class is that sync
vector env with one change in ``step``: every game's action is checked first (a bad one raises
``ValueError`` and no game moves), then every game's throw is sent, and only then are the
replies awaited, game by game. The servers (one process each) think at the same time, on as many
cores as there are.

Semantics are ``SyncVectorMultiAgentEnv``'s (autoreset on the next step, the same returns): the
same seeds and actions give the same games as the sync vector env.

RLlib builds the sync vector env; ``rl.env_runners.CurlingMultiAgentEnvRunner`` (what curling's
multi-agent runs get) takes its sub-envs over into this class (``from_sync``).
"""

from __future__ import annotations

import functools
from copy import deepcopy
from typing import Any

import numpy as np
from ray.rllib.env.vector.sync_vector_multi_agent_env import SyncVectorMultiAgentEnv

from rllib_curling.env.multi_agent import CurlingMultiAgentEnv


def _same(env: Any) -> Any:
    return env


class CurlingVectorMultiAgentEnv(SyncVectorMultiAgentEnv):
    """Curling multi-agent games stepped together, every throw sent before any reply is
    awaited (module docstring). ``envs``: the sub-envs (wrapped or not)."""

    def __init__(self, envs: list[Any]) -> None:
        if not envs or not all(is_curling_multi_agent(env) for env in envs):
            raise TypeError("CurlingVectorMultiAgentEnv steps CurlingMultiAgentEnv games only")
        super().__init__(env_fns=[functools.partial(_same, env) for env in envs])

    @classmethod
    def from_sync(cls, vector: SyncVectorMultiAgentEnv) -> CurlingVectorMultiAgentEnv:
        """The same sub-envs (not copied, not reset), stepped together from now on."""
        assert vector.envs is not None  # a vector env that is open
        new = cls(list(vector.envs))
        new.spec = vector.spec
        vector.closed = True  # its sub-envs are ours now: its __del__ must not close them
        return new

    def close_extras(self, **kwargs: Any) -> None:
        if self.envs:  # None when the constructor refused its envs
            super().close_extras(**kwargs)

    def step(  # type: ignore[override]  # RLlib's stub says ArrayType; it passes this list
        self, actions: list[dict[str, Any]]
    ) -> tuple[Any, Any, Any, Any, Any]:
        # [num_envs] each: observations, rewards, terminateds, truncateds, infos
        envs = self.envs
        assert envs is not None
        games = [env.unwrapped for env in envs]
        throws = [
            None if self._autoreset_envs[i] else game.throw_of(actions[i])
            for i, game in enumerate(games)
        ]  # all checked before any is sent
        for game, throw in zip(games, throws, strict=True):
            if throw is not None:
                game.send_throw(throw)
        for i, game in enumerate(games):
            if throws[i] is None:  # its game ended on the last step: the next one
                self._observations[i], self._infos[i] = envs[i].reset()
                agents = game.possible_agents
                self._rewards[i] = dict.fromkeys(agents, 0.0)
                self._terminations[i] = {**dict.fromkeys(agents, False), "__all__": False}
                self._truncations[i] = {**dict.fromkeys(agents, False), "__all__": False}
            else:
                (self._observations[i], self._rewards[i], self._terminations[i],
                 self._truncations[i], self._infos[i]) = game.finish_step()  # fmt: skip
        self._autoreset_envs = np.array(
            [t["__all__"] or u.get("__all__", False)
             for t, u in zip(self._terminations, self._truncations, strict=True)]
        )  # fmt: skip
        return (
            deepcopy(self._observations) if self.copy else self._observations,
            np.array(self._rewards, dtype=object),  # as RLlib's np.copy of these lists
            np.array(self._terminations, dtype=object),
            np.array(self._truncations, dtype=object),
            np.array(self._infos, dtype=object),
        )


def is_curling_multi_agent(env: Any) -> bool:
    """Whether ``env`` (wrapped or not) is a ``CurlingMultiAgentEnv`` (the league's too)."""
    return isinstance(getattr(env, "unwrapped", env), CurlingMultiAgentEnv)
