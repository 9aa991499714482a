"""Count how often DC's hammer team scores each number of points in an end, over DC games of a
DC level against itself on the fcv1 ice with DC's noise, and write DC's win table
(``rllib_curling.dc_win_table``):

    python measurements/build_dc_win_table.py --level 7 --games 24 --ends 8 --seed 300

Games run in processes (``--workers``), game ``g`` seeded ``seed + 1000 g``; extra ends count
too. Prints the counts and a few chances to win, and writes ``rllib_curling/data/
dc_win_table.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from rllib_curling import dc_win_table, win_odds
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_bots.matches import play_dc_match
from rllib_curling.dc_game import DCGameConfig


def hammer_scores(level: int, games: list[int], ends: int, seed: int) -> list[int]:
    bot = make_dc_bot(level)
    out: list[int] = []
    for g in games:
        match = play_dc_match(bot, bot, 1, DCGameConfig(standard_end_count=ends), seed + 1000 * g)
        out += dc_win_table.hammer_scores(match.games[0].end_scores)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=int, default=7)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--ends", type=int, default=8)
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(dc_win_table.DEFAULT_FILE))
    args = parser.parse_args()
    start = time.perf_counter()
    split = [list(range(w, args.games, args.workers)) for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        parts = pool.map(hammer_scores, [args.level] * args.workers, split,
                         [args.ends] * args.workers, [args.seed] * args.workers)  # fmt: skip
        scores = [s for part in parts for s in part]
    counts = win_odds.count_end_scores(scores)
    table = dc_win_table.dc_table(win_odds.from_counts(counts).end_scores)
    source = (
        f"DC level {args.level} against itself on the fcv1 ice with DC's noise, {args.ends}-end "
        f"games, seeds {args.seed} + 1000 g (measurements/build_dc_win_table.py)"
    )
    with open(args.out, "w") as f:
        f.write(table.to_json(args.games, source))
    print(f"{len(scores)} ends in {time.perf_counter() - start:.0f} s; hammer team's scores:")
    for s, c in zip(win_odds.END_SCORES, counts, strict=True):
        if c:
            print(f"  {s:+d}: {int(c)}")
    for diff, ends, hammer in ((0, 8, 1), (0, 8, 0), (0, 0, 1), (1, 1, 0), (-1, 1, 1), (2, 2, 0)):
        print(f"win({diff:+d}, {ends} ends, hammer={hammer}) = {table.win(diff, ends, hammer):.3f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
