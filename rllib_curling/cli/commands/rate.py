"""``curling rate PLAYER PLAYER [...]``: a round robin between players, and their ratings
(``DESCRIPTION`` is its help). Bot against bot plays in-process (``bots.matches.play_match``); a
pair with a checkpoint or the external AI plays on a private server in this process, the
checkpoints as clients in threads (``agent.player``); the ratings are ``bots.rating``'s."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from typing import Any

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.options import (
    SearchOptions,
    add_ends,
    add_search_options,
    level_range,
    load_player,
    positive_int,
)
from rllib_curling.cli.players import Agent, Level, Player, Remote, parse_player
from rllib_curling.names import DEFAULT_MODULE_ID

#: Base seed of rating games: pair k plays with seed RATE_SEED + k.
RATE_SEED = 2_000_000
RL_HINT = "pip install -e '.[rl]'"
RENDER_HINT = "pip install -e '.[render]'"


DESCRIPTION = f"""\
A player is a built-in level (3 or bot:3), a checkpoint (a checkpoint, a trial or an experiment
directory, an agent folder, or builtin for the agent in the package; needs the rl extra; it
plays with its search as --search says, by default as its agent folder says), policy:CHECKPOINT
(the same network alone, without search), or tcp:HOST:PORT (at most one: an external AI, which
connects to a server started on HOST:PORT once per opponent, as with curling match).

Every pair plays --games games, the hammer alternating: the pair's first-listed player is
Player1, without the hammer in end 1, in the 1st, 3rd, ... game (with an odd number it has one
game more without the hammer). --pairs adjacent plays only each player against the next one
listed: n - 1 pairs instead of n(n - 1)/2, for fields too slow for a round robin (list the
players by expected strength; the ratings then rest on neighbours' games, and their intervals
widen along the chain).

Pair k (in list order: (1,2), (1,3), ..., (2,3), ...; with adjacent (1,2), (2,3), ...) plays
with seed --seed + k (default {RATE_SEED}): never a seed that rllib evaluate or training uses.

The ratings: Bradley-Terry by maximum likelihood (a draw is half a win) on the Elo scale, the
anchor (--anchor: by default the first built-in level listed, else the first player) at 0, with
95 % intervals. Prints a table and the matrix of pairwise scores (--json: one JSON object
instead); --png draws the ratings with their intervals (needs the render extra). Progress goes
to stderr; Ctrl+C stops and rates the games played so far. See docs/rating.md.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rate",
        help="round robin between bots, checkpoints and an external AI; Elo-scale ratings",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("players", nargs="+", metavar="PLAYER",
                   help=f"{level_range()} or bot:N, a checkpoint directory, builtin (the shipped "
                   "agent), policy:CHECKPOINT (its policy without search), or "
                   "tcp:HOST:PORT")  # fmt: skip
    p.add_argument("--games", type=positive_int, default=200, help="games per pair (default 200)")
    add_ends(p)
    p.add_argument("--seed", type=int, default=RATE_SEED,
                   help=f"base seed; pair k plays with seed + k (default {RATE_SEED})")  # fmt: skip
    p.add_argument("--pairs", choices=("all", "adjacent"), default="all",
                   help="'all' (default): every pair plays; 'adjacent': each player only the "
                   "next one listed (list them by expected strength; n-1 pairs, the ratings "
                   "still connect)")  # fmt: skip
    p.add_argument("--anchor", default=None,
                   help="the player rated 0 (default: the first built-in level, else the first "
                   "player)")  # fmt: skip
    p.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="processes for the bot-against-bot pairs (default 1: in this process)",
    )
    p.add_argument("--module-id", default=DEFAULT_MODULE_ID, help="module of the checkpoints")
    add_search_options(p)  # for every checkpoint player
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--png", default=None, metavar="FILE", help="draw the ratings into this PNG")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> tuple[list[Player], str]:
    """The entrants and the anchor's name; ``UsageError`` (one line) else."""
    try:
        entrants = [parse_player(text) for text in args.players]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names = [str(e) for e in entrants]
    if len(entrants) < 2:
        raise UsageError(f"a round robin needs at least 2 players, got {names}")
    if len(set(names)) < len(names):
        raise UsageError(f"a player is listed twice: {names}")
    if sum(isinstance(e, Remote) for e in entrants) > 1:
        raise UsageError("at most one player can be tcp:HOST:PORT")
    rl = [m for m in ("ray", "torch", "gymnasium") if importlib.util.find_spec(m) is None]
    if rl and any(isinstance(e, Agent) for e in entrants):
        raise UsageError(
            f"checkpoint players need the rl extra ({', '.join(rl)} missing): {RL_HINT}"
        )
    if args.png and importlib.util.find_spec("matplotlib") is None:
        raise UsageError(f"--png needs matplotlib (the render extra): {RENDER_HINT}")
    bots = [str(e) for e in entrants if isinstance(e, Level)]
    anchor = args.anchor or (bots[0] if bots else names[0])
    anchor = f"bot:{anchor}" if anchor.isdigit() else anchor  # as a Level names itself
    if anchor not in names:
        raise UsageError(f"--anchor {args.anchor!r} is not one of the players {names}")
    return entrants, anchor


def _load_policies(
    entrants: list[Player], module_id: str, options: SearchOptions, seed: int = 0
) -> dict[str, Any]:
    """A ``PolicyPlayer`` per checkpoint entrant (``policy:CHECKPOINT``: without search, whatever
    ``options`` say); ``UsageError`` (one line) for a checkpoint that cannot be loaded."""
    import dataclasses

    policies: dict[str, Any] = {}
    if not any(isinstance(e, Agent) for e in entrants):
        return policies
    from rllib_curling.rl.checkpoints import find_checkpoint

    for e in entrants:
        if isinstance(e, Agent):
            own = options if e.search else dataclasses.replace(options, search=0)
            try:
                path = find_checkpoint(e.checkpoint)
                policies[str(e)] = load_player(str(path), module_id, own, seed=seed)
            except (FileNotFoundError, ValueError, UsageError) as exc:
                raise UsageError(f"{e}: {exc}") from None
            print(f"{e}: {path}", file=sys.stderr, flush=True)
    return policies


def run(args: argparse.Namespace) -> int:
    from rllib_curling.bots.rating import fit_ratings
    from rllib_curling.cli.commands.rate_games import RoundRobin, play_round_robin, plot, table
    from rllib_curling.errors import CurlingError

    entrants, anchor = _check(args)
    policies = _load_policies(entrants, args.module_id, SearchOptions.from_args(args), args.seed)
    if args.games % 2:
        print(f"note: --games {args.games} is odd: the first-listed player of each pair has "
              "the hammer in end 1 in one game fewer", file=sys.stderr)  # fmt: skip
    setup = RoundRobin(args.games, args.ends, args.seed, args.pairs, args.workers)
    start = time.perf_counter()
    try:
        pairs, interrupted = play_round_robin(entrants, policies, setup)
    except CurlingError as exc:  # a server that cannot start, a client refused
        raise CommandError(str(exc)) from None
    results = [(p["a"], p["b"], s) for p in pairs for s in p["scores"]]
    ratings = fit_ratings([str(e) for e in entrants], results, anchor=anchor)
    print(f"{len(results)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if args.json:
        record = {"games_per_pair": args.games, "ends": args.ends, "seed": args.seed,
                  "interrupted": interrupted, **ratings.as_dict(), "pairs": pairs}  # fmt: skip
        print(json.dumps(record))
    else:
        print(table(ratings, setup, interrupted))
    if args.png:
        out = plot(ratings, args.png, setup)
        print(f"wrote {out}", file=sys.stderr if args.json else sys.stdout)
    return 0
