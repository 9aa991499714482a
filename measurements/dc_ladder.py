"""The DC levels against each other on the fcv1 ice with DC's noise and rules, in-process (no
server, no clock): every pair of the given levels plays ``--games`` games (teams alternating), the
same games for the same seed:

    python measurements/dc_ladder.py --levels 0 1 2 3 4 5 6 --games 20 --ends 8 --seed 0

Prints one line per pair (the lower level first: its wins, the higher level's wins, draws, points,
the higher level's score rate with draws ½, seconds) and a JSON summary at the end.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

from rllib_curling.dc_bots.levels import DC_LEVELS, make_dc_bot
from rllib_curling.dc_bots.matches import play_dc_match
from rllib_curling.dc_game import DCGameConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=list(DC_LEVELS))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ends", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = DCGameConfig(standard_end_count=args.ends)
    rows = []
    for low, high in itertools.combinations(sorted(args.levels), 2):
        start = time.perf_counter()
        match = play_dc_match(make_dc_bot(low), make_dc_bot(high), args.games, config, args.seed)
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
    print(json.dumps({"games": args.games, "ends": args.ends, "seed": args.seed, "pairs": rows}))


if __name__ == "__main__":
    main()
