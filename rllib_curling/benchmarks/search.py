"""``curling bench search``: where an agent's search spends its time.

The agent (``--agent``, ``builtin`` by default; needs the ``rl`` extra) chooses a throw in every
position of ``--games`` 2-end games between level 3 and itself (``bench bots``' positions), as
it plays by default. The engine's batch entry point (``physics.simulate_batch``) and the
network's calls (``LoadedPolicy.values`` and ``scores``) are metered while it does: how many
throws the search simulates and how fast, how many network calls it makes and on how many rows,
and what share of the decision time goes to each; the rest is the search's own bookkeeping
(candidates, rules, judging positions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling.benchmarks.bots import positions


@dataclass
class Meter:
    """Calls, rows and seconds of one metered function."""

    calls: int = 0
    rows: int = 0
    seconds: float = 0.0

    def reset(self) -> None:
        self.calls, self.rows, self.seconds = 0, 0, 0.0


@contextmanager
def metered(owner: Any, name: str, rows: Callable[[tuple[Any, ...]], int]) -> Iterator[Meter]:
    """``owner.name`` counted and timed while the block runs (``rows(args)``: its batch size).

    The benchmark wraps the real entry points for its run and puts them back (a test checks it),
    rather than give the search a metering hook that every game would carry on its hot path."""
    original = getattr(owner, name)
    meter = Meter()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            meter.calls += 1
            meter.rows += rows(args)
            meter.seconds += time.perf_counter() - start

    setattr(owner, name, wrapper)
    try:
        yield meter
    finally:
        setattr(owner, name, original)


def _batch(array: Any) -> int:
    shape = np.shape(array)
    return int(shape[0]) if len(shape) > 1 else 1


def measure(agent: str, games: int, seed: int) -> dict[str, Any]:
    """The figures of ``agent``'s search over the positions of ``games`` games."""
    from rllib_curling import physics
    from rllib_curling.agent.player import agent_bot
    from rllib_curling.agent.policy import LoadedPolicy

    states = positions(games, seed)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    with ExitStack() as stack:
        # metered before the agent is built: its search keeps the network's bound methods
        engine = stack.enter_context(
            metered(physics, "simulate_batch", lambda args: _batch(args[2]))
        )
        values = stack.enter_context(metered(LoadedPolicy, "values", lambda a: _batch(a[1])))
        scores = stack.enter_context(metered(LoadedPolicy, "scores", lambda a: _batch(a[1])))
        bot = agent_bot(agent)
        bot.choose(states[0], rng)  # warm-up: aiming tables, the engine compiled
        for meter in (engine, values, scores):
            meter.reset()
        for state in states:
            start = time.perf_counter()
            bot.choose(state, rng)
            times.append(time.perf_counter() - start)
    total = sum(times)
    n = len(times)
    net_calls, net_rows = values.calls + scores.calls, values.rows + scores.rows
    net_seconds = values.seconds + scores.seconds
    return {
        "agent": agent, "decisions": n,
        "median_ms": 1000 * statistics.median(times),
        "p90_ms": 1000 * float(np.percentile(times, 90)),
        "throws_per_decision": engine.rows / n,
        "engine_calls_per_decision": engine.calls / n,
        "throws_per_s_in_engine": engine.rows / engine.seconds if engine.seconds else 0.0,
        "engine_share": engine.seconds / total,
        "network_calls_per_decision": net_calls / n,
        "network_rows_per_call": net_rows / net_calls if net_calls else 0.0,
        "network_ms_per_call": 1000 * net_seconds / net_calls if net_calls else 0.0,
        "network_share": net_seconds / total,
        "rest_share": max(0.0, 1.0 - (engine.seconds + net_seconds) / total),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="curling bench search", description=__doc__)
    parser.add_argument("--agent", default="builtin", help="the agent (builtin: the shipped one)")
    parser.add_argument("--games", type=int, default=2, help="2-end games of positions (2)")
    parser.add_argument("--seed", type=int, default=0, help="seed (0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = measure(args.agent, args.games, args.seed)
    if args.json:
        print(json.dumps(figures))
        return 0
    f = figures
    print(f"{f['agent']}'s search over {f['decisions']} positions: median "
          f"{f['median_ms']:.0f} ms, p90 {f['p90_ms']:.0f} ms a decision")  # fmt: skip
    print(f"  engine:  {f['throws_per_decision']:.0f} throws a decision in "
          f"{f['engine_calls_per_decision']:.1f} batches, {f['throws_per_s_in_engine']:,.0f} "
          f"throws/s, {100 * f['engine_share']:.0f} % of the time")  # fmt: skip
    print(f"  network: {f['network_calls_per_decision']:.1f} calls a decision, "
          f"{f['network_rows_per_call']:.0f} rows a call, {f['network_ms_per_call']:.1f} ms a "
          f"call, {100 * f['network_share']:.0f} % of the time")  # fmt: skip
    print(f"  rest (candidates, rules, judging): {100 * f['rest_share']:.0f} % of the time")
    return 0
