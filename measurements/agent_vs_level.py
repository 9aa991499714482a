"""An agent (a checkpoint and search settings) against a built-in level, in-process: no server,
the same games for the same seed, so settings compare game by game. The ablations of the shipped
agent's model card were made with it, e.g. the learned value's weight:

    python measurements/agent_vs_level.py results/curling-bc 8 --games 100 --seed 600 \\
        --search 8 --value-weight 0.6

Prints one line per game (the totals, Player1 first; the agent is Player1 in even games) and a
JSON summary: wins, draws, losses, the score rate (draws ½) and the agent's time per shot.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rllib_curling.agent.player import agent_bot
from rllib_curling.bots import make_bot
from rllib_curling.bots.matches import play_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("level", type=int)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=600)
    parser.add_argument("--search", type=int, default=None, help="K (0: no search)")
    parser.add_argument("--value-weight", type=float, default=None)
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
        bot, make_bot(args.level), args.games, seed=args.seed,
        progress=lambda g, game: print(g, game.totals, flush=True),
    )  # fmt: skip
    print(json.dumps({
        "checkpoint": args.checkpoint, "level": args.level, "search": args.search,
        "value_weight": args.value_weight, "games": args.games, "wins": result.wins,
        "draws": result.draws, "losses": result.losses, "score_rate": result.win_rate,
        "median_s": float(np.median(times)), "p90_s": float(np.percentile(times, 90)),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
