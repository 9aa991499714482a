"""Physics benchmark: simulated shots per second on one core, and single-shot latency.

Invoked as ``curling bench physics [--json]``; ``curling bench physics --ice fcv1`` runs the
fcv1 ice's scenarios instead (:mod:`rllib_curling.benchmarks.physics_fcv1`), with the same
options and output.

Scenarios (noise on, as in play):

- ``draw``: free draws from an empty sheet (v 2.8-3.2, h and w random), one batched call;
- ``midend``: positions with 8 stones in play (in and around the house, plus guards) and a mix
  of draws, guards, taps and takeouts; batched (one call per batch) and one ``simulate`` call
  per shot, whose median time is the single-shot latency.

Every figure is the median of ``--repeats`` runs after a warm-up run (which compiles or loads
the numba cache). The kernel is single-threaded; the process is pinned to one CPU and
NUMBA_NUM_THREADS is set to 1 anyway. ``*_cpu_shots_per_s`` divide by the process's CPU time
instead of wall time: on a shared machine they show what one core does when it is not
stolen by other processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from rllib_curling import sheet
from rllib_curling.benchmarks import physics_fcv1
from rllib_curling.benchmarks.processes import median_rate, per_cpu_second, pin_one_core

TEE = np.array(sheet.TEE)
#: Issue 24's targets: batched mid-end shots per second on one core, single-shot latency.
TARGET_SHOTS_PER_S = 100_000
TARGET_LATENCY_MS = 0.02
#: The first line of the printed figures.
TITLE = "physics benchmark (one core, noise on"
ICES = ("platform", "fcv1")


def midend_positions(rng: np.random.Generator, n: int, stones: int = 8) -> np.ndarray:
    """``n`` positions with ``stones`` stones in play, slots 0..stones-1 filled, no overlaps.

    About two thirds lie in the house (within 1.9 m of the tee, more near the button), the
    rest are guards between the hog line and the house (5.3 <= y <= 9.5, near the centre).
    """
    out = np.zeros((n, 16, 2))
    for k in range(n):
        placed: list[np.ndarray] = []
        while len(placed) < stones:
            if rng.random() < 0.65:
                r = 1.9 * np.sqrt(rng.random()) * rng.random() ** 0.3
                a = rng.uniform(0, 2 * np.pi)
                p = TEE + r * np.array([np.cos(a), np.sin(a)])
            else:
                p = np.array([sheet.CENTRE_X + rng.normal(0, 0.5), rng.uniform(7.0, 9.8)])
            inside = 0.5 < p[0] < 4.25 and 3.1 < p[1] < 10.3
            if inside and all(np.hypot(*(p - q)) > 2 * sheet.STONE_RADIUS + 0.01 for q in placed):
                placed.append(p)
        out[k, :stones] = placed
    return out


def midend_throws(rng: np.random.Generator, n: int) -> np.ndarray:
    """A mix of shot types: 45 % draws, 15 % guards, 15 % taps/raises, 25 % takeouts."""
    kind = rng.random(n)
    v = np.where(
        kind < 0.45, rng.uniform(2.85, 3.15, n),
        np.where(kind < 0.6, rng.uniform(2.5, 2.8, n),
                 np.where(kind < 0.75, rng.uniform(3.2, 3.8, n), rng.uniform(4.0, 6.0, n))),
    )  # fmt: skip
    h = rng.uniform(-0.6, 0.6, n)
    w = rng.choice([-1.0, 1.0], n) * rng.uniform(0.3, 3.14, n)
    return np.stack([v, h, w], axis=1)


def run(batch: int, single: int, repeats: int, seed: int) -> dict[str, float]:
    from rllib_curling.physics import simulate, simulate_batch

    rng = np.random.default_rng(seed)
    empty = np.zeros((16, 2))
    draws = np.stack(
        [rng.uniform(2.8, 3.2, batch), rng.uniform(-0.5, 0.5, batch), rng.uniform(-3, 3, batch)],
        axis=1,
    )
    positions = midend_positions(rng, batch)
    throws = midend_throws(rng, batch)
    slot = 8
    simulate_batch(empty, 0, draws[:4], rng)  # warm-up: compile or load the cache
    simulate(positions[0], slot, throws[0], rng)
    result: dict[str, float] = {}
    result["draw_batched_shots_per_s"], result["draw_batched_cpu_shots_per_s"] = median_rate(
        lambda: simulate_batch(empty, 0, draws, rng), batch, repeats
    )
    mid_wall, mid_cpu = median_rate(
        lambda: simulate_batch(positions, slot, throws, rng), batch, repeats
    )
    result["midend_batched_shots_per_s"], result["midend_batched_cpu_shots_per_s"] = (
        mid_wall, mid_cpu,
    )  # fmt: skip
    ticks = simulate_batch(positions, slot, throws, rng).ticks
    lat = []
    c0 = time.process_time()
    for k in range(single):
        t0 = time.perf_counter()
        simulate(positions[k], slot, throws[k], rng)
        lat.append(time.perf_counter() - t0)
    cpu = time.process_time() - c0
    result["midend_single_shots_per_s"] = 1.0 / statistics.median(lat)
    result["midend_single_cpu_shots_per_s"] = per_cpu_second(single, cpu)
    result["midend_single_latency_ms"] = 1e3 * statistics.median(lat)
    result["midend_single_latency_p90_ms"] = 1e3 * float(np.percentile(lat, 90))
    result["midend_mean_ticks"] = float(np.mean(ticks))
    t0 = time.perf_counter()
    for _ in range(200):
        simulate(empty, 0, (0.0, 0.0, 0.0), noise=False)  # stops at once: the call overhead
    result["call_overhead_ms"] = 1e3 * (time.perf_counter() - t0) / 200
    result["batch"] = batch
    result["repeats"] = repeats
    return result


def targets(figures: dict[str, float]) -> list[str]:
    """One line per target: met, or not and by how much."""
    rate, latency = figures["midend_batched_shots_per_s"], figures["midend_single_latency_ms"]
    rate_met = "met" if rate >= TARGET_SHOTS_PER_S else f"NOT met ({rate / TARGET_SHOTS_PER_S:.0%})"
    latency_met = "met" if latency <= TARGET_LATENCY_MS else f"NOT met ({latency:.3f} ms)"
    return [
        f"target >= {TARGET_SHOTS_PER_S:,} mid-end shots/s batched: {rate_met}",
        f"target <= {TARGET_LATENCY_MS} ms single-shot latency: {latency_met}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="curling bench physics", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batch", type=int, default=2000, help="shots per batched call")
    parser.add_argument("--single", type=int, default=300, help="shots timed one at a time")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--seed", type=int, default=0, help="seed of positions and throws")
    parser.add_argument(
        "--ice", choices=ICES, default="platform",
        help="which ice: the platform's, or UEC Digital Curling's fcv1 "
        "(benchmarks/physics_fcv1.py) (default: %(default)s)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    bench = sys.modules[__name__] if args.ice == "platform" else physics_fcv1
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    cpu = pin_one_core()
    figures = bench.run(args.batch, min(args.single, args.batch), args.repeats, args.seed)
    figures["cpu"] = -1 if cpu is None else cpu
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{bench.TITLE}, median of {args.repeats} runs)")
    for key, value in figures.items():
        text = f"{value:12,.3f}" if key.endswith(("_ms", "_contact")) else f"{value:12,.0f}"
        print(f"  {key:32s} {text}")
    for line in bench.targets(figures):
        print(f"  {line}")
    return 0
