"""The DC levels against each other on the fcv1 ice with DC's noise and rules, in-process (no
server, no clock): every pair of the given levels plays ``--games`` games (teams alternating), the
same games for the same seed:

    python measurements/dc_ladder.py --levels 0 1 2 3 4 5 6 7 8 --games 20 --ends 8 --seed 0

Prints one line per pair (the lower level first: its wins, the higher level's wins, draws, points,
the higher level's score rate with draws ½, seconds), then each level's decision time per shot
over all its games (median and 90th percentile, wall clock, in this process), and a JSON summary
at the end.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

from rllib_curling.dc_bots.base import DCBot, DCShot
from rllib_curling.dc_bots.levels import DC_LEVELS, make_dc_bot
from rllib_curling.dc_bots.matches import play_dc_match
from rllib_curling.dc_game import DCGameConfig, DCGameState


class Timed(DCBot):
    """A DC bot that records how long each of its decisions took (``seconds``)."""

    def __init__(self, bot: DCBot, seconds: list[float]) -> None:
        self.bot, self.seconds = bot, seconds
        self.level, self.name = bot.level, bot.name

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        start = time.perf_counter()
        shot = self.bot.choose(state, rng)
        self.seconds.append(time.perf_counter() - start)
        return shot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=list(DC_LEVELS))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ends", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = DCGameConfig(standard_end_count=args.ends)
    rows = []
    spent_by_level: dict[int, list[float]] = {level: [] for level in args.levels}
    for low, high in itertools.combinations(sorted(args.levels), 2):
        start = time.perf_counter()
        a, b = (Timed(make_dc_bot(k), spent_by_level[k]) for k in (low, high))
        match = play_dc_match(a, b, args.games, config, args.seed)
        seconds = time.perf_counter() - start
        low_wins, high_wins, draws = match.wins
        rate = 1.0 - match.a_score
        row = {
            "low": low, "high": high, "low_wins": low_wins, "high_wins": high_wins,
            "draws": draws, "points": list(match.points), "high_score_rate": round(rate, 3),
            "seconds": round(seconds, 1),
        }  # fmt: skip
        rows.append(row)
        print(
            f"{low} vs {high}: {low_wins}-{high_wins} ({draws} drawn), points "
            f"{match.points[0]}-{match.points[1]}, level {high} scores {rate:.0%} "
            f"({seconds:.0f} s)",
            flush=True,
        )
    times = {}
    for level, spent in sorted(spent_by_level.items()):
        median, p90 = np.percentile(spent, [50, 90]) if spent else (np.nan, np.nan)
        times[level] = {"shots": len(spent), "median_s": round(median, 4), "p90_s": round(p90, 4)}
        print(f"level {level}: {len(spent)} shots, median {median:.3f} s, p90 {p90:.3f} s a shot")
    summary = {"games": args.games, "ends": args.ends, "seed": args.seed, "pairs": rows}
    print(json.dumps({**summary, "decision_seconds": times}))


if __name__ == "__main__":
    main()
