"""A trained policy as a curling player: observation → action → throw, for any client.

Used by ``curling play`` (on any server speaking the protocol, the platform's included) and by
``rllib evaluate``. The action mode (continuous, with or without sweep, or discrete templates) is
read from the policy's action space, so the same code plays every checkpoint. With ``search``
(``--search K``) the player plays the agent's search (``rl.search``): the policy's top K actions
joined with level 8's candidates, judged by simulation and (``value_weight``) the network's value.
An agent folder (the shipped ``builtin`` agent) says how its search plays by default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling.aiming.tables import shot_tables
from rllib_curling.aiming.templates import Throw
from rllib_curling.client import CurlingClient
from rllib_curling.env.spaces import action_mode, observe, throw_for
from rllib_curling.rl.search import (
    DEFAULT_SAMPLES,
    PolicySearch,
    explain_throw,
    module_leaf_value,
)


class PolicyPlayer:
    """Chooses throws for a client with a policy ``obs -> action``."""

    def __init__(
        self,
        policy: Callable[[np.ndarray], Any],
        action_space: gym.Space,
        search: PolicySearch | None = None,
        *,
        explain: bool = False,
    ) -> None:
        self.policy = policy
        #: Say why each throw (``rl.search.explain_throw``): ``explanation`` after ``throw``.
        self.explain = explain
        self.explanation: dict[str, Any] | None = None
        self.mode, self.sweep = action_mode(action_space)
        self.tables = shot_tables()
        self.search = search
        if self.search is not None and not hasattr(policy, "propose"):
            raise ValueError("--search needs a policy loaded from a checkpoint (load_policy)")

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: str,
        module_id: str = "default_policy",
        *,
        search: int | None = None,
        samples: int | None = None,
        seed: int | None = None,
        value_weight: float | None = None,
    ) -> PolicyPlayer:
        """The checkpoint's policy; ``search`` >= 1 plays the agent's search over its top
        ``search`` actions (``rl.search``) with ``samples`` noisy throws per candidate (default
        ``DEFAULT_SAMPLES``; ``seed`` seeds the simulations) and the learned value weighted
        ``value_weight``. ``None``: the agent folder's defaults (``builtin`` searches), else no
        search (0) and no learned value."""
        from rllib_curling.rl.checkpoints import load_policy

        policy = load_policy(checkpoint, module_id)
        defaults = (policy.agent or {}).get("search", {})  # type: ignore[attr-defined]
        k = int(defaults.get("k", 0)) if search is None else search
        if k < 1:
            return cls(policy, policy.action_space)  # type: ignore[attr-defined]
        weight = float(defaults.get("value_weight", 0.0)) if value_weight is None else value_weight
        values = policy.values  # type: ignore[attr-defined]
        if weight > 0 and values is None:
            raise ValueError("--value-weight needs a policy with a value head (PPO, BC, MARWIL)")
        plan = PolicySearch(
            k, DEFAULT_SAMPLES if samples is None else samples, seed, value_weight=weight,
            leaf_value=module_leaf_value(values) if weight > 0 else None,
        )  # fmt: skip
        return cls(policy, policy.action_space, plan)  # type: ignore[attr-defined]

    def env_config(self) -> dict[str, Any]:
        """The env_config keys that give an env this player's action space (a searching player
        picks its own throws: ``action="throw"``)."""
        return {"action": "throw" if self.search else self.mode, "sweep": self.sweep}

    def act(self, obs: np.ndarray, client: CurlingClient) -> Any:
        """The action for ``obs`` (the client's game as it is now) in ``env_config``'s space:
        the policy's, or with search the throw it found."""
        if self.search is None:
            return self.policy(obs)
        propose = self.policy.propose  # type: ignore[attr-defined]
        throw = self.search.choose(propose, obs, client, self.mode, self.tables)
        return np.array(throw[: 4 if self.sweep else 3], dtype=np.float64)

    def throw(self, client: CurlingClient) -> Throw:
        """Choose and send this turn's throw; returns (v, h, w, sweep). With ``explain``,
        ``explanation`` says why (before the throw is sent)."""
        obs = observe(client, self.mode)
        action = self.act(obs, client)
        throw = throw_for(action, client, self.env_config()["action"], self.tables)
        if self.explain:
            self.explanation = explain_throw(
                self.policy, self.search, obs,
                lambda a: throw_for(a, client, self.mode, self.tables),
            )  # fmt: skip
        client.throw(*throw[:3], sweep=throw[3] if self.sweep else None)
        return throw


def agent_bot(
    checkpoint: str, module_id: str = "default_policy", *, search: int | None = None,
    samples: int | None = None, value_weight: float | None = None, name: str | None = None,
) -> Any:  # fmt: skip
    """The checkpoint's agent as it plays by default (``from_checkpoint``'s arguments) as an
    in-process bot (``rl.search.AgentBot``): a teacher for ``curling dataset``, a bench entry."""
    from rllib_curling.rl.search import AgentBot

    player = PolicyPlayer.from_checkpoint(
        checkpoint, module_id, search=search, samples=samples, value_weight=value_weight
    )
    return AgentBot(player.policy, player.search, name=name or f"agent {checkpoint}")


def play_session(
    player: PolicyPlayer,
    client: CurlingClient,
    on_game: Callable[[int, CurlingClient], None],
    on_throw: Callable[[Throw, dict[str, Any] | None], None] | None = None,
) -> int:
    """Play on ``client`` until the server ends the session; returns the number of games.
    ``on_throw(throw, explanation)`` after each throw sent (``explanation``: with ``explain``)."""
    games = 0
    while True:
        event = client.wait_turn()
        if event == "go":
            throw = player.throw(client)
            if on_throw is not None:
                on_throw(throw, player.explanation)
        elif event == "gameover":
            games += 1
            on_game(games, client)
        else:
            return games
