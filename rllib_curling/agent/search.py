"""The agent's search (``--search K``): the network proposes, a search over the engine decides.

At each turn:

1. **Candidates**: the policy's ``K`` most likely actions (Discrete: the ``K`` highest logits or
   Q-values; Box: the Gaussian's mean and ``K - 1`` draws from it), turned into throws exactly as
   in training (``env.spaces.throw_for``), joined with level 8's own candidates (about 600
   draws, guards and hits; ``level_candidates=False`` keeps the policy's alone).
2. **Judge** (``bots.search.SearchBot`` with ``AGENT_SPEC``, level 8's search looking harder):
   every candidate once without noise; the best ``top_k`` again ``samples`` times under the
   platform's execution noise; the best ``reply`` by the opponent's best answers, whose own best
   ``reply_top`` are thrown ``reply_samples`` times under noise. Positions are judged by the
   chance to win (``bots.evaluation``), blended with the network's **learned value**
   (``value_weight``) where a stone is still to come in the end: its value head's chance to
   win (``module_leaf_value``) and, for a network with an end-score head, that head's
   distribution of the end's score through the win table (``end_score_leaf``), the latter
   weighted ``end_score_share`` (``learned_leaf``).
3. The best is played (ties keep the policy's order: its proposals come first).

The engine moves stones like the platform's server (``physics.md``), so the search judges shots
as they will run, on our server or the platform's. Cost: about 3,500 simulated throws a turn
(``curling bench`` figures in RESULTS.md).

Names: ``bots.search`` is the built-in levels' search (``SearchBot``); this module is the agent's,
which drives it: ``AgentSearch`` is a ``SearchBot`` whose candidates include the policy's,
``PolicySearch`` keeps one for a player's every turn and answers a ``SearchChoice``, ``AgentBot``
is a loaded policy, searching or not, as an in-process ``Bot``. The folder says whose search.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling import observation, win_table
from rllib_curling.agent.policy import LoadedPolicy, SearchEffort, load_policy
from rllib_curling.aiming.tables import ShotTables, shot_tables
from rllib_curling.bots.base import Bot, Throw, clamped_throw
from rllib_curling.bots.candidates import SearchSpec
from rllib_curling.bots.levels import MAX_LEVEL
from rllib_curling.bots.search import SPECS, LeafValue, SearchBot
from rllib_curling.client import CurlingClient
from rllib_curling.env.spaces import action_mode, action_throw, observe_state, throw_for
from rllib_curling.errors import ConfigError
from rllib_curling.game import GameConfig, GameState
from rllib_curling.win_table import END_SCORES, ENDS_MAX, N_SCORES, WinTable

#: How hard the agent's search looks: level 8's candidates and judgement, with more noisy
#: throws per candidate, more candidates against the opponent's answers, and those answers
#: judged under noise too.
AGENT_SPEC = dataclasses.replace(
    SPECS[MAX_LEVEL], top_k=24, samples=24, reply=8, reply_top=4, reply_samples=8
)
#: Noisy throws per re-judged candidate unless told otherwise.
DEFAULT_SAMPLES = AGENT_SPEC.samples

#: Shots an explaining agent shows: the policy's most likely, and the search's best judged.
EXPLAIN_TOP = 5
EXPLAIN_CANDIDATES = 8

#: ``propose(obs, k, rng)``: up to ``k`` distinct actions of the policy, most likely first.
Propose = Callable[[np.ndarray, int, np.random.Generator], list[Any]]


def game_state(client: CurlingClient) -> GameState:
    """The game as the client sees it, as a ``GameState`` (the match score is carried by the
    first end's entry; the search needs only the totals)."""
    assert client.state is not None and client.seat is not None, "no SETSTATE received yet"
    shot, end, total, next_seat = client.state
    mine, theirs = client.totals
    first = (mine, theirs) if client.seat == 0 else (theirs, mine)
    scores = (first,) + ((0, 0),) * (end - 1) if end > 0 else ()
    return GameState(
        position=client.position,
        shot=shot,
        end=end,
        first_seat=next_seat if shot % 2 == 0 else 1 - next_seat,
        end_scores=scores,
        config=GameConfig(ends=total if total > 0 else -1),
    )


def _movers_view(state: GameState, positions: np.ndarray, shot: int) -> tuple[np.ndarray, int, int]:
    """What the player to throw after stone ``shot`` sees of ``positions`` (M, 16, 2): their
    observations (M, OBS_SIZE), that player's score difference and seat parity in ``state``."""
    first_thrower = state.first_seat if shot % 2 == 0 else 1 - state.first_seat
    mover = 1 - first_thrower
    p1, p2 = state.totals
    diff = p1 - p2 if mover == 0 else p2 - p1
    parity = state.seat_parity(mover)
    ends = state.config.ends
    obs = observation.encode_observations(positions, shot + 1, state.end, ends, parity, diff)
    return obs, diff, parity


def module_leaf_value(compute_values: Callable[[np.ndarray], np.ndarray]) -> LeafValue:
    """A ``LeafValue`` from a value function ``(B, OBS_SIZE) -> (B,)`` of the player to move
    (an RLModule's value head, trained on the ``win`` or ``win_score`` reward: about +1 for a
    won game, −1 for a lost one), read as the chance to win ``(1 + V) / 2``, clipped to [0, 1].

    A position right after stone ``shot`` is seen by the player who throws next: its chance to
    win is ``p``, the thrower's ``1 - p``."""

    def leaf(state: GameState, positions: np.ndarray, shot: int) -> np.ndarray:
        obs, _, _ = _movers_view(state, positions, shot)
        value = np.asarray(compute_values(obs), dtype=np.float64).reshape(len(positions))
        return 1.0 - np.clip(0.5 + 0.5 * value, 0.0, 1.0)

    return leaf


def end_score_leaf(end_scores: Callable[[np.ndarray], np.ndarray], table: WinTable) -> LeafValue:
    """A ``LeafValue`` from an end-score head ``(B, OBS_SIZE) -> (B, N_SCORES)`` (the
    probabilities of the end's score for the player to move, ``win_odds.END_SCORES``): the
    mover's chance to win ``Σ_s p(s) · table.after_end(diff, s, ends after, hammer)``, the
    thrower's ``1 -`` that, as ``module_leaf_value`` reads it."""

    def leaf(state: GameState, positions: np.ndarray, shot: int) -> np.ndarray:
        obs, diff, parity = _movers_view(state, positions, shot)  # parity 1: the mover's hammer
        ends = state.config.ends
        p = np.asarray(end_scores(obs), dtype=np.float64).reshape(len(positions), N_SCORES)
        ends_after = ends - state.end - 1 if ends > 0 else ENDS_MAX
        chance: np.ndarray = 1.0 - p @ table.after_end(diff, END_SCORES, ends_after, parity)
        return chance

    return leaf


def learned_leaf(policy: LoadedPolicy, end_score_share: float = 0.0) -> LeafValue:
    """The network's judgement of a leaf: its value head's (``module_leaf_value``) and its
    end-score head's (``end_score_leaf`` through the package's win table) chance to win, the
    latter weighted ``end_score_share``; ``ConfigError`` for a head the policy lacks."""
    if end_score_share > 0 and not policy.has_end_scores:
        raise ConfigError("end_score_share > 0 needs a network with an end-score head "
                          "(model_config end_score_hiddens)")  # fmt: skip
    if end_score_share < 1 and not policy.has_values:
        raise ConfigError("a learned value needs a policy with a value head (PPO, BC, MARWIL)")
    if end_score_share <= 0:
        return module_leaf_value(policy.values)
    scores = end_score_leaf(policy.end_scores, win_table.load())
    if end_score_share >= 1:
        return scores
    values = module_leaf_value(policy.values)

    def leaf(state: GameState, positions: np.ndarray, shot: int) -> np.ndarray:
        return (end_score_share * scores(state, positions, shot)
                + (1.0 - end_score_share) * values(state, positions, shot))  # fmt: skip

    return leaf


class AgentSearch(SearchBot):
    """``AGENT_SPEC``'s search over level 8's candidates joined with ``proposals`` (N, 4)."""

    def __init__(
        self,
        proposals: np.ndarray,
        spec: SearchSpec = AGENT_SPEC,
        *,
        level_candidates: bool = True,
        leaf_value: LeafValue | None = None,
        value_weight: float = 0.0,
    ) -> None:
        super().__init__(MAX_LEVEL, spec, leaf_value=leaf_value, value_weight=value_weight)
        self.proposals = np.asarray(proposals, dtype=np.float64).reshape(-1, 4)
        self.level_candidates = level_candidates

    def candidates(self, state: GameState, tables: ShotTables) -> np.ndarray:
        if not self.level_candidates:
            return self.proposals
        return np.concatenate([self.proposals, super().candidates(state, tables)])


def shot_teacher(checkpoint: str, name: str | None = None, labels: str = "search") -> Bot:
    """The agent of ``checkpoint`` as a teacher over the shot set (``curling dataset --action
    shots``): ``AGENT_SPEC``'s search with the shot set's legal actions as its only candidates,
    as far as ``labels`` says (``offline.dataset.LABELS``), positions judged with the
    network's learned value weighted as the agent folder says (none for a plain checkpoint); it
    keeps each judgement (``offline.search_labels.JudgingBot``)."""
    from rllib_curling.offline.dataset import labelling_spec
    from rllib_curling.offline.search_labels import JudgingBot

    policy = load_policy(checkpoint)
    defaults = policy.search_defaults
    weight = defaults.value_weight if policy.has_values else 0.0
    leaf = learned_leaf(policy, defaults.end_score_share) if weight > 0 else None
    search = AgentSearch(
        np.zeros((0, 4)), labelling_spec(AGENT_SPEC, labels), leaf_value=leaf, value_weight=weight
    )
    return JudgingBot(search, name=name or f"agent {checkpoint} over the shot set ({labels})")


@dataclass(frozen=True)
class SearchChoice:
    """What the agent's search chose: the ``throw`` ``(v, h, w, sweep)`` and its best
    ``EXPLAIN_CANDIDATES`` judged candidates, best first (the first is the throw), (K, 4)."""

    throw: Throw
    judged: np.ndarray


@dataclass
class PolicySearch:
    """The agent's search over a policy's top ``k`` proposals (see the module docstring)."""

    k: int
    samples: int = DEFAULT_SAMPLES
    seed: int | None = None
    level_candidates: bool = True
    value_weight: float = 0.0
    leaf_value: LeafValue | None = None
    #: How hard it looks beyond ``AGENT_SPEC`` (an agent folder's ``SearchDefaults.effort``);
    #: ``samples`` wins over the effort's.
    effort: SearchEffort = dataclasses.field(default_factory=SearchEffort)

    def __post_init__(self) -> None:
        if self.k < 1 or self.samples < 1:
            raise ConfigError(f"search needs k >= 1 and samples >= 1, got {self.k}, {self.samples}")
        if not 0.0 <= self.value_weight <= 1.0:
            raise ConfigError(f"value_weight must be in [0, 1], got {self.value_weight}")
        if self.value_weight > 0 and self.leaf_value is None:
            raise ConfigError("value_weight > 0 needs a policy with a value head")
        self.rng = np.random.default_rng(self.seed)
        # One search for every turn: it keeps level 8's draw candidates, which never change.
        self._search = AgentSearch(
            np.zeros((0, 4)), dataclasses.replace(self.effort.applied(AGENT_SPEC),
                                                  samples=self.samples),
            level_candidates=self.level_candidates, leaf_value=self.leaf_value,
            value_weight=self.value_weight,
        )  # fmt: skip

    def choose(
        self, propose: Propose, obs: np.ndarray, client: CurlingClient, mode: str,
        tables: ShotTables,
    ) -> SearchChoice:  # fmt: skip
        """The throw to play on ``client``'s game: the best of the policy's proposals and (with
        ``level_candidates``) level 8's candidates."""
        proposals = propose(obs, self.k, self.rng)
        throws = np.array([throw_for(a, client, mode, tables) for a in proposals])
        return self.best(game_state(client), throws)

    def best(
        self, state: GameState, proposals: np.ndarray, rng: np.random.Generator | None = None
    ) -> SearchChoice:
        """The best throw from ``state`` among ``proposals`` (N, 4) and level 8's candidates
        (the noise drawn from ``rng``, else the search's own generator)."""
        self._search.proposals = np.asarray(proposals, dtype=np.float64).reshape(-1, 4)
        candidates, order = self._search.rank(state, self.rng if rng is None else rng)
        throw = clamped_throw(*candidates[int(order[0])])
        return SearchChoice(throw, candidates[order[:EXPLAIN_CANDIDATES]])


class AgentBot(Bot):
    """A loaded policy (``agent.policy.load_policy``), with the agent's search or without, as an
    in-process bot: it plays from a ``GameState`` as the env would see it (``curling dataset``'s
    teacher, matches without a server, a seat on ``curling server``'s page). ``search=None``: the
    policy's own choice. ``explain``: ``explanation()`` says why it threw what it threw (below)."""

    def __init__(
        self, policy: LoadedPolicy, search: PolicySearch | None = None, name: str = "agent",
        *, explain: bool = False,
    ) -> None:  # fmt: skip
        self.policy = policy
        self.search = search
        self.mode, self.sweep = action_mode(policy.action_space)
        self.name = name
        self.explain = explain
        self._explanation: dict[str, Any] | None = None

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        obs = observe_state(state, state.next_seat, self.mode)  # the env's observation
        parity = state.seat_parity(state.next_seat)
        tables = shot_tables()

        def throw_of(action: Any) -> Throw:
            return action_throw(action, self.mode, tables, state.position, parity, state.shot)

        judged = None
        if self.search is None:
            throw = clamped_throw(*throw_of(self.policy(obs)))
        else:
            proposals = self.policy.propose(obs, self.search.k, rng)
            choice = self.search.best(state, np.array([throw_of(a) for a in proposals]), rng)
            throw, judged = choice.throw, choice.judged
        if self.explain:
            self._explanation = explain_throw(self.policy, judged, obs, throw_of)
        return throw

    def explanation(self) -> dict[str, Any] | None:
        """Why the last throw (with ``explain``), as the page draws it:

        | key          | what                                                              |
        |--------------|-------------------------------------------------------------------|
        | ``win``      | the value head's chance to win for the thrower, (1 + V) / 2, or   |
        |              | None without a value head                                         |
        | ``top``      | the policy's ``EXPLAIN_TOP`` most likely shots: ``{"throw":       |
        |              | [v, h, w, sweep], "p": probability or None}``                     |
        | ``judged``   | with the search, its best ``EXPLAIN_CANDIDATES`` candidates, best |
        |              | first (the first was thrown): ``[v, h, w, sweep]`` each           |
        """
        return self._explanation


def explain_throw(
    policy: LoadedPolicy, judged: np.ndarray | None, obs: Any, throw_of: Callable[[Any], Throw]
) -> dict[str, Any]:
    """Why a loaded policy threw from ``obs``: the keys of ``AgentBot.explanation``. ``judged``:
    its search's best candidates (``SearchChoice.judged``), None without a search;
    ``throw_of(action)``: the throw of one of its actions."""
    top, probabilities = policy.likely(obs, EXPLAIN_TOP)
    win = None
    if policy.has_values:
        flat = obs["observations"] if isinstance(obs, dict) else obs
        value = float(policy.values(np.asarray(flat)[None])[0])
        win = round(float(np.clip(0.5 + 0.5 * value, 0.0, 1.0)), 4)
    shots = [
        {"throw": _rounded(clamped_throw(*throw_of(action))),
         "p": None if probabilities is None else round(probabilities[i], 4)}
        for i, action in enumerate(top)
    ]  # fmt: skip
    return {
        "win": win,
        "top": shots,
        "judged": [] if judged is None else [_rounded(t) for t in judged],
    }


def _rounded(throw: Any) -> list[float]:
    return [round(float(x), 4) for x in np.asarray(throw, dtype=np.float64).ravel()[:4]]
