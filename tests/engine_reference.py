"""Today's engine, recorded, so that a faster engine can be checked against it (issue 24).

Three uses, each run with the engine to record or to check (``PYTHONPATH`` picks the code):

``make`` writes the reference the tests keep (``tests/data/engine_reference.npz``, a few hundred
KB): noise-free, every calibration throw (landing and MOTIONINFO tables, recorded collisions,
rest points kept where the rules would remove them) and ``--throws`` random mid-end throws
(``benchmarks.physics.midend_positions`` / ``midend_throws``, seed 2411); and, noisy, for a set
of draws, guards, taps and takeouts, ``--seeds`` seeds each: mean landing, standard deviations
across (x) and along (y) the sheet, the share of throws whose stone stays in play and the share
that move the target stone (``hit``).

``throws`` simulates ``--throws`` random mid-end throws noise-free (seed 2411 again) and saves
the inputs and the rest positions to ``--out`` (``--shift-h``: each release moved sideways, to
see how contacts amplify a tiny change); ``diff A B`` prints how far the rest points of two
such files lie apart (the 10,000-throw check, too large to keep in the repository)::

    PYTHONPATH=<old checkout> python tests/engine_reference.py throws --out old.npz
    python tests/engine_reference.py throws --out new.npz
    python tests/engine_reference.py diff old.npz new.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rllib_curling.benchmarks.physics import midend_positions, midend_throws
from rllib_curling.physics.calibration import load_table
from rllib_curling.physics.collisions import read_collisions
from rllib_curling.physics.engine import simulate_batch

REFERENCE = Path(__file__).resolve().parent / "data" / "engine_reference.npz"
MIDEND_SEED = 2411
STONES = 8  # stones in play in a mid-end position; the thrown stone is slot 8
#: Positions of the noisy set: stones (x, y) in slots 0, 1, ...
EMPTY: tuple[tuple[float, float], ...] = ()
ON_TEE = ((2.375, 4.88),)
FOUR = ((3.1, 8.0), (2.30, 4.88), (2.75, 5.40), (1.95, 4.30))
#: Noisy set: name, stones before the throw, throw (v, h, w, sweep), target slot for ``hit``
#: (-1: none). The thrown stone takes the first free slot.
NOISY_THROWS = (
    ("draw", EMPTY, (3.0, 0.0, 1.5, 0.0), -1),
    ("draw_swept", EMPTY, (2.9, -0.2, 1.2, 4.0), -1),
    ("guard", EMPTY, (2.6, -0.3, 1.0, 0.0), -1),
    ("draw_to_back_line", EMPTY, (3.23, 0.0, 1.0, 0.0), -1),  # about 90 % stay in play
    ("takeout", ON_TEE, (4.5, 0.0, 0.5, 0.0), 0),
    ("tap_in_a_crowd", FOUR, (3.3, -0.077, 0.8, 0.0), 1),
    ("miss_by_a_hair", ON_TEE, (4.0, 0.25, 0.5, 0.0), 0),  # noise-free, it misses by 1 mm
)


def midend_inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions (n, 16, 2), slots (n,), throws (n, 3)) of the random mid-end throws."""
    rng = np.random.default_rng(MIDEND_SEED)
    positions = midend_positions(rng, n, STONES)
    throws = midend_throws(rng, n)
    return positions, np.full(n, STONES), throws


def _columns(table: str, *names: str) -> np.ndarray:
    rows = load_table(table)
    return np.column_stack([rows[name] for name in names])


def _free_midsheet_throws() -> np.ndarray:
    """The MOTIONINFO table's throws (v, h, w, no sweep)."""
    throws = _columns("official_midsheet", "v", "h", "w")
    return np.column_stack([throws, np.zeros(len(throws))])


def calibration_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every calibration throw as (positions, slots, throws (v, h, w, sweep))."""
    throws = [*_columns("official_landing", "v", "h", "w", "sweep"), *_free_midsheet_throws()]
    positions = [np.zeros((16, 2)) for _ in throws]
    slots = [0] * len(throws)
    for row in read_collisions():
        position = np.zeros((16, 2))
        position[row.target_slot] = row.target
        positions.append(position)
        slots.append(row.thrown_slot)
        throws.append(np.append(row.throw, 0.0))
    return np.array(positions), np.array(slots), np.array(throws)


def rest_points(positions: np.ndarray, slots: np.ndarray, throws: np.ndarray) -> np.ndarray:
    """Noise-free rest points, stones kept where the rules would remove them."""
    result = simulate_batch(positions, slots, throws, noise=False, remove_out_of_play=False)
    return result.positions


def midsheet_states(throws: np.ndarray) -> np.ndarray:
    """Noise-free MOTIONINFO (x, y, vx, vy, spin) of free throws from an empty sheet."""
    n = len(throws)
    result = simulate_batch(np.zeros((n, 16, 2)), np.zeros(n, int), throws, noise=False)
    return result.mid


def noisy_figures(seeds: int) -> np.ndarray:
    """Per shot of ``NOISY_THROWS``: mean x, mean y, std x, std y of the thrown stone where it
    stayed in play (NaN where it never did), in-play share, hit share (NaN: no target)."""
    rows = []
    for k, (_, stones, throw, target) in enumerate(NOISY_THROWS):
        base = np.zeros((16, 2))
        if stones:
            base[: len(stones)] = stones
        slot = len(stones)
        rng = np.random.default_rng(1000 + k)
        after = simulate_batch(
            np.repeat(base[None], seeds, 0), np.full(seeds, slot), np.tile(throw, (seeds, 1)),
            rng,
        ).positions  # fmt: skip
        stone = after[:, slot]
        kept = np.any(stone != 0.0, axis=1)
        hit = np.nan
        if target >= 0:
            moved = np.hypot(*(after[:, target] - base[target]).T)
            hit = float(np.mean(moved > 0.01))
        spread = [*stone[kept].mean(0), *stone[kept].std(0)] if kept.any() else [np.nan] * 4
        rows.append([*spread, kept.mean(), hit])
    return np.array(rows)


def make(throws: int, seeds: int, out: Path) -> None:
    cal = calibration_inputs()
    mid = midend_inputs(throws)
    free = _free_midsheet_throws()
    np.savez_compressed(
        out,
        calibration_positions=cal[0], calibration_slots=cal[1], calibration_throws=cal[2],
        calibration_rest=rest_points(*cal),
        midsheet_throws=free, midsheet_states=midsheet_states(free),
        midend_positions=mid[0], midend_slots=mid[1], midend_throws=mid[2],
        midend_rest=rest_points(*mid),
        noisy_names=np.array([name for name, *_ in NOISY_THROWS]),
        noisy_seeds=np.array(seeds), noisy_figures=noisy_figures(seeds),
    )  # fmt: skip
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def save_throws(n: int, out: Path, shift_h: float = 0.0) -> None:
    """Save the throws and their rest points; ``shift_h`` moves every release sideways first
    (the rest points then show how much contacts amplify a tiny change)."""
    positions, slots, throws = midend_inputs(n)
    shifted = throws + np.array([0.0, shift_h, 0.0])
    np.savez_compressed(out, positions=positions, slots=slots, throws=throws,
                        rest=rest_points(positions, slots, shifted))  # fmt: skip
    print(f"wrote {out}: {n} mid-end throws")


def diff(a: Path, b: Path) -> None:
    old, new = np.load(a), np.load(b)
    assert np.array_equal(old["throws"], new["throws"]), "the files hold different throws"
    in_play = np.any(old["rest"] != 0.0, axis=2) | np.any(new["rest"] != 0.0, axis=2)
    gap = np.hypot(*(old["rest"] - new["rest"]).transpose(2, 0, 1))[in_play]
    per_throw = np.where(in_play, np.hypot(*(old["rest"] - new["rest"]).transpose(2, 0, 1)), 0)
    worst = per_throw.max(1)
    print(f"{len(worst)} throws, {gap.size} stones in play after them")
    print(f"  stone rest-point gap: median {1e3 * np.median(gap):.3f} mm, p99 "
          f"{1e3 * np.quantile(gap, 0.99):.3f} mm, max {1e3 * gap.max():.1f} mm")  # fmt: skip
    for mm in (1, 5, 50):
        print(f"  throws with every stone within {mm} mm: {100 * np.mean(worst <= mm / 1e3):.2f} %")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make", help="write the reference the tests keep")
    p.add_argument("--throws", type=int, default=2000)
    p.add_argument("--seeds", type=int, default=10_000)
    p.add_argument("--out", type=Path, default=REFERENCE)
    p = sub.add_parser("throws", help="save N noise-free mid-end throws and their rest points")
    p.add_argument("--throws", type=int, default=10_000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--shift-h", type=float, default=0.0, help="move every release by this (m)")
    p = sub.add_parser("diff", help="compare two files written by `throws`")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "make":
        make(args.throws, args.seeds, args.out)
    elif args.command == "throws":
        save_throws(args.throws, args.out, args.shift_h)
    else:
        diff(args.a, args.b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
