"""Teacher games on Digital Curling's ice as RLlib offline data (``curling dataset --ice dc``):
the parallel room of ``offline.dataset``, what BC on ``"curling_dc"`` trains on.

A **teacher** (a DC search level, by default the strongest that can teach: ``dc_teacher_levels``)
searches the DC env's shot layout (``dc_env.spaces.dc_layout()``, ``DC_SHOTS_SPEC``) instead of
its own, so the shot it throws is an action of ``CurlingDC-v0``'s ``action="shots"``
(``SearchDCBot.over_layout``; its re-judge under noise kept). It plays ``games`` games of
``ends`` ends against ``opponents`` in turn (a pair of games each, the hammer alternating): DC
levels as they play (``make_dc_bot``) or ``"self"`` (the teacher in both seats, both labelled),
on the fcv1 ice with DC's noise (``dc_bots.matches.play_dc_game``), in Ray tasks of
``games_per_shard`` games that ``offline.dataset.run_shards`` writes as the platform's shards
(resumable; ``dataset.json`` claims the folder for the config).

Each turn of the teacher is a row, as the DC env would have recorded it from the teacher's side:

| column          | shape, type        | what                                                   |
|-----------------|--------------------|--------------------------------------------------------|
| ``eps_id``      | str                | ``"dc-<seed>-<game>-<team>"``                          |
| ``obs``         | dict               | ``dc_env.spaces.observe(state, team, "shots")``:       |
|                 |                    | ``observations`` (137,) f32 and ``action_mask`` (n,)   |
| ``actions``     | int64              | the layout index the teacher threw (inside the mask)   |
| ``throw``       | (3,) f32           | its release ``(vx, vy, rotation)``                     |
| ``screen``      | (n,) f32           | every legal shot's noise-free value to the teacher     |
|                 |                    | (``dc_bots.candidates.judge``); NaN where illegal      |
| ``end``, ``shot``| int               | the turn's end and stone                               |
| ``score_diff``  | int                | the teacher's total minus the opponent's before it     |
| ``hammer``      | bool               | the teacher has the hammer this end                    |
| ``rewards``, ``new_obs``, ``terminateds``, ``truncateds``, ``end_points``, ``result``:   |
|                 |                    | as on the platform (``offline.game_rows``)             |

Seeds: game ``g`` draws from ``numpy.random.default_rng([DC_DATASET_SEED_TAG, seed, g])``, a stream
no evaluation uses (``play_dc_match`` seeds with plain integers).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rllib_curling.dc_bots.base import DCBot, DCShot
from rllib_curling.dc_game import DCGameConfig, DCGameState
from rllib_curling.errors import ConfigError
from rllib_curling.game import result_for
from rllib_curling.offline.dataset import ShardedGames

#: First word of every DC dataset game's seed (the platform's is ``DATASET_SEED_TAG``).
DC_DATASET_SEED_TAG = 7_245_002
SELF = "self"


def dc_teacher_levels() -> list[int]:
    """The DC levels that can teach: searches that can search the DC env's layout (their bot
    has ``over_layout``), weakest first."""
    from rllib_curling.dc_bots.levels import DC_LEVELS, make_dc_bot

    return [level for level in DC_LEVELS if hasattr(make_dc_bot(level), "over_layout")]


def _default_teacher() -> int:
    return dc_teacher_levels()[-1]


@dataclass(frozen=True)
class DCDatasetConfig(ShardedGames):
    """What ``generate_dc`` plays (module docstring); ``ConfigError`` for a bad value."""

    #: A DC level in ``dc_teacher_levels()`` (default: the highest).
    teacher: int = field(default_factory=_default_teacher)
    #: In turn, a pair of games each: DC levels, or ``"self"``.
    opponents: tuple[int | str, ...] = (4, 5, SELF)
    games: int = 200
    ends: int = DCGameConfig.standard_end_count
    games_per_shard: int = 4
    seed: int = 0
    #: The ``rewards`` column, as the DC env's ``reward`` and ``score_weight``.
    reward: str = "win_score"
    score_weight: float = 0.1
    #: The guard rule (``dc_rules.RULES``).
    rule: str = "fgz"
    #: Marks a DC dataset's ``dataset.json`` (a platform run refuses to mix into it).
    ice: str = "fcv1"

    def __post_init__(self) -> None:
        from rllib_curling.dc_bots.levels import check_dc_level
        from rllib_curling.dc_env.config import DCEnvConfig

        DCEnvConfig(ends=self.ends, rule=self.rule, reward=self.reward,
                    score_weight=self.score_weight)  # checks them  # fmt: skip
        teachers = dc_teacher_levels()
        if self.teacher not in teachers:
            raise ConfigError(f"a DC teacher is a search level {teachers}, got {self.teacher!r}")
        if not self.opponents:
            raise ConfigError("opponents: at least one is needed (a DC level or self)")
        for opponent in self.opponents:
            if opponent != SELF:
                check_dc_level(opponent, "opponent")
        self.check_counts()
        if self.ice != "fcv1":
            raise ConfigError(f"a DC dataset is on the fcv1 ice, got ice={self.ice!r}")

    @property
    def game_config(self) -> DCGameConfig:
        from rllib_curling.dc_env.config import DCEnvConfig

        return DCEnvConfig(ends=self.ends, rule=self.rule).game_config


class JudgingDCBot(DCBot):
    """A DC search over the env's layout that keeps its last judgement (``last``:
    ``dc_bots.search.DCJudgement``)."""

    def __init__(self, level: int) -> None:
        from rllib_curling.dc_bots.levels import make_dc_bot
        from rllib_curling.dc_env.config import DC_SHOTS_SPEC

        self.search: Any = make_dc_bot(level).over_layout(DC_SHOTS_SPEC)  # type: ignore[attr-defined]
        self.level = level
        self.name = f"DC level {level} over the env's shots"
        self.last: Any = None

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        self.last = self.search.judge(state, rng)
        shot: DCShot = self.last.shot
        return shot


def play_dc_rows(
    bots: tuple[Any, Any], labelled: tuple[int, ...], config: DCDatasetConfig,
    rng: np.random.Generator, eps: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """One DC game of ``bots`` (team 0, team 1); the rows (module table) of every turn of the
    teams in ``labelled`` (whose bots are ``JudgingDCBot``\\ s), each team's in order."""
    from rllib_curling.dc_bots.matches import play_dc_game
    from rllib_curling.dc_env.spaces import observe
    from rllib_curling.offline.game_rows import after_columns

    rows: dict[int, list[dict[str, Any]]] = {team: [] for team in labelled}
    turns: dict[int, list[DCGameState]] = {team: [] for team in labelled}

    def on_shot(state: DCGameState, shot: DCShot) -> None:
        team = state.next_team
        if team not in rows:
            return
        judgement = bots[team].last
        mine, theirs = state.totals if team == 0 else state.totals[::-1]
        rows[team].append({
            "obs": observe(state, team, "shots"), "actions": np.int64(judgement.index),
            "throw": np.asarray(shot, np.float32), "screen": judgement.values,
            "end": state.end, "shot": state.shot, "score_diff": mine - theirs,
            "hammer": state.hammer_team == team,
        })  # fmt: skip
        turns[team].append(state)

    game = play_dc_game(bots, config.game_config, rng, on_shot=on_shot)
    final = game.final
    assert final is not None
    out: list[dict[str, Any]] = []
    for team in labelled:
        signed = [s[team] - s[1 - team] for s in final.end_scores]
        result = result_for(team, final.winner).value
        out += after_columns(rows[team], turns[team], final, signed, result, config,
                             functools.partial(_observe_shots, team),
                             f"{eps}-{team}")  # fmt: skip
    return out


def _observe_shots(team: int, state: DCGameState) -> Any:
    from rllib_curling.dc_env.spaces import observe

    return observe(state, team, "shots")


def dc_shard_rows(
    config: DCDatasetConfig, shard: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows of shard ``shard``'s games and a summary (games, rows, the teacher's score
    rate, seconds)."""
    from rllib_curling.dc_bots.levels import make_dc_bot

    start = time.perf_counter()
    teacher = JudgingDCBot(config.teacher)
    opponents: dict[int | str, Any] = {
        o: teacher if o == SELF else make_dc_bot(int(o)) for o in dict.fromkeys(config.opponents)
    }
    rows: list[dict[str, Any]] = []
    results: list[float] = []
    for game in config.shard_games(shard):
        rng = np.random.default_rng([DC_DATASET_SEED_TAG, config.seed, game])
        team = game % 2
        opponent = opponents[config.opponent_of(game)]
        bots = (teacher, opponent) if team == 0 else (opponent, teacher)
        labelled = (0, 1) if opponent is teacher else (team,)
        game_rows = play_dc_rows(bots, labelled, config, rng, f"dc-{config.seed}-{game}")
        rows += game_rows
        results.append(float(np.mean([r["result"] for r in game_rows if r["terminateds"]])))
    summary = {
        "shard": shard, "games": len(results), "rows": len(rows),
        "score_rate": float(np.mean(results)), "seconds": time.perf_counter() - start,
    }  # fmt: skip
    return rows, summary


def generate_dc(out: Any, config: DCDatasetConfig, progress: Any = None) -> list[dict[str, Any]]:
    """Play and write every shard of ``config`` not written yet in ``out`` (Ray tasks, one CPU
    each; ``offline.dataset.run_shards``); the summaries of the shards played now."""
    from rllib_curling.offline.dataset import run_shards

    return run_shards(out, config, dc_shard_rows, (), progress)
