"""``curling ladder``: play every built-in level against the level below and print the table."""

from __future__ import annotations

import argparse
import json
import sys
import time

from rllib_curling.cli import UsageError
from rllib_curling.cli.options import add_ends, positive_int

DEFAULT_GAMES = 10


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ladder",
        help="play each bot level n against n-1 and print the table",
        description="Play each built-in level n against level n-1 (hammer alternating) and print "
        "a table: win rate of n (draws count half) with its standard error, W/D/L, mean "
        "score difference; pairs under 60 %% are flagged. Progress lines go to stderr. The top "
        "levels search thousands of throws per shot, so the full ladder takes a few minutes "
        "with the default games; use --games 40 or more for a claim that means something.",
    )
    p.add_argument("--games", type=positive_int, default=DEFAULT_GAMES,
                   help=f"games per pair (default {DEFAULT_GAMES})")  # fmt: skip
    add_ends(p)
    p.add_argument("--seed", type=int, default=0, help="seed; game g uses [seed, g] (default 0)")
    upper = _upper_levels()
    p.add_argument(
        "--levels",
        default=f"{upper[0]}-{upper[-1]}",
        help=f"upper levels to test, e.g. {upper[0]}-{upper[-1]} (default), 5-8 or 3,5,7",
    )
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.set_defaults(func=run)


def _upper_levels() -> tuple[int, ...]:
    """The levels a ladder can test: every built-in level but the lowest (``bots.LEVELS``)."""
    from rllib_curling.bots.levels import LEVELS

    return LEVELS[1:]


def parse_levels(text: str) -> list[int]:
    """``"1-8"``, ``"5"``, ``"3,5-6"`` → sorted upper levels (``_upper_levels``); ValueError
    otherwise."""
    upper = _upper_levels()
    span = f"{upper[0]}-{upper[-1]}"
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"--levels takes numbers and ranges like {span} or 3,5, got {text!r}")
        out.update(range(int(lo), int(hi or lo) + 1))
    if not out or not out <= set(upper):
        raise ValueError(
            f"--levels must lie in {upper[0]}..{upper[-1]} (each is played against the one "
            f"below), {text!r}"
        )
    return sorted(out)


def run(args: argparse.Namespace) -> int:
    from rllib_curling.bots.matches import LADDER_TARGET, GameResult, MatchResult, run_ladder

    try:
        levels = parse_levels(args.levels)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    start = time.perf_counter()

    def progress(level: int, g: int, game: GameResult, match: MatchResult | None) -> None:
        elapsed = time.perf_counter() - start
        if match is None:
            seat = g % 2
            p1, p2 = game.totals
            mine, theirs = (p1, p2) if seat == 0 else (p2, p1)
            line = f"  level {level} vs {level - 1}: game {g + 1}/{args.games} {mine}-{theirs}"
        else:
            line = f"level {level} vs {level - 1}: win rate {100 * match.win_rate:.1f} %"
        print(f"{line}  [{elapsed:.0f} s]", file=sys.stderr, flush=True)

    rows = run_ladder(levels, args.games, args.ends, args.seed, progress=progress)
    if args.json:
        print(json.dumps({"target": LADDER_TARGET, "rows": [r.as_dict() for r in rows]}))
    else:
        print(table(rows, args.games, args.ends, args.seed))
    return 0


def table(rows: list, games: int, ends: int, seed: int) -> str:
    """The ladder table as text (one row per pair of ``run_ladder``'s ``rows``), headed by how
    it was played: ``games`` per pair of ``ends`` ends, ``seed``."""
    from rllib_curling.bots.matches import LADDER_TARGET

    lines = [
        f"ladder: {games} games per pair, {ends} ends, seed {seed}; "
        f"win rate of the upper level, draws count half; target {100 * LADDER_TARGET:.0f} %",
        f"{'pair':<8} {'win rate ± se':>14} {'W':>4} {'D':>4} {'L':>4} {'diff':>7} {'time':>7}",
    ]
    failed = 0
    for row in rows:
        r = row.result
        rate = f"{100 * r.win_rate:.1f} ± {100 * r.stderr:.1f}" if r.n > 1 else "-"
        flag = "" if row.passed else "UNDER TARGET"
        failed += not row.passed
        lines.append(
            f"{row.level} vs {row.level - 1:<3} {rate:>14} {r.wins:>4} {r.draws:>4} {r.losses:>4} "
            f"{r.mean_diff:>+7.2f} {row.seconds:>6.0f}s  {flag}".rstrip()
        )
    lines.append("all pairs reach the target" if not failed else f"{failed} pair(s) under target")
    return "\n".join(lines)
