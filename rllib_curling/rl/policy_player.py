"""A trained policy as a curling player: observation → action → throw, for any client.

Used by ``curling play`` (on any server speaking the protocol, the platform's included) and by
``rllib evaluate``. The action mode (continuous, with or without sweep, or discrete templates) is
read from the policy's action space, so the same code plays every checkpoint.
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


class PolicyPlayer:
    """Chooses throws for a client with a policy ``obs -> action``."""

    def __init__(self, policy: Callable[[np.ndarray], Any], action_space: gym.Space) -> None:
        self.policy = policy
        self.mode, self.sweep = action_mode(action_space)
        self.tables = shot_tables()

    @classmethod
    def from_checkpoint(cls, checkpoint: str, module_id: str = "default_policy") -> PolicyPlayer:
        from rllib_curling.rl.checkpoints import load_policy

        policy = load_policy(checkpoint, module_id)
        return cls(policy, policy.action_space)  # type: ignore[attr-defined]

    def env_config(self) -> dict[str, Any]:
        """The env_config keys that give an env this player's action space."""
        return {"action": self.mode, "sweep": self.sweep}

    def throw(self, client: CurlingClient) -> Throw:
        """Choose and send this turn's throw; returns (v, h, w, sweep)."""
        action = self.policy(observe(client))
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
