"""``CurlingLeagueEnv``: the learner against a league of opponents, one opponent per pair of games.

The league is a table ``{opponent: weight}`` (``set_league``): built-in levels, named
``"level_L"`` (``level_name``), and frozen snapshots of the learner, named ``"main_vN"``
(``snapshot_name``; ``rl.league.LeagueCallback`` makes them while training). For every pair of
games the env draws one opponent with probability ∝ its weight and opens a new session for it on
its server (the private one by default), so within the pair the hammer alternates: the learner
throws first in end 1 of the first game, the opponent in the second.

| opponent     | clients on the server                 | agents that act                   |
|--------------|---------------------------------------|-----------------------------------|
| ``level_L``  | one, key ``key:L`` (the server seats  | ``"main"`` only                   |
|              | its bot L in the other seat)          |                                   |
| ``main_vN``  | two in the lobby: the learner first   | ``"main"`` and ``"snapshot_S"``   |

Agent IDs are module IDs, so RLlib's policy mapping function is the identity
(``rl.league.league_mapping_fn``): the learner agent is ``"main"`` (``LEARNER``); snapshot N is
played by agent (and module) ``snapshot_slot(N, max_snapshots)`` = ``"snapshot_{(N-1) mod
max_snapshots}"``. The league keeps the newest ``max_snapshots`` snapshots, so a new one takes
over the slot of the one it pushes out; the slots are fixed because RLlib's env runner fixes the
agents' spaces (its connectors) when it starts. Observations, actions, rewards and the turn
order are those of ``CurlingMultiAgentEnv`` (only the agent to move observes; both get their
final observation and reward; ``reward`` is one of ``env.rewards.MULTI_AGENT_REWARDS``).

``info`` adds ``opponent`` (the league name of this game's opponent) and ``hammer`` (whether the
learner has the hammer in end 1), and on the last step ``result`` (``"WIN"``/``"DRAW"``/``"LOSE"``
from the learner's view, in every agent's info; None before). ``env_config`` keys: those of
``CurlingEnvConfig`` (``opponent`` is ignored: the league picks) plus ``league``, a mapping of
``LeagueConfig`` keys. Until ``set_league`` is called the league is ``LeagueConfig.levels`` with
equal weights.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from rllib_curling.bots.levels import LADDER, LEVELS, is_level
from rllib_curling.client import CurlingClient
from rllib_curling.env.config import CurlingEnvConfig, finite_number, refuse_unknown_keys
from rllib_curling.env.multi_agent import CurlingMultiAgentEnv
from rllib_curling.errors import ConfigError

#: The learner's agent ID and RLModule ID.
LEARNER = "main"
SAMPLING_RULES = ("hard", "variance")
_LEVEL = re.compile(r"^level_(\d)$")
_SNAPSHOT = re.compile(rf"^{LEARNER}_v([1-9]\d*)$")


def level_name(level: int) -> str:
    """The league name of built-in level ``level``: ``"level_5"``."""
    return f"level_{level}"


def snapshot_name(version: int) -> str:
    """The league name of the learner's ``version``-th snapshot: ``"main_v3"``."""
    return f"{LEARNER}_v{version}"


def snapshot_slot(version: int, max_snapshots: int) -> str:
    """The agent and module ID that plays snapshot ``version``: ``"snapshot_{(version - 1) mod
    max_snapshots}"``. The league keeps the newest ``max_snapshots``, so a new snapshot takes
    the slot of the one it pushes out (RLlib fixes an env's agent IDs when its env runner
    starts: the slots are all declared then)."""
    return f"snapshot_{(version - 1) % max_snapshots}"


def snapshot_version(name: str) -> int:
    """``N`` of a snapshot name ``"main_vN"``."""
    match = _SNAPSHOT.match(name)
    if match is None:
        raise ConfigError(f"{name!r} is not a snapshot name '{LEARNER}_vN'")
    return int(match.group(1))


def parse_opponent(name: Any) -> int | str:
    """A built-in level (int) for ``"level_L"``, the name itself for a snapshot ``"main_vN"``;
    ``ConfigError`` naming both forms otherwise."""
    if isinstance(name, str):
        level = _LEVEL.match(name)
        if level and is_level(int(level.group(1))):
            return int(level.group(1))
        if _SNAPSHOT.match(name):
            return name
    raise ConfigError(
        f"league opponent {name!r} is neither a built-in level 'level_L' (L in {list(LEVELS)}) "
        f"nor a snapshot '{LEARNER}_vN' (N >= 1)"
    )


def check_league(weights: Any, max_snapshots: int | None = None) -> dict[str, float]:
    """``weights`` checked (a non-empty mapping of opponent names to finite numbers >= 0, not
    all 0; with ``max_snapshots``, at most one snapshot per slot) and normalised to sum 1;
    ``ConfigError`` saying what is wrong otherwise."""
    if not isinstance(weights, dict) or not weights:
        raise ConfigError(f"a league is a non-empty dict {{opponent: weight}}, got {weights!r}")
    slots: dict[str, str] = {}
    for name, weight in weights.items():
        if isinstance(parse_opponent(name), str) and max_snapshots is not None:
            if max_snapshots == 0:
                raise ConfigError(f"league has snapshot {name!r} but max_snapshots is 0")
            slot = snapshot_slot(snapshot_version(name), max_snapshots)
            if slot in slots:
                raise ConfigError(f"snapshots {slots[slot]!r} and {name!r} share {slot!r}: "
                                  f"the league keeps only the newest {max_snapshots}")  # fmt: skip
            slots[slot] = name
        if not finite_number(weight) or weight < 0:
            raise ConfigError(f"league weight of {name!r} must be a finite number >= 0, "
                              f"got {weight!r}")  # fmt: skip
    total = float(sum(weights.values()))
    if total <= 0:
        raise ConfigError(f"league weights must not all be 0: {weights!r}")
    return {name: float(w) / total for name, w in weights.items()}


@dataclass(frozen=True)
class LeagueConfig:
    """``env_config["league"]``: the league's opponents and rules (read by the env and by
    ``rl.league.LeagueCallback``; the sampling rule and its reasons are in ``rl.league``).

    | key                        | meaning                                                   |
    |----------------------------|-----------------------------------------------------------|
    | ``levels``                 | built-in levels in the league (default: 2 and up)         |
    | ``rule``                   | ``"hard"`` (weight (1 − p)²) or ``"variance"`` (p(1 − p)) |
    | ``floor``                  | least weight of an opponent before normalising            |
    | ``prior``                  | the win rate p assumed against an opponent never played   |
    | ``window``                 | games per opponent in its win rate p                      |
    | ``games_per_opponent``     | games in a row against one draw (2: one with the hammer   |
    |                            | each)                                                     |
    | ``max_snapshots``          | snapshots kept (the newest; 0 = no snapshots)             |
    | ``snapshot_threshold``     | win rate against the newest snapshot that earns the next  |
    | ``snapshot_min_iterations``| training iterations between two snapshots                 |
    | ``snapshot_min_games``     | games behind that win rate (all games, for the first one) |
    | ``start_from``             | a checkpoint whose policy the learner starts from (e.g.   |
    |                            | ``results/curling-ppo``, the curriculum run's), or None   |
    """

    levels: tuple[int, ...] = LADDER
    rule: str = "hard"
    floor: float = 0.05
    prior: float = 0.5
    window: int = 100
    games_per_opponent: int = 2
    max_snapshots: int = 4
    snapshot_threshold: float = 0.6
    snapshot_min_iterations: int = 10
    snapshot_min_games: int = 50
    start_from: str | None = None

    def __post_init__(self) -> None:
        if not self.levels or not all(is_level(level) for level in self.levels):
            raise ConfigError(f"league levels must be built-in levels {list(LEVELS)}, "
                              f"got {list(self.levels)!r}")  # fmt: skip
        if self.rule not in SAMPLING_RULES:
            raise ConfigError(f"league rule must be one of {SAMPLING_RULES}, got {self.rule!r}")
        for key in ("floor", "prior", "snapshot_threshold"):
            value = getattr(self, key)
            if not (finite_number(value) and 0 <= value <= 1):
                raise ConfigError(f"league {key} must be a number in [0, 1], got {value!r}")
        for key, least in (("window", 1), ("games_per_opponent", 1), ("max_snapshots", 0),
                           ("snapshot_min_iterations", 1), ("snapshot_min_games", 0)):  # fmt: skip
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"league {key} must be an int >= {least}, got {value!r}")
        if self.start_from is not None and not isinstance(self.start_from, str):
            raise ConfigError(
                f"league start_from must be a checkpoint path, got {self.start_from!r}"
            )

    @classmethod
    def from_dict(cls, values: Any) -> LeagueConfig:
        """From ``env_config["league"]`` (None: the defaults); unknown keys are errors."""
        values = dict(values or {})
        refuse_unknown_keys(cls, values, "league")
        if isinstance(values.get("levels"), list):
            values["levels"] = tuple(values["levels"])
        return cls(**values)

    def initial_league(self) -> dict[str, float]:
        """The league before any result: the built-in levels, equal weights."""
        return {level_name(level): 1.0 / len(self.levels) for level in self.levels}


def split_env_config(config: Any) -> tuple[dict[str, Any], LeagueConfig]:
    """``env_config`` as (the ``CurlingEnvConfig`` keys, the ``LeagueConfig``)."""
    values = dict(config or {})
    return values, LeagueConfig.from_dict(values.pop("league", None))


class LeagueSeating:
    """The seats of ``CurlingLeagueEnv`` (a ``Seating`` of ``env.multi_agent``): the league
    table, this pair's opponent and the draws. A bot opponent means one client, the learner's,
    with key ``key:L``; a snapshot means two in the lobby, the learner first."""

    def __init__(self, config: CurlingEnvConfig, league_config: LeagueConfig) -> None:
        self.league_config = league_config
        slots = [f"snapshot_{i}" for i in range(league_config.max_snapshots)]
        self.possible_agents = [LEARNER, *slots]
        self.initial_agents = [LEARNER]
        self.rng = np.random.default_rng(config.seed)
        self.weights = league_config.initial_league()
        self.opponent: str | None = None  # this pair's opponent
        self.pair_left = 0  # games still to start against it on this session
        self.session_games = 0  # games started on this session

    def set_league(self, weights: dict[str, float]) -> None:
        self.weights = check_league(weights, self.league_config.max_snapshots)

    def wants_new_session(self) -> bool:
        """The pair is over, or its opponent left the league."""
        return self.pair_left <= 0 or self.opponent not in self.weights

    def new_session(self) -> None:
        names = list(self.weights)
        self.opponent = names[int(self.rng.choice(len(names), p=list(self.weights.values())))]
        self.pair_left = self.league_config.games_per_opponent

    def open_session(self, key: str) -> dict[str, str]:
        """Against ``opponent``: the learner first (Player1 in game 1)."""
        assert self.opponent is not None
        self.session_games = 0
        level = parse_opponent(self.opponent)
        if isinstance(level, int):
            return {LEARNER: f"{key}:{level}"}
        slot = snapshot_slot(snapshot_version(level), self.league_config.max_snapshots)
        return {LEARNER: key, slot: key}

    def game_started(self) -> None:
        self.pair_left -= 1
        self.session_games += 1

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)  # the same opponents too

    @property
    def hammer(self) -> bool:
        """Whether the learner has the hammer in end 1 of this game (``CurlingLeagueEnv``)."""
        return self.session_games % 2 == 0

    def info(self, clients: dict[str, CurlingClient], game_over: bool) -> dict[str, Any]:
        result = clients[LEARNER].result if game_over else None
        return {"opponent": self.opponent, "result": result, "hammer": self.hammer}


class CurlingLeagueEnv(CurlingMultiAgentEnv):
    """The learner ``"main"`` against league opponents, a pair of games each (module docstring).

    A ``CurlingMultiAgentEnv`` whose seats are a ``LeagueSeating`` (``seating``)."""

    def __init__(self, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        values, league_config = split_env_config({**dict(config or {}), **kwargs})
        if hasattr(config, "copy_with_overrides"):  # RLlib's EnvContext: keep its worker_index
            values = config.copy_with_overrides(env_config=values)  # type: ignore[union-attr]
        super().__init__(values, seating=lambda env: LeagueSeating(env, league_config))
        self.league_config = league_config

    @property
    def league_seating(self) -> LeagueSeating:
        """The league's seats (``seating``): its table, this pair's opponent, the draws."""
        assert isinstance(self.seating, LeagueSeating)
        return self.seating

    @property
    def league(self) -> dict[str, float]:
        """The current league: opponent name → probability of being drawn."""
        return dict(self.league_seating.weights)

    def set_league(self, weights: dict[str, float]) -> None:
        """Draw later opponents ∝ ``weights`` (``check_league``). A pair under way against an
        opponent that is no longer in the league ends at the next ``reset``."""
        self.league_seating.set_league(weights)

    @property
    def opponent(self) -> str | None:
        """The league name of this pair's opponent (None before the first reset)."""
        return self.league_seating.opponent

    @property
    def hammer(self) -> bool:
        """Whether the learner has the hammer in end 1 of this game. The learner is Player1 in
        a session's first game (it connects first; a bot sits in seat 2) and Player1 throws
        first, and the seats swap every game (``server.match``): so in the even games."""
        return self.league_seating.hammer

    def get_observation_space(self, agent_id: Any) -> gym.Space:
        """Every agent (the learner and each snapshot slot) has the same space."""
        return self.agent_observation_space

    def get_action_space(self, agent_id: Any) -> gym.Space:
        """Every agent (the learner and each snapshot slot) has the same space."""
        return self.agent_action_space
