"""The guided search (``rllib_curling.agent.guided``) of a shot network against a built-in
level, in-process: games, score (draws ½), and where a turn's time goes.

    python measurements/guided_search.py measurements/agents/shot-network --opponent 8 --games 20
    python measurements/guided_search.py CHECKPOINT --replies 2 --candidates 8 --json

Seeds: game g of the match plays with seed ``[--seed, g]`` (default 3,000,000: neither
training's, ``rllib evaluate``'s 1,000,000 + L nor ``curling rate``'s 2,000,000 + k); the search
is Player1 in even games (without the hammer in end 1), Player2 in odd ones. The engine and the
network run on one thread (``torch.set_num_threads(1)``), as a search beside another does.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rllib_curling import win_table
from rllib_curling.agent.guided import GuidedSearch, GuidedSpec, ShotJudge
from rllib_curling.agent.policy import load_policy
from rllib_curling.bots import make_bot
from rllib_curling.bots.matches import play_match
from rllib_curling.game import GameState

SEED = 3_000_000


class Timed(GuidedSearch):
    """A ``GuidedSearch`` that keeps each turn's wall time."""

    turn_seconds: list[float]

    def choose(self, state: GameState, rng: np.random.Generator) -> tuple[float, ...]:
        started = time.perf_counter()
        throw = super().choose(state, rng)
        self.turn_seconds.append(time.perf_counter() - started)
        return throw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--opponent", type=int, default=8)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ends", type=int, default=4)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--candidates", type=int, default=GuidedSpec.candidates)
    parser.add_argument("--samples", type=int, default=GuidedSpec.samples)
    parser.add_argument("--replies", type=int, default=GuidedSpec.replies)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    table = win_table.load()
    judge = ShotJudge(load_policy(args.checkpoint).module.net, table)
    spec = GuidedSpec(candidates=args.candidates, samples=args.samples, replies=args.replies)
    bot = Timed(judge, table, spec)
    bot.turn_seconds = []
    started = time.perf_counter()

    def progress(g: int, result: object) -> None:
        print(f"game {g + 1}/{args.games}: {result.totals}", flush=True)  # type: ignore[attr-defined]

    match = play_match(bot, make_bot(args.opponent), args.games, args.ends, args.seed,
                       progress=None if args.json else progress)  # fmt: skip
    wall = time.perf_counter() - started
    turns = np.array(bot.turn_seconds)
    search_s = float(turns.sum())
    report = {
        "checkpoint": args.checkpoint, "opponent": args.opponent, "games": args.games,
        "spec": vars(spec), "won": match.wins, "drawn": match.draws, "lost": match.losses,
        "score": match.win_rate, "stderr": match.stderr, "points": match.mean_points,
        "turn_ms_median": 1000 * float(np.median(turns)),
        "turn_ms_p90": 1000 * float(np.percentile(turns, 90)),
        "network_rows_per_turn": judge.rows / len(turns),
        "network_calls_per_turn": judge.calls / len(turns),
        "network_rows_per_s_of_search": judge.rows / search_s,
        "wall_s": wall,
    }  # fmt: skip
    if args.json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        print(f"{key:>30}: {value:.3f}" if isinstance(value, float) else f"{key:>30}: {value}")


if __name__ == "__main__":
    main()
