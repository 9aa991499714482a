"""A generation's gate: is the new agent stronger than the one it learned from?

``play_gate(out, make_new, make_old, config)`` plays ``config.games`` games of the new agent
against the old one, head to head, the hammer alternating (the new agent is Player1 in even
games), in Ray tasks of ``config.games_per_shard`` games (one CPU each). Each slice is written
to ``out/shard-NNNNN.json`` as it finishes, so an interrupted gate resumes where it stopped and
comes out the same (game ``g`` is seeded ``[config.seed, g]``: ``bots.matches.play_match``;
a dataset's games are seeded ``[DATASET_SEED_TAG, seed, g]``, so they never meet these).

The new agent is **kept** when it scores at least ``config.threshold`` (draws ½; 0.55 over 200
games, as AlphaGo Zero gated its generations): a fixed weak opponent would hide real gains, and
a head-to-head gate at 50 % would keep a generation on noise. ``Verdict`` holds the games and
the decision; ``out/gate.json`` its summary.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rllib_curling import run_folder
from rllib_curling.bots.base import Bot
from rllib_curling.bots.matches import GameResult, MatchResult, play_match
from rllib_curling.errors import ConfigError
from rllib_curling.game import DEFAULT_ENDS

#: The share of points (draws ½) a new generation needs against the one before it.
GATE_SCORE = 0.55
#: Head-to-head games of a gate.
GATE_GAMES = 200
#: The gate's summary in its folder.
VERDICT_FILE = "gate.json"
#: What the gate was asked to play, checked when it resumes.
CONFIG_FILE = "config.json"

#: A picklable function that builds a player in a Ray task.
MakeBot = Callable[[], Bot]
#: ``progress(done, total, verdict)`` after each slice.
Progress = Callable[[int, int, "Verdict"], None]


@dataclass(frozen=True)
class GateConfig:
    """How a gate is played (``games`` head to head, ``games_per_shard`` per Ray task)."""

    games: int = GATE_GAMES
    games_per_shard: int = 10
    ends: int = DEFAULT_ENDS
    seed: int = 0
    threshold: float = GATE_SCORE

    def __post_init__(self) -> None:
        if self.games < 1 or self.games_per_shard < 1:
            raise ConfigError(
                f"a gate plays at least one game, in slices of at least one; got games="
                f"{self.games}, games_per_shard={self.games_per_shard}"
            )
        if not 0.0 < self.threshold <= 1.0:
            raise ConfigError(f"threshold must be in (0, 1], got {self.threshold!r}")

    @property
    def shards(self) -> int:
        return math.ceil(self.games / self.games_per_shard)

    def shard_games(self, shard: int) -> range:
        first = shard * self.games_per_shard
        return range(first, min(first + self.games_per_shard, self.games))


@dataclass(frozen=True)
class Verdict:
    """The gate's games (``match``: the new agent is ``a``) and whether it is kept."""

    match: MatchResult
    threshold: float

    @property
    def kept(self) -> bool:
        return self.match.n > 0 and self.match.win_rate >= self.threshold

    def as_dict(self) -> dict[str, Any]:
        m = self.match
        return {
            "new": m.a, "old": m.b, "games": m.n, "wins": m.wins, "draws": m.draws,
            "losses": m.losses, "score": m.win_rate, "score_stderr": m.stderr,
            "mean_diff": m.mean_diff, "threshold": self.threshold, "kept": self.kept,
        }  # fmt: skip

    def line(self) -> str:
        """One line: ``57.5 % (+- 3.1) over 200 games (95 W 40 D 65 L): kept``."""
        m = self.match
        pm = "" if math.isnan(m.stderr) else f" (+- {100 * m.stderr:.1f})"
        decision = "kept" if self.kept else f"not kept (under {100 * self.threshold:.0f} %)"
        return (f"{100 * m.win_rate:.1f} %{pm} over {m.n} games "
                f"({m.wins} W {m.draws} D {m.losses} L): {decision}")  # fmt: skip


def play_shard(
    make_new: MakeBot, make_old: MakeBot, config: GateConfig, shard: int
) -> dict[str, Any]:
    """Slice ``shard`` of the gate (in a Ray task): its games as ``shard-NNNNN.json`` has them."""
    start = time.perf_counter()
    games = config.shard_games(shard)
    match = play_match(
        make_new(), make_old(), len(games), config.ends, config.seed, start=games.start
    )
    return {
        "shard": shard, "new": match.a, "old": match.b, "a_seats": list(match.a_seats),
        "games": [
            {"players": list(g.players), "end_scores": [list(s) for s in g.end_scores],
             "shots": g.shots, "centre_line_choices": list(g.centre_line_choices)}
            for g in match.games
        ],
        "seconds": time.perf_counter() - start,
    }  # fmt: skip


def verdict_of(out: Path, config: GateConfig) -> Verdict:
    """The verdict on the slices written in ``out`` so far (all of them once the gate is over)."""
    slices = [json.loads(p.read_text()) for p in sorted(out.glob("shard-*.json"))]
    games = [
        GameResult(
            players=tuple(g["players"]),
            end_scores=tuple(tuple(s) for s in g["end_scores"]),
            shots=g["shots"],
            centre_line_choices=tuple(g["centre_line_choices"]),
        )  # fmt: skip
        for s in slices
        for g in s["games"]
    ]
    match = MatchResult(
        a=slices[0]["new"] if slices else "new", b=slices[0]["old"] if slices else "old",
        ends=config.ends, seed=config.seed, games=tuple(games),
        a_seats=tuple(seat for s in slices for seat in s["a_seats"]),
    )  # fmt: skip
    return Verdict(match, config.threshold)


def play_gate(
    out: str | os.PathLike[str],
    make_new: MakeBot,
    make_old: MakeBot,
    config: GateConfig,
    progress: Progress | None = None,
) -> Verdict:
    """Play every slice not written yet (Ray tasks, one CPU each), then write ``gate.json``."""
    import ray

    path = Path(out).expanduser()
    run_folder.claim(path, CONFIG_FILE, asdict(config), "a gate played")
    todo = [k for k in range(config.shards) if not _shard_file(path, k).exists()]
    done = config.shards - len(todo)
    if todo:
        if not ray.is_initialized():
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        threads = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # one CPU, one thread
        task = ray.remote(num_cpus=1, runtime_env={"env_vars": threads})(play_shard)
        waiting = {task.remote(make_new, make_old, config, k): k for k in todo}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1)
            shard = waiting.pop(ready[0])
            run_folder.write_json(_shard_file(path, shard), ray.get(ready[0]))
            done += 1
            if progress is not None:
                progress(done, config.shards, verdict_of(path, config))
    verdict = verdict_of(path, config)
    run_folder.write_json(path / VERDICT_FILE, verdict.as_dict())
    return verdict


def _shard_file(out: Path, shard: int) -> Path:
    return out / f"shard-{shard:05d}.json"
