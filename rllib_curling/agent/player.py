"""A trained policy as a curling player: observation → action → throw, for any client.

Used by ``curling play`` (on any server speaking the protocol, the platform's included) and by
``rllib evaluate``. The action mode (continuous, with or without sweep, or discrete templates) is
read from the policy's action space, so the same code plays every checkpoint. With ``search``
(``--search K``) the player plays the agent's search (``agent.search``): the policy's top K actions
joined with level 8's candidates, judged by simulation and (``value_weight``) the network's value.
An agent folder (the shipped ``builtin`` agent) says how its search plays by default.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling.agent.policy import LoadedPolicy, load_policy
from rllib_curling.agent.search import (
    DEFAULT_SAMPLES,
    AgentBot,
    PolicySearch,
    explain_throw,
    learned_leaf,
)
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.aiming.templates import Throw
from rllib_curling.client import CurlingClient
from rllib_curling.env.spaces import action_mode, observe, throw_for
from rllib_curling.errors import ConfigError, PeerTimeoutError
from rllib_curling.names import DEFAULT_MODULE_ID


class PolicyPlayer:
    """Chooses throws for a client with a policy ``obs -> action``: a ``LoadedPolicy`` (which
    searching and explaining need), or any function of the env's observations."""

    def __init__(
        self,
        policy: Callable[[Any], Any],
        action_space: gym.Space[Any],
        search: PolicySearch | None = None,
        *,
        explain: bool = False,
    ) -> None:
        self.policy = policy
        #: Say why each throw (``agent.search.explain_throw``): ``explanation`` after ``throw``.
        self.explain = explain
        self.explanation: dict[str, Any] | None = None
        self.mode, self.sweep = action_mode(action_space)
        self.tables = shot_tables()
        self.search = search
        if self.search is not None and not isinstance(policy, LoadedPolicy):
            raise ConfigError("a search needs a policy loaded from a checkpoint (load_policy)")

    def loaded(self) -> LoadedPolicy:
        """The policy as ``load_policy`` loaded it; ``ValueError`` for a plain function."""
        if not isinstance(self.policy, LoadedPolicy):
            raise ValueError("this player's policy is a plain function, not a loaded policy")
        return self.policy

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: str,
        module_id: str = DEFAULT_MODULE_ID,
        *,
        search: int | None = None,
        samples: int | None = None,
        seed: int | None = None,
        value_weight: float | None = None,
    ) -> PolicyPlayer:
        """The checkpoint's policy; ``search`` >= 1 plays the agent's search over its top
        ``search`` actions (``agent.search``, as hard as the agent folder's effort says) with
        ``samples`` noisy throws per candidate (default: the effort's, else ``DEFAULT_SAMPLES``;
        ``seed`` seeds the simulations) and the learned value weighted ``value_weight``.
        ``None``: the agent folder's defaults (``builtin`` searches), else no search (0) and no
        learned value."""
        policy = load_policy(checkpoint, module_id)
        defaults = policy.search_defaults
        k = defaults.k if search is None else search
        if k < 1:
            return cls(policy, policy.action_space)
        weight = defaults.value_weight if value_weight is None else value_weight
        if samples is None:
            samples = defaults.effort.samples
        if samples is None:
            samples = DEFAULT_SAMPLES
        plan = PolicySearch(
            k, samples, seed, value_weight=weight,
            leaf_value=learned_leaf(policy, defaults.end_score_share) if weight > 0 else None,
            effort=defaults.effort,
        )  # fmt: skip
        return cls(policy, policy.action_space, plan)

    def env_config(self) -> dict[str, Any]:
        """The env_config keys that give an env this player's action space (a searching player
        picks its own throws: ``action="throw"``)."""
        return {"action": "throw" if self.search else self.mode, "sweep": self.sweep}

    def act(self, obs: np.ndarray, client: CurlingClient) -> Any:
        """The action for ``obs`` (the client's game as it is now) in ``env_config``'s space:
        the policy's, or with search the throw it found."""
        return self._decide(obs, client)[0]

    def _decide(self, obs: np.ndarray, client: CurlingClient) -> tuple[Any, np.ndarray | None]:
        """``act``'s action, and the search's judged candidates (None without a search)."""
        if self.search is None:
            return self.policy(obs), None
        choice = self.search.choose(self.loaded().propose, obs, client, self.mode, self.tables)
        return np.array(choice.throw[: 4 if self.sweep else 3], dtype=np.float64), choice.judged

    def throw(self, client: CurlingClient) -> Throw:
        """Choose and send this turn's throw; returns (v, h, w, sweep). With ``explain``,
        ``explanation`` says why (before the throw is sent)."""
        obs = observe(client, self.mode)
        action, judged = self._decide(obs, client)
        throw = throw_for(action, client, self.env_config()["action"], self.tables)
        if self.explain:
            self.explanation = explain_throw(
                self.loaded(), judged, obs,
                lambda a: throw_for(a, client, self.mode, self.tables),
            )  # fmt: skip
        client.throw(*throw[:3], sweep=throw[3] if self.sweep else None)
        return throw


def agent_bot(
    checkpoint: str, module_id: str = DEFAULT_MODULE_ID, *, search: int | None = None,
    samples: int | None = None, value_weight: float | None = None, name: str | None = None,
) -> AgentBot:  # fmt: skip
    """The checkpoint's agent as it plays by default (``from_checkpoint``'s arguments) as an
    in-process bot (``agent.search.AgentBot``): a teacher for ``curling dataset``, a bench
    entry."""
    player = PolicyPlayer.from_checkpoint(
        checkpoint, module_id, search=search, samples=samples, value_weight=value_weight
    )
    return AgentBot(player.loaded(), player.search, name=name or f"agent {checkpoint}")


def play_session(
    player: PolicyPlayer,
    client: CurlingClient,
    on_game: Callable[[int, CurlingClient], None],
    on_throw: Callable[[Throw, dict[str, Any] | None], None] | None = None,
    on_waiting: Callable[[], None] | None = None,
) -> int:
    """Play on ``client`` until the server ends the session; returns the number of games.
    ``on_throw(throw, explanation)`` after each throw sent (``explanation``: with ``explain``);
    ``on_waiting()`` once when no game has started ``WAITING_HINT_S`` after connecting (a
    lobby waiting for a second client, a platform page where nobody clicked Start)."""
    games = 0
    wait: Callable[[], str] = client.wait_turn  # the first wait may say why it waits
    if on_waiting is not None:
        wait = functools.partial(_first_event, client, on_waiting)
    while True:
        event = wait()
        wait = client.wait_turn
        if event == "go":
            throw = player.throw(client)
            if on_throw is not None:
                on_throw(throw, player.explanation)
        elif event == "gameover":
            games += 1
            on_game(games, client)
        else:
            return games


#: Seconds without a game after connecting before ``play_session`` says why it waits.
WAITING_HINT_S = 3.0


def _first_event(client: CurlingClient, on_waiting: Callable[[], None]) -> str:
    """The first ``wait_turn`` event; ``on_waiting()`` if it takes over ``WAITING_HINT_S``."""
    try:
        return client.wait_turn(min(WAITING_HINT_S, client.timeout))
    except PeerTimeoutError:
        if client.timeout <= WAITING_HINT_S:
            raise
        on_waiting()
        return client.wait_turn(client.timeout - WAITING_HINT_S)
