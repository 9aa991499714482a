"""The ceiling of the shot set (``aiming.shots``, the env's ``action="shots"``): a search whose
choice is restricted to the shot set against a built-in level, in-process, games split over
processes. If the search that labels the data keeps its strength when it may only play shots
of the set, a network over the set can in principle learn all of it.

    python measurements/shot_set_ceiling.py level8 6 --games 40 --seed 900
    python measurements/shot_set_ceiling.py agent 6 --games 40 --seed 900   # builtin's search
    python measurements/shot_set_ceiling.py agent-screen 6 --games 40 --seed 900

``level8``: level 8's search (``bots.search.SPECS[8]``) over the shot set instead of its own
candidates; ``level8-own``: level 8 unchanged (the reference, same games); ``agent``: the shipped
agent's search (``agent.search.AGENT_SPEC``, its learned value weighted as ``builtin`` does) over
the shot set alone (no proposals of its network), the labeller of ``curling dataset --teacher
builtin --action shots``; ``agent-screen``: that search cut to its screen (``--labels screen``:
every legal shot thrown once without noise, the best played). Prints one line per game and a
JSON summary: wins, draws, losses, score rate (draws ½), median time per shot.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from rllib_curling.bots import make_bot
from rllib_curling.bots.matches import play_game
from rllib_curling.bots.search import SPECS, SearchBot
from rllib_curling.game import GameConfig


def searcher(kind: str) -> Any:
    if kind == "level8":
        return SearchBot(8, dataclasses.replace(SPECS[8], shots=True))
    if kind == "level8-own":
        return SearchBot(8)
    if kind in ("agent", "agent-screen"):
        from rllib_curling.agent.search import shot_teacher

        return shot_teacher("builtin", labels="screen" if kind == "agent-screen" else "search")
    raise SystemExit(f"unknown search {kind!r}: level8, level8-own, agent or agent-screen")


def play(kind: str, level: int, games: list[int], seed: int) -> list[dict[str, Any]]:
    bot, opponent = searcher(kind), make_bot(level)
    times: list[float] = []
    choose = bot.choose

    def timed(state, rng):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        throw = choose(state, rng)
        times.append(time.perf_counter() - start)
        return throw

    bot.choose = timed
    out = []
    for g in games:
        seat = g % 2  # the search is Player1 in even games: the hammer alternates
        players = (bot, opponent) if seat == 0 else (opponent, bot)
        result = play_game(players, GameConfig(ends=4), np.random.default_rng([seed, g]))
        mine, theirs = result.totals if seat == 0 else result.totals[::-1]
        out.append({"game": g, "mine": mine, "theirs": theirs, "times": times[:]})
        times.clear()
        print(g, (mine, theirs), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("search", choices=("level8", "level8-own", "agent", "agent-screen"))
    parser.add_argument("level", type=int)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=900)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    split = [list(range(w, args.games, args.workers)) for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        parts = pool.map(play, [args.search] * args.workers, [args.level] * args.workers, split,
                         [args.seed] * args.workers)  # fmt: skip
        games = [g for part in parts for g in part]
    wins = sum(g["mine"] > g["theirs"] for g in games)
    draws = sum(g["mine"] == g["theirs"] for g in games)
    times = [t for g in games for t in g["times"]]
    print(json.dumps({
        "search": args.search, "level": args.level, "games": len(games), "seed": args.seed,
        "wins": wins, "draws": draws, "losses": len(games) - wins - draws,
        "score_rate": (wins + 0.5 * draws) / len(games),
        "median_s_per_shot": float(np.median(times)),
        "minutes": round((time.perf_counter() - start) / 60, 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
