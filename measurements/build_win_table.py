"""Count how often the hammer team scores each number of points in an end, over games of a
built-in level against itself, and write the package's win table (``rllib_curling.win_table``):

    python measurements/build_win_table.py --level 8 --games 400 --seed 300

Games run in processes (``--workers``); seeds ``[seed, game]``. Prints the table's chances to
win at a few points and writes ``rllib_curling/data/win_table.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from rllib_curling import win_table
from rllib_curling.bots import make_bot
from rllib_curling.bots.matches import play_match
from rllib_curling.game import GameConfig


def hammer_scores(level: int, games: list[int], seed: int) -> list[int]:
    bot = make_bot(level)
    out: list[int] = []
    for g in games:
        match = play_match(bot, bot, 1, ends=4, seed=seed + 1000 * g)
        out += win_table.hammer_scores(match.games[0].end_scores, GameConfig(ends=4))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=int, default=8)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(win_table.DEFAULT_FILE))
    args = parser.parse_args()
    start = time.perf_counter()
    split = [list(range(w, args.games, args.workers)) for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        parts = pool.map(hammer_scores, [args.level] * args.workers, split,
                         [args.seed] * args.workers)  # fmt: skip
        scores = [s for part in parts for s in part]
    counts = win_table.count_end_scores(scores)
    table = win_table.from_counts(counts)
    source = f"level {args.level} against itself, 4-end games, seeds [{args.seed} + 1000 g, 0]"
    with open(args.out, "w") as f:
        f.write(table.to_json(args.games, source))
    print(f"{len(scores)} ends in {time.perf_counter() - start:.0f} s; hammer team's scores:")
    for s, c in zip(win_table.END_SCORES, counts, strict=True):
        if c:
            print(f"  {s:+d}: {int(c)}")
    for diff, ends, hammer in ((0, 4, 1), (0, 4, 0), (1, 1, 0), (-1, 1, 1), (2, 2, 0)):
        print(f"win({diff:+d}, {ends} ends, hammer={hammer}) = {table.win(diff, ends, hammer):.3f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
