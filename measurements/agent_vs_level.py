"""An agent (a checkpoint and search settings) against a built-in level, in-process: no server,
the same games for the same seed, so settings compare game by game. The ablations of the shipped
agent's model card were made with it, e.g. the learned value's weight:

    python measurements/agent_vs_level.py results/curling-bc 8 --games 100 --seed 600 \\
        --search 8 --value-weight 0.6

Prints one line per game (the totals and each end's score, Player1 first; the agent is Player1
in even games) and a JSON summary: wins, draws, losses, the score rate (draws ½), the agent's
time per shot, and its points in the ends where it has the hammer and where the level has it
(``hammer_ends``: points -> ends). ``--start N`` plays games N, N+1, ... of the same seed, so a
run stopped after N games is finished with the same games it would have played.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

from rllib_curling.agent.player import agent_bot
from rllib_curling.bots import make_bot
from rllib_curling.bots.matches import GameResult, play_match
from rllib_curling.game import GameConfig, GameState, first_seat_after


def hammer_ends(game: GameResult, agent_seat: int, counts: dict[str, Counter[int]]) -> None:
    """Count the agent's points in each end of ``game`` under whose hammer it was played
    (the game's rules say who throws first in the first end and after each)."""
    config = GameConfig(ends=len(game.end_scores))
    first = GameState(config=config).first_seat
    for p1, p2 in game.end_scores:
        points = p1 - p2 if agent_seat == 0 else p2 - p1
        counts["agent" if 1 - first == agent_seat else "level"][points] += 1
        first = first_seat_after(first, (p1, p2), config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("level", type=int)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=600)
    parser.add_argument("--search", type=int, default=None, help="K (0: no search)")
    parser.add_argument("--value-weight", type=float, default=None)
    parser.add_argument("--start", type=int, default=0, help="first game number (0)")
    args = parser.parse_args()
    bot = agent_bot(args.checkpoint, search=args.search, value_weight=args.value_weight)
    times: list[float] = []
    choose = bot.choose

    def timed(state, rng):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        throw = choose(state, rng)
        times.append(time.perf_counter() - start)
        return throw

    bot.choose = timed  # type: ignore[method-assign]
    result = play_match(
        bot, make_bot(args.level), args.games, seed=args.seed, start=args.start,
        progress=lambda g, game: print(g, game.totals, list(game.end_scores), flush=True),
    )  # fmt: skip
    counts: dict[str, Counter[int]] = {"agent": Counter(), "level": Counter()}
    for game, seat in zip(result.games, result.a_seats, strict=True):
        hammer_ends(game, seat, counts)
    print(json.dumps({
        "checkpoint": args.checkpoint, "level": args.level, "search": args.search,
        "value_weight": args.value_weight, "games": args.games, "wins": result.wins,
        "draws": result.draws, "losses": result.losses, "score_rate": result.win_rate,
        "start": args.start,
        "median_s": float(np.median(times)), "p90_s": float(np.percentile(times, 90)),
        "hammer_ends": {who: dict(sorted(c.items())) for who, c in counts.items()},
    }))  # fmt: skip


if __name__ == "__main__":
    main()
