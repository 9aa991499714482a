"""Physics benchmark of the fcv1 ice (UEC Digital Curling): shots per second on one core.

Invoked as ``curling bench physics --ice fcv1 [--json]`` (``benchmarks.physics.main`` runs it).

Scenarios (no noise: DC's noise is drawn before the physics and costs nothing here):

- ``draw``: free draws from an empty sheet (2.33-2.45 m/s, both rotations), one batched call;
- ``midend``: positions with 8 stones in play (two thirds in the house, the rest guards) and a
  mix of draws, guards, taps and takeouts, batched; and one ``simulate`` call per shot, whose
  median time is the single-shot latency.

Every figure is the median of ``--repeats`` runs after a warm-up run (which compiles or loads
the numba cache); the process is pinned to one CPU. ``*_cpu_shots_per_s`` divide by the
process's CPU time instead of wall time (what one core does when no other process steals it).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from rllib_curling import dc_sheet as dc
from rllib_curling.benchmarks.processes import median_rate, per_cpu_second

#: Issue 34's target: batched mid-end shots per second on one core.
TARGET_SHOTS_PER_S = 20_000
#: The first line of the printed figures.
TITLE = "fcv1 physics benchmark (one core, no noise"
#: The bodies the mid-end positions fill (four stones a team) and the thrown one.
PLACED = (0, 1, 2, 3, 8, 9, 10, 11)
THROWN = 4


def midend_positions(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` DC positions (16, 2) with 8 stones in play, no two closer than 2 r + 1 cm: about
    two thirds within 1.9 m of the tee (more near the button), the rest guards."""
    out = np.zeros((n, 16, 2))
    tee = np.array(dc.TEE)
    for k in range(n):
        placed: list[np.ndarray] = []
        while len(placed) < len(PLACED):
            if rng.random() < 0.65:
                r = 1.9 * np.sqrt(rng.random()) * rng.random() ** 0.3
                a = rng.uniform(0, 2 * np.pi)
                q = tee + r * np.array([np.cos(a), np.sin(a)])
            else:
                q = np.array([rng.normal(0, 0.5), rng.uniform(33.0, 36.3)])
            inside = abs(q[0]) < dc.SIDE_X - 0.3 and q[1] < dc.BACK_LINE_Y
            if inside and all(np.hypot(*(q - s)) > 2 * dc.STONE_RADIUS + 0.01 for s in placed):
                placed.append(q)
        out[k, list(PLACED)] = placed
    return out


def midend_throws(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 3) vx, vy, rotation: 45 % draws, 15 % guards, 15 % taps, 25 % takeouts, aimed so
    that the curl brings them toward the house."""
    kind = rng.random(n)
    speed = np.where(
        kind < 0.45, rng.uniform(2.33, 2.45, n),
        np.where(kind < 0.6, rng.uniform(2.15, 2.3, n),
                 np.where(kind < 0.75, rng.uniform(2.5, 2.9, n), rng.uniform(3.0, 4.0, n))),
    )  # fmt: skip
    rot = rng.choice([-1.0, 1.0], n)
    curl = np.where(speed < 2.9, 0.055, 0.03)  # ccw curls toward -x: aim to +x
    direction = rot * curl + rng.uniform(-0.03, 0.03, n)
    return np.stack([speed * np.sin(direction), speed * np.cos(direction), rot], axis=1)


def run(batch: int, single: int, repeats: int, seed: int) -> dict[str, float]:
    from rllib_curling.physics.fcv1 import simulate, simulate_batch

    rng = np.random.default_rng(seed)
    empty = np.zeros((16, 2))
    speed = rng.uniform(2.33, 2.45, batch)
    rot = rng.choice([-1.0, 1.0], batch)
    draws = np.stack([speed * np.sin(0.055 * rot), speed * np.cos(0.055 * rot), rot], axis=1)
    positions = midend_positions(rng, batch)
    throws = midend_throws(rng, batch)
    simulate_batch(empty, THROWN, draws[:4])  # warm-up: compile or load the cache
    simulate(positions[0], THROWN, throws[0])
    result: dict[str, float] = {}
    result["draw_batched_shots_per_s"], result["draw_batched_cpu_shots_per_s"] = median_rate(
        lambda: simulate_batch(empty, THROWN, draws), batch, repeats
    )
    result["midend_batched_shots_per_s"], result["midend_batched_cpu_shots_per_s"] = median_rate(
        lambda: simulate_batch(positions, THROWN, throws), batch, repeats
    )
    res = simulate_batch(positions, THROWN, throws)
    lat = []
    c0 = time.process_time()
    for k in range(single):
        t0 = time.perf_counter()
        simulate(positions[k], THROWN, throws[k])
        lat.append(time.perf_counter() - t0)
    cpu = time.process_time() - c0
    result["midend_single_shots_per_s"] = 1.0 / statistics.median(lat)
    result["midend_single_cpu_shots_per_s"] = per_cpu_second(single, cpu)
    result["midend_single_latency_ms"] = 1e3 * statistics.median(lat)
    result["midend_mean_steps"] = float(np.mean(res.steps))
    moved = np.any(res.rest[:, list(PLACED)] != positions[:, list(PLACED)], axis=(1, 2))
    result["midend_share_with_contact"] = float(np.mean(moved))
    result["batch"] = batch
    result["repeats"] = repeats
    return result


def targets(figures: dict[str, float]) -> list[str]:
    """One line per target: met, or not and by how much."""
    rate = figures["midend_batched_shots_per_s"]
    met = "met" if rate >= TARGET_SHOTS_PER_S else f"NOT met ({rate / TARGET_SHOTS_PER_S:.0%})"
    return [f"target >= {TARGET_SHOTS_PER_S:,} mid-end shots/s batched: {met}"]
