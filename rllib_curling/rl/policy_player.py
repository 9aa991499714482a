"""A trained policy as a curling player: observation → action → throw, for any client.

Used by ``curling play`` (on any server speaking the protocol, the platform's included) and by
``rllib evaluate``. The action mode (continuous, with or without sweep, or discrete templates) is
read from the policy's action space, so the same code plays every checkpoint. With ``search``
(``--search K``) the player re-ranks the policy's top K actions by simulation (``rl.search``).
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
from rllib_curling.rl.search import DEFAULT_SAMPLES, PolicySearch


class PolicyPlayer:
    """Chooses throws for a client with a policy ``obs -> action``."""

    def __init__(
        self,
        policy: Callable[[np.ndarray], Any],
        action_space: gym.Space,
        search: PolicySearch | None = None,
    ) -> None:
        self.policy = policy
        self.mode, self.sweep = action_mode(action_space)
        self.tables = shot_tables()
        self.search = search if search is not None and search.k > 1 else None
        if self.search is not None and not hasattr(policy, "propose"):
            raise ValueError("--search needs a policy loaded from a checkpoint (load_policy)")

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: str,
        module_id: str = "default_policy",
        *,
        search: int = 0,
        samples: int | None = None,
        seed: int | None = None,
    ) -> PolicyPlayer:
        """The checkpoint's policy; ``search`` > 1 re-ranks its top ``search`` actions with
        ``samples`` noisy throws each (``rl.search``, default ``DEFAULT_SAMPLES``; ``seed``
        seeds the simulations)."""
        from rllib_curling.rl.checkpoints import load_policy

        policy = load_policy(checkpoint, module_id)
        samples = DEFAULT_SAMPLES if samples is None else samples
        plan = PolicySearch(search, samples, seed) if search > 1 else None
        return cls(policy, policy.action_space, plan)  # type: ignore[attr-defined]

    def env_config(self) -> dict[str, Any]:
        """The env_config keys that give an env this player's action space."""
        return {"action": self.mode, "sweep": self.sweep}

    def act(self, obs: np.ndarray, client: CurlingClient) -> Any:
        """The action for ``obs`` (the client's game as it is now): the policy's, or with search
        the best of its top K."""
        if self.search is None:
            return self.policy(obs)
        propose = self.policy.propose  # type: ignore[attr-defined]
        return self.search.choose(propose, obs, client, self.mode, self.tables)

    def throw(self, client: CurlingClient) -> Throw:
        """Choose and send this turn's throw; returns (v, h, w, sweep)."""
        action = self.act(observe(client), client)
        throw = throw_for(action, client, self.mode, self.tables)
        client.throw(*throw[:3], sweep=throw[3] if self.sweep else None)
        return throw


def play_session(
    player: PolicyPlayer, client: CurlingClient, on_game: Callable[[int, CurlingClient], None]
) -> int:
    """Play on ``client`` until the server ends the session; returns the number of games."""
    games = 0
    while True:
        event = client.wait_turn()
        if event == "go":
            player.throw(client)
        elif event == "gameover":
            games += 1
            on_game(games, client)
        else:
            return games
