"""``curling bench env``: env steps per second through TCP against the level-2 bot, and the same
games driven directly on the engine (no server, no sockets).

Both paths play the same kind of game: our throws come from the env's discrete action map
(cycling through the templates), the opponent is ``bots.make_bot(2)``, 4-end games. The TCP path
is ``CurlingEnv`` with its private server (a child process: the server's physics and bot run
there, so the path uses up to two cores). The direct path is ``Game.step`` for our throw and the
bot's throw, plus the observation encoding, in one process.

A third path, **TCP vector**: ``CurlingVectorEnv`` with ``--envs`` games (default 8) on one
private server (a port each), every throw sent before any reply is awaited, as an RLlib env
runner plays them; the same number of games in all.

Prints steps/s for each (medians of ``--repeats`` runs) and the ratios to the direct path;
``--json`` for machines.

``--league``: instead, the league's multi-agent env (``CurlingLeagueEnv``, ``--envs`` games, one
private server each, 1-end games against level ``--level``, default 6) stepped as RLlib's
``SyncVectorMultiAgentEnv`` steps it (one game after the other) and as
``CurlingVectorMultiAgentEnv`` does (every throw sent before any reply is awaited, what league
runs use); env steps per second (the learner's throws) of each.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

#: Issue 24's target: the vector env's steps per second over the direct path's.
TARGET_VECTOR_OVER_DIRECT = 0.9


def _tcp_steps_per_s(games: int, seed: int) -> float:
    from rllib_curling.env import CurlingEnv

    env = CurlingEnv({"opponent": 2, "ends": 4, "action": "discrete", "seed": seed})
    try:
        env.reset(seed=seed)
        _play_games(env, 1)  # warm-up: the server process loads the engine and the bot's tables
        start = time.perf_counter()
        steps = _play_games(env, games)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def _play_games(env: Any, games: int) -> int:
    steps = 0
    for _ in range(games):
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(steps % env.action_space.n)
            steps += 1
            done = terminated or truncated
        env.reset()
    return steps


def _discrete_n(space: object) -> int:
    from gymnasium.spaces import Discrete

    assert isinstance(space, Discrete), space  # the benchmarks ask for action "discrete"
    return int(space.n)


def _vector_steps_per_s(games: int, envs: int, seed: int) -> float:
    from rllib_curling.env.vector import CurlingVectorEnv

    vector = CurlingVectorEnv(envs, {"opponent": 2, "ends": 4, "action": "discrete"})
    n = _discrete_n(vector.single_action_space)
    try:
        vector.reset(seed=seed)
        for step in range(40):  # warm-up: the server loads the engine and the bot's tables
            vector.step((np.arange(envs) + step) % n)
        played = steps = 0
        start = time.perf_counter()
        while played < games:
            _, _, terminated, truncated, _ = vector.step((np.arange(envs) + steps) % n)
            steps += envs
            played += int((terminated | truncated).sum())
        return steps / (time.perf_counter() - start)
    finally:
        vector.close()


def _direct_steps_per_s(games: int, seed: int) -> float:
    from rllib_curling.aiming.tables import shot_tables
    from rllib_curling.aiming.templates import TEMPLATES, template_throw
    from rllib_curling.bots import make_bot
    from rllib_curling.game import Game, GameConfig
    from rllib_curling.observation import encode_observation

    tables = shot_tables()
    bot = make_bot(2)
    rng = np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    for game in range(games):
        me = game % 2  # hammer alternating, as the server does
        state = Game.init(GameConfig())
        while not state.is_terminal:
            if state.next_seat == me:
                parity = state.seat_parity(me)
                throw = template_throw(steps % len(TEMPLATES), state.position, parity, tables)
                state = Game.step(state, throw, rng).state
                if not state.is_terminal:
                    totals = state.totals
                    diff = totals[me] - totals[1 - me]
                    encode_observation(
                        state.position, state.shot, state.end, 4, state.seat_parity(me), diff
                    )
                steps += 1
            else:
                state = Game.step(state, bot.choose(state, rng), rng).state
    return steps / (time.perf_counter() - start)


def _league_steps_per_s(games: int, envs: int, level: int, seed: int, together: bool) -> float:
    from ray.rllib.env.vector.sync_vector_multi_agent_env import SyncVectorMultiAgentEnv

    from rllib_curling.env.league import CurlingLeagueEnv, level_name
    from rllib_curling.env.vector_multi_agent import CurlingVectorMultiAgentEnv

    subs = [CurlingLeagueEnv({"ends": 1, "action": "discrete"}) for _ in range(envs)]
    for sub in subs:
        sub.set_league({level_name(level): 1.0})
    if together:
        vector: Any = CurlingVectorMultiAgentEnv(subs)
    else:
        vector = SyncVectorMultiAgentEnv(env_fns=[functools.partial(lambda s: s, s) for s in subs])
    n = _discrete_n(subs[0].get_action_space("main"))
    try:
        observations, _ = vector.reset(seed=seed)
        played = steps = 0
        start = time.perf_counter()
        while played < games:
            actions = [{agent: (steps + i) % n for agent in obs}
                       for i, obs in enumerate(observations)]  # fmt: skip
            steps += sum(len(a) for a in actions)
            observations, _, terminateds, _, _ = vector.step(actions)
            played += sum(bool(t["__all__"]) for t in terminateds)
        return steps / (time.perf_counter() - start)
    finally:
        vector.close()


def _league_main(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("ray") is None:
        print("curling bench env --league needs Ray (the rl extra): pip install -e '.[rl]'",
              file=sys.stderr)  # fmt: skip
        return 2
    runs = {
        name: [_league_steps_per_s(args.games, args.envs, args.level, seed, together)
               for seed in range(args.repeats)]
        for name, together in (("sync", False), ("together", True))
    }  # fmt: skip
    result = {f"league_{name}_steps_per_s": statistics.median(r) for name, r in runs.items()}
    result.update(envs=args.envs, level=args.level, games_per_run=args.games,
                  repeats=args.repeats)  # fmt: skip
    if args.json:
        print(json.dumps(result))
        return 0
    sync, together = result["league_sync_steps_per_s"], result["league_together_steps_per_s"]
    print(f"league env, {args.envs} games against level {args.level}, one private server each")
    print(f"  one game after the other (RLlib's SyncVectorMultiAgentEnv): {sync:.1f} env steps/s")
    print(
        f"  stepped together (CurlingVectorMultiAgentEnv):             {together:.1f} env steps/s"
    )
    print(f"  together / one after the other: {together / sync:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="curling bench env", description=__doc__)
    parser.add_argument("--games", type=int, default=10, help="4-end games per run (10)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per path (3)")
    parser.add_argument("--envs", type=int, default=8, help="games of the vector path (8)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--league", action="store_true",
                        help="the league's multi-agent env instead (module doc)")  # fmt: skip
    parser.add_argument("--level", type=int, default=6, help="--league: the bots' level (6)")
    args = parser.parse_args(argv)
    if args.league:
        return _league_main(args)
    _direct_steps_per_s(1, 0)  # warm-up: compile the engine, build the aiming tables
    tcp = [_tcp_steps_per_s(args.games, seed) for seed in range(args.repeats)]
    vector = [_vector_steps_per_s(args.games, args.envs, seed) for seed in range(args.repeats)]
    direct = [_direct_steps_per_s(args.games, seed) for seed in range(args.repeats)]
    result = {
        "tcp_steps_per_s": statistics.median(tcp),
        "vector_steps_per_s": statistics.median(vector),
        "vector_envs": args.envs,
        "direct_steps_per_s": statistics.median(direct),
        "games_per_run": args.games,
        "repeats": args.repeats,
    }
    result["tcp_over_direct"] = result["tcp_steps_per_s"] / result["direct_steps_per_s"]
    result["vector_over_direct"] = result["vector_steps_per_s"] / result["direct_steps_per_s"]
    if args.json:
        print(json.dumps(result))
    else:
        tcp_rate, direct_rate = result["tcp_steps_per_s"], result["direct_steps_per_s"]
        vector_rate = result["vector_steps_per_s"]
        print(f"env steps/s through TCP (level-2 bot, private server): {tcp_rate:.0f}")
        print(f"TCP vector, {args.envs} games on one private server:       {vector_rate:.0f}")
        print(f"same games driven directly on the engine:              {direct_rate:.0f}")
        print(
            f"TCP / direct: {result['tcp_over_direct']:.2f}; "
            f"TCP vector / direct: {result['vector_over_direct']:.2f}"
        )
        verdict = "met" if result["vector_over_direct"] >= TARGET_VECTOR_OVER_DIRECT else "NOT met"
        print(f"target TCP vector / direct >= {TARGET_VECTOR_OVER_DIRECT}: {verdict}")
    return 0
