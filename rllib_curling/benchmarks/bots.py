"""``curling bench bots``: how long each built-in level takes to choose a throw.

For every level, the positions of ``--games`` games between level 3 and itself (every stone of
every end, so early, mid-end and last-stone positions alike) are replayed and the level chooses
a throw in each; the figures are the median and the 90th percentile of the decision time per
shot, in milliseconds, after a warm-up decision (aiming tables built, engine compiled). The
engine spreads large batches over NUMBA_NUM_THREADS threads (one per core by default).

``--agent CHECKPOINT`` (``builtin``: the shipped agent; needs the ``rl`` extra) adds a row for
that agent as it plays by default (its search, if it has one), with its target of 500 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rllib_curling.bots.base import Bot
    from rllib_curling.game import GameState

#: Issue 24's targets: the median decision time (ms) of the search levels on 2 cores.
TARGET_MEDIAN_MS = {6: 2.0, 7: 7.0, 8: 15.0}
#: Issue 25's target: the shipped agent with its search, per shot on 2 cores (its median).
AGENT_TARGET_MS = 500.0


def positions(games: int, seed: int) -> list[GameState]:
    """Game states of ``games`` level-3 games (one per stone thrown)."""
    from rllib_curling.bots import make_bot
    from rllib_curling.bots.matches import play_game
    from rllib_curling.game import GameConfig

    states: list[GameState] = []
    bot = make_bot(3)
    for g in range(games):
        play_game(
            (bot, bot), GameConfig(ends=2), np.random.default_rng([seed, g]),
            on_shot=lambda state, _throw: states.append(state),
        )  # fmt: skip
    return states


def decision_ms(
    level: int, states: list[GameState], seed: int, bot: Bot | None = None
) -> list[float]:
    """Milliseconds per ``choose`` of ``level`` (or of ``bot``) over ``states``."""
    from rllib_curling.bots import make_bot

    bot = bot if bot is not None else make_bot(level)
    rng = np.random.default_rng(seed)
    bot.choose(states[0], rng)  # warm-up
    out = []
    for state in states:
        start = time.perf_counter()
        bot.choose(state, rng)
        out.append(1000.0 * (time.perf_counter() - start))
    return out


def main(argv: list[str] | None = None) -> int:
    from rllib_curling.bots import LEVELS

    parser = argparse.ArgumentParser(prog="curling bench bots", description=__doc__)
    parser.add_argument("--games", type=int, default=2, help="2-end games of positions (2)")
    parser.add_argument("--seed", type=int, default=0, help="seed (0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--agent", default=None, metavar="CHECKPOINT",
                        help="also time this agent as it plays by default (builtin: the "
                        "shipped one)")  # fmt: skip
    args = parser.parse_args(argv)
    states = positions(args.games, args.seed)
    result: dict[str, dict[str, float]] = {}
    players: list[tuple[str, Bot | None]] = [(str(level), None) for level in LEVELS]
    if args.agent is not None:
        from rllib_curling.agent.player import agent_bot

        players.append(("agent", agent_bot(args.agent)))
    for name, bot in players:
        times = decision_ms(int(name) if bot is None else -1, states, args.seed, bot)
        result[name] = {
            "median_ms": statistics.median(times),
            "p90_ms": float(np.percentile(times, 90)),
            "max_ms": max(times),
            "decisions": len(times),
        }
    import numba

    threads = numba.get_num_threads()
    if args.json:
        print(json.dumps({"positions": len(states), "threads": threads, "levels": result}))
    else:
        print(f"decision time per shot over {len(states)} positions (ms), {threads} engine "
              "thread(s) (NUMBA_NUM_THREADS):")  # fmt: skip
        print("level  median     p90     max  target (median)")
        for level, row in result.items():
            target = AGENT_TARGET_MS if level == "agent" else TARGET_MEDIAN_MS.get(int(level))
            verdict = (
                "" if target is None
                else f"  <= {target:g}: {'met' if row['median_ms'] <= target else 'NOT met'}"
            )  # fmt: skip
            print(
                f"{level:>5}  {row['median_ms']:6.2f}  {row['p90_ms']:6.2f}  {row['max_ms']:6.2f}"
                f"{verdict}"
            )
    return 0
