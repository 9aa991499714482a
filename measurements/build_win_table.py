"""Count how often the hammer team scores each number of points in an end, over games of a
built-in level against itself, and write that ice's win table (``rllib_curling.win_table`` for
the platform's, ``rllib_curling.dc_win_table`` for Digital Curling's fcv1 ice with DC's noise):

    python measurements/build_win_table.py --level 8 --games 400 --seed 300
    python measurements/build_win_table.py --ice dc --level 7 --games 24 --ends 8 --seed 300

Games run in processes (``--workers``), game ``g`` seeded ``seed + 1000 g``; extra ends (DC)
count too. Prints the counts and a few chances to win, and writes the ice's table file
(``rllib_curling/data/win_table.json``, ``dc_win_table.json``; ``--out``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rllib_curling import dc_win_table, win_odds, win_table


def platform_scores(level: int, ends: int, seed: int) -> list[int]:
    """The hammer team's score per end of one platform game of ``level`` against itself."""
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import play_match
    from rllib_curling.game import GameConfig

    bot = make_bot(level)
    match = play_match(bot, bot, 1, ends=ends, seed=seed)
    return win_table.hammer_scores(match.games[0].end_scores, GameConfig(ends=ends))


def dc_scores(level: int, ends: int, seed: int) -> list[int]:
    """The hammer team's score per end of one DC game of DC ``level`` against itself."""
    from rllib_curling.dc_bots.levels import make_dc_bot
    from rllib_curling.dc_bots.matches import play_dc_match
    from rllib_curling.dc_game import DCGameConfig

    bot = make_dc_bot(level)
    match = play_dc_match(bot, bot, 1, DCGameConfig(standard_end_count=ends), seed)
    return dc_win_table.hammer_scores(match.games[0].end_scores)


@dataclass(frozen=True)
class Ice:
    """What one ice's table is built from: its games, its rules' table, its defaults."""

    name: str  # as the source line says it
    scores: Callable[[int, int, int], list[int]]  # (level, ends, seed) -> hammer scores
    table: Callable[[np.ndarray], win_odds.WinTable]  # end-score probabilities -> table
    out: Path
    level: int
    games: int
    ends: int


ICES = {
    "platform": Ice("", platform_scores, win_odds.WinTable, win_table.DEFAULT_FILE, 8, 400, 4),
    "dc": Ice("DC ", dc_scores, dc_win_table.dc_table, dc_win_table.DEFAULT_FILE, 7, 24, 8),
}


def hammer_scores(ice: str, level: int, games: list[int], ends: int, seed: int) -> list[int]:
    return [s for g in games for s in ICES[ice].scores(level, ends, seed + 1000 * g)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ice", choices=sorted(ICES), default="platform")
    parser.add_argument("--level", type=int, help="default: 8 (platform), 7 (dc)")
    parser.add_argument("--games", type=int, help="default: 400 (platform), 24 (dc)")
    parser.add_argument("--ends", type=int, help="ends per game; default: 4 (platform), 8 (dc)")
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", help="default: the package's table of that ice")
    args = parser.parse_args()
    ice = ICES[args.ice]
    level, games = args.level or ice.level, args.games or ice.games
    ends, out = args.ends or ice.ends, args.out or str(ice.out)
    start = time.perf_counter()
    split = [list(range(w, games, args.workers)) for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        n = args.workers
        parts = pool.map(hammer_scores, [args.ice] * n, [level] * n, split, [ends] * n,
                         [args.seed] * n)  # fmt: skip
        scores = [s for part in parts for s in part]
    counts = win_odds.count_end_scores(scores)
    table = ice.table(win_odds.from_counts(counts).end_scores)
    source = (
        f"{ice.name}level {level} against itself, {ends}-end games, seeds {args.seed} + 1000 g "
        f"(measurements/build_win_table.py --ice {args.ice})"
    )
    with open(out, "w", encoding="utf-8") as f:
        f.write(table.to_json(games, source))
    print(f"{len(scores)} ends in {time.perf_counter() - start:.0f} s; hammer team's scores:")
    for s, c in zip(win_odds.END_SCORES, counts, strict=True):
        if c:
            print(f"  {s:+d}: {int(c)}")
    for diff, left, hammer in ((0, ends, 1), (0, ends, 0), (1, 1, 0), (-1, 1, 1), (2, 2, 0)):
        print(f"win({diff:+d}, {left} ends, hammer={hammer}) = {table.win(diff, left, hammer):.3f}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
