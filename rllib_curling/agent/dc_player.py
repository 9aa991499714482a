"""A trained policy as a player on Digital Curling's ice: ``AgentDCBot``, the parallel room of
``agent.player``'s ``AgentBot``.

``load_dc_agent(checkpoint)`` loads a DC agent (an agent folder whose ``agent.json`` says
``"ice": "fcv1"``, or a checkpoint of ``rllib train`` on ``curling_dc``; a platform agent is
refused in one line) as a ``DCBot``, so it plays wherever a DC bot does: ``dc_client``'s
``play`` (``curling play --protocol dc3|dc4 --agent AGENT``) and
``dc_bots.matches.play_dc_match``. Which bot depends on ``value_weight`` (default: the agent
folder's ``search.value_weight``, 0 for a plain checkpoint):

- 0: the network alone, an ``AgentDCBot``, whose ``choose(state, rng)`` observes the
  ``DCGameState`` as the DC env does (``dc_env.spaces.observe``, the legality mask included),
  takes the policy's most likely legal shot and throws it through the env's layout
  (``dc_env.spaces.dc_layout``);
- above 0: the DC agent's search (``agent.dc_search.DCValueSearch``), level 8's search judging
  by the network's chance to win (its end-score head's, else its value head's) weighted so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rllib_curling.dc_bots.base import DCBot, DCShot, clamped_shot
from rllib_curling.dc_game import DCGameState
from rllib_curling.names import DEFAULT_MODULE_ID


class AgentDCBot(DCBot):
    """A loaded DC policy (``agent.policy.LoadedPolicy`` on the DC env's ``action="shots"``)
    as a DC bot; deterministic (``rng`` is not used)."""

    def __init__(self, policy: Any, name: str = "dc agent") -> None:
        from rllib_curling.dc_aiming import dc_shot_tables
        from rllib_curling.dc_env.spaces import dc_layout

        self.policy = policy
        self.name = name
        self.layout = dc_layout()
        self.tables = dc_shot_tables()

    def action(self, state: DCGameState) -> int:
        """The layout index the policy plays in ``state`` (legal: masked logits)."""
        from rllib_curling.dc_env.spaces import observe

        team = state.next_team
        if team is None:
            raise ValueError("no team is to throw in this state (the game is over)")
        return int(self.policy(observe(state, team, "shots")))

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        index = self.action(state)
        return clamped_shot(self.layout.throw(index, self.tables, state.position))


def load_dc_agent(
    checkpoint: Any, module_id: str = DEFAULT_MODULE_ID, *, value_weight: float | None = None
) -> DCBot:
    """The DC agent of ``checkpoint`` as a DC bot: its search (DC level 8's, looking as hard as
    the agent folder's ``effort`` says) when ``value_weight`` (None: the agent folder's) is above
    0, else the network alone (module docstring). ``ConfigError`` for a platform agent or a
    network the search cannot read, ``FileNotFoundError`` / ``ValueError`` for what is no
    agent."""
    from rllib_curling.agent.dc_search import DCValueSearch, chance_of
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.dc_bots.search import DC_SEARCH_SPECS
    from rllib_curling.rl.checkpoints import DC_ICE

    policy = load_policy(checkpoint, module_id, ice=DC_ICE)
    weight = policy.search_defaults.value_weight if value_weight is None else value_weight
    if weight <= 0.0:
        return AgentDCBot(policy, name=f"dc agent {checkpoint}")
    effort = policy.search_defaults.effort
    search = DCValueSearch(chance_of(policy), weight, effort.applied(DC_SEARCH_SPECS[8]))
    search.name = f"dc agent {checkpoint} (search, value weight {weight:g})"
    return search
