"""``CurlingMultiAgentEnv``: both seats of one server as two RLlib agents, for self-play.

Turn-based: each step has exactly one agent to move, the one the server sent ``GO``; only that
agent gets an observation. Agents are ``"player1"`` (seat 0, throws first in the first end of the
first game) and ``"player2"``. Both play through their own protocol client on the same server (the
private one by default), so self-play uses the same wire path as play against a bot.

Spaces, action maps and observations are those of ``CurlingEnv`` (same ``env_config`` keys; the
``opponent`` key is ignored: the other agent is the opponent). Rewards: each agent gets its own,
from its side (``env.rewards.MULTI_AGENT_REWARDS``: all but ``"shaped"``, which is refused); rewards
reach an agent on the step during which they happen, and both agents get their final
observation and reward when the game ends. ``reset(seed=...)`` restarts the private server
with that seed: the same seed and actions give the same game.

The mover's action is checked as ``CurlingEnv`` checks it (``env.spaces.check_action``: a
``ValueError`` before anything is sent, the game goes on). Both seats are ours, so a private
server that stays silent for ``server_timeout`` is hung: it is killed, ``step``/``reset`` raise
``ConnectionLostError`` and the next ``reset`` starts a new one (a server from the config is
waited on for ``turn_timeout`` plus a margin and never killed).

Who sits at the server is the env's ``Seating`` (composed, not inherited): ``SelfPlaySeating``
by default, ``env.league.LeagueSeating`` for ``CurlingLeagueEnv``. Clients are built by
``EnvServer.connect_client`` (``env.servers``), as in ``CurlingEnv``.

RLlib (see ``examples/self_play.py``)::

    config.environment("curling_multi", env_config={...})
    config.multi_agent(policies={"shared"}, policy_mapping_fn=lambda aid, ep, **kw: "shared")
"""

from __future__ import annotations

import select
from collections.abc import Callable
from typing import Any, Protocol

from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import MultiAgentDict

from rllib_curling.aiming.tables import shot_tables
from rllib_curling.client import CurlingClient
from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.env.rewards import MULTI_AGENT_REWARDS, game_reward
from rllib_curling.env.servers import EnvServer
from rllib_curling.env.spaces import (
    action_space,
    check_action,
    observation_space,
    observe,
    throw_for,
)
from rllib_curling.errors import ConfigError, ConnectionLostError, PeerTimeoutError

AGENTS = ("player1", "player2")


class Seating(Protocol):
    """Who sits at a multi-agent env's server, session by session: what the env holds to know
    its agents, the key each connects with, and when a new session (a new opponent) starts.
    ``SelfPlaySeating`` is the default; ``env.league.LeagueSeating`` draws league opponents.

    Before each game the env asks ``wants_new_session``; when that, an abandoned game or a
    missing session calls for a new session it calls ``new_session`` (choose who sits next),
    then ``open_session`` to connect (also when the server closed the session between games:
    then with the same seats). ``game_started`` follows a game's first GO, ``seed``
    ``reset(seed=...)``; ``info`` is added to every agent's info."""

    #: Every agent that may ever act (RLlib fixes them, and their spaces, at the start).
    possible_agents: list[str]
    #: The agents of the first session, before any is opened.
    initial_agents: list[str]

    def wants_new_session(self) -> bool:
        """True when the next game needs a new session (e.g. a new opponent is due)."""
        ...

    def new_session(self) -> None:
        """A new session is due: choose who sits in it (e.g. draw the next opponent)."""
        ...

    def open_session(self, key: str) -> dict[str, str]:
        """The session's seats: ``{agent: key}`` in connection order, the server seats them
        so (``key``: the env's own)."""
        ...

    def game_started(self) -> None:
        """A game of the current session started."""
        ...

    def seed(self, seed: int) -> None:
        """``reset(seed=...)``: seed whatever the seating draws."""
        ...

    def info(self, clients: dict[str, CurlingClient], game_over: bool) -> dict[str, Any]:
        """What the seating adds to every agent's info."""
        ...


class SelfPlaySeating:
    """Both seats ours: ``"player1"`` and ``"player2"``, one session as long as it lasts."""

    def __init__(self) -> None:
        self.possible_agents = list(AGENTS)
        self.initial_agents = list(AGENTS)

    def wants_new_session(self) -> bool:
        return False

    def new_session(self) -> None:
        pass

    def open_session(self, key: str) -> dict[str, str]:
        return dict.fromkeys(AGENTS, key)  # the server seats in order of arrival: player1 first

    def game_started(self) -> None:
        pass

    def seed(self, seed: int) -> None:
        pass

    def info(self, clients: dict[str, CurlingClient], game_over: bool) -> dict[str, Any]:
        return {}


class CurlingMultiAgentEnv(MultiAgentEnv):
    """Two agents, one per seat, on one curling server (see the module docstring).

    ``seating`` (keyword): builds, from the env's ``CurlingEnvConfig``, the ``Seating`` that
    says who sits at the server; default ``SelfPlaySeating`` (``CurlingLeagueEnv`` passes the
    league's)."""

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        *,
        seating: Callable[[CurlingEnvConfig], Seating] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        values = {**dict(config or {}), **kwargs, "opponent": "external"}
        self.worker_index = int(getattr(config, "worker_index", 0) or 0)
        self.config = CurlingEnvConfig.from_dict(values)
        if self.config.reward not in MULTI_AGENT_REWARDS:
            raise ConfigError(
                f"the multi-agent env supports reward {MULTI_AGENT_REWARDS}, got "
                f"{self.config.reward!r} (shaping by the house score is single-agent only)"
            )
        self.seating: Seating = seating(self.config) if seating else SelfPlaySeating()
        obs_space, act_space = observation_space(self.config.action), action_space(self.config)
        #: Every agent's spaces (all agents play the same game from their side).
        self.agent_observation_space, self.agent_action_space = obs_space, act_space
        self.possible_agents = list(self.seating.possible_agents)
        self.agents = list(self.seating.initial_agents)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._tables = shot_tables()
        self._server = EnvServer(self.config, self.worker_index)
        self._clients: dict[str, CurlingClient] = {}
        self._to_move: str | None = None
        self._over = False  # the last step ended the game
        self._scores_seen = {a: 0 for a in AGENTS}
        #: Seconds to wait for the server's next message (``CurlingEnvConfig.reply_timeout``).
        self._timeout = self.config.reply_timeout(self_play=True)

    @classmethod
    def from_env_context(cls, env_context: Any) -> CurlingMultiAgentEnv:
        return cls(env_context)

    def _connect(self) -> None:
        """A new session: the seating's agents connect in its order."""
        self._disconnect()
        seats = self.seating.open_session(self.config.key)
        for agent, key in seats.items():
            name = f"{self.config.name}-{agent}"
            self._clients[agent] = self._server.connect_client(
                key=key, name=name, timeout=self._timeout
            )
        self.agents = list(seats)

    def _disconnect(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients = {}
        self._to_move = None

    def reset(  # type: ignore[override]  # gymnasium's Env.reset types a single agent's info
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        if seed is not None:
            self._seed(seed)
        try:
            mover = self._start_game()
        except ConnectionLostError as exc:
            self._disconnect()
            raise self._server.lost(exc, "reset()") from exc
        self._to_move, self._over = mover, False
        self._scores_seen = {a: len(c.end_scores) for a, c in self._clients.items()}
        return {mover: observe(self._clients[mover], self.config.action)}, {
            mover: self._info(mover)
        }

    def step(  # type: ignore[override]  # gymnasium's Env.step types a single agent's tuple
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        self.send_throw(self.throw_of(action_dict))
        return self.finish_step()

    # ``step`` in three parts, for ``CurlingVectorMultiAgentEnv``: it checks every game's action,
    # then sends every throw, and only then waits for the servers' replies.

    def throw_of(self, action_dict: MultiAgentDict) -> tuple[float, ...]:
        """The mover's throw ``(v, h, w[, sweep])`` for ``action_dict``, checked as ``step``
        checks it (a ``ValueError`` and nothing sent when it does not fit)."""
        mover = self._to_move
        if mover is None:
            raise RuntimeError("step() called before reset() or after the game ended")
        if mover not in action_dict:
            raise ValueError(
                f"it is {mover}'s turn; got actions for {sorted(map(str, action_dict))}"
            )
        action = check_action(action_dict[mover], self.agent_action_space)
        return throw_for(action, self._clients[mover], self.config.action, self._tables)

    def send_throw(self, throw: tuple[float, ...]) -> None:
        """Send the mover's throw (``throw_of``); ``finish_step`` then waits for the replies."""
        assert self._to_move is not None
        try:
            self._clients[self._to_move].throw(
                *throw[:3], sweep=throw[3] if self.config.sweep else None
            )
        except ConnectionLostError as exc:
            self._disconnect()
            raise self._server.lost(exc, "step()") from exc

    def finish_step(self) -> tuple[dict, dict, dict, dict, dict]:
        """Wait until the next agent is to move or the game is over; ``step``'s return."""
        try:
            nxt = self._pump(expect_game=False)
        except ConnectionLostError as exc:
            self._disconnect()
            raise self._server.lost(exc, "step()") from exc
        rewards = {a: self._reward(a, game_over=nxt is None) for a in self._clients}
        if nxt is None:
            self._to_move, self._over = None, True
            obs = {a: observe(c, self.config.action) for a, c in self._clients.items()}
            infos = {a: self._info(a) for a in self._clients}
            return obs, rewards, {"__all__": True}, {"__all__": False}, infos
        self._to_move = nxt
        obs = {nxt: observe(self._clients[nxt], self.config.action)}
        return obs, rewards, {"__all__": False}, {"__all__": False}, {nxt: self._info(nxt)}

    def _seed(self, seed: int) -> None:
        """``reset(seed=...)``: the seating's draws seeded, and a fresh private server with this
        seed (same seed and actions, same game); servers from the config are left as they are."""
        self.seating.seed(seed)
        if self.config.server == "auto":
            self._disconnect()
            self._server.reseed(seed)

    def _start_game(self) -> str:
        """Connect if needed (first episode, abandoning a game in progress, or the seating
        wants a new session) and wait for a new game's first GO; its agent."""
        if self._to_move is not None or not self._clients or self.seating.wants_new_session():
            self.seating.new_session()
            self._connect()
        mover = self._pump(expect_game=True)
        if mover is None:  # the session ended between games: start a new one
            self._connect()
            mover = self._pump(expect_game=True)
        if mover is None:
            raise ConnectionLostError(f"no game could be started on {self._server.label}")
        self.seating.game_started()
        return mover

    def _pump(self, expect_game: bool) -> str | None:
        """Handle both clients' messages until one gets GO (return it) or both see GAMEOVER."""
        over: set[str] = set()
        timeout = self._timeout
        while True:
            for agent, client in self._clients.items():
                if agent in over:
                    continue
                event = client.poll(0.0)
                if event == "go":
                    return agent
                if event == "gameover" and not expect_game:
                    over.add(agent)
                elif event == "closed":
                    if expect_game:
                        return None
                    raise ConnectionLostError(f"{self._server.label} closed {agent}'s connection")
            if len(over) == len(self._clients):
                return None
            waiting = [c for a, c in self._clients.items() if a not in over]
            ready, _, _ = select.select(waiting, [], [], timeout)
            if not ready:
                raise PeerTimeoutError(
                    f"no message from {self._server.label} for {timeout:g} s", timeout
                )

    def _reward(self, agent: str, game_over: bool) -> float:
        client = self._clients[agent]
        new = client.end_scores[self._scores_seen[agent] :]
        self._scores_seen[agent] = len(client.end_scores)
        config = self.config
        return game_reward(config.reward, new, client.result, game_over, config.score_weight)

    def _info(self, agent: str) -> dict[str, Any]:
        client = self._clients[agent]
        return {
            "position": client.position.ravel().tolist(),
            "setstate": list(client.state) if client.state else None,
            "seat": client.seat,
            "score": client.totals,
            "server": self._server.label,
            **self.seating.info(self._clients, self._over),
        }

    def close(self) -> None:
        self._disconnect()
        self._server.close()
