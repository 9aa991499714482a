"""Fidelity of the fcv1 ice against DC3's own simulator (run by hand; prints figures, --json).

    python measurements/fcv1_fidelity.py [--data DIR] [--json]

``DIR`` (default: the project's ``shared/calibration/dc3``) holds the reference runs of DC3
v1.0.0 (no noise): ``free_throws.csv`` with ``free_trajectories.csv``, and ``collisions.csv``
with ``collision_trajectories.csv`` (their README names the frames and columns). Every case is
thrown once through ``rllib_curling.physics.fcv1.simulate_batch`` (with trajectories), and:

- free throws: status agreement, rest error (in_play and out_hog rows), the last position in
  play of stones removed in motion, and the largest distance at any 0.1 s frame;
- collisions: every stone's status and in/out agreement, rest error of every stone at rest in
  both runs (median, p90, max), and the frames of the trajectory table.

Targets (issue 34): free rest median <= 1 cm and max <= 5 cm, trajectories within 2 cm at
every frame; collisions median <= 5 cm, p90 <= 20 cm, in/out agreement >= 95 %.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np

from rllib_curling.cli.commands.simulate_fcv1 import PLACED, THROWN, read_cases
from rllib_curling.physics.fcv1 import STATUS_NAMES, simulate_batch

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "calibration" / "dc3"
TARGETS = {
    "free_rest_median_m": 0.01, "free_rest_max_m": 0.05, "free_trajectory_max_m": 0.02,
    "collision_rest_median_m": 0.05, "collision_rest_p90_m": 0.20,
}  # fmt: skip
TARGET_IN_OUT = 0.95
FRAME_S = 0.1


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _frames(path: Path, key: str) -> dict[tuple[str, str, int], tuple[float, float]]:
    """(case, stone, frame index) -> (x, y) of the 0.1 s frames (the final row of a stone
    that stops between frames is left out: it is the rest point, compared as such)."""
    out = {}
    for r in _rows(path):
        t = float(r["t"])
        k = round(t / FRAME_S)
        if abs(k * FRAME_S - t) < 1e-6:
            out[(r[key], r.get("stone", "th"), k)] = (float(r["x"]), float(r["y"]))
    return out


def _trajectory_errors(
    frames: dict[tuple[str, str, int], tuple[float, float]], ids: list[str],
    trajectories: list[np.ndarray], rest: np.ndarray, bodies: dict[str, int],
) -> np.ndarray:  # fmt: skip
    """Distance at every reference frame. Where our stone already stopped or left (a step or
    two earlier than DC3's), its rest point or last position in play stands for it."""
    index = {case: n for n, case in enumerate(ids)}
    errs = []
    for (case, stone, k), (x, y) in frames.items():
        n, body = index[case], bodies[stone]
        traj = trajectories[n]
        here = rest[n, body] if k >= len(traj) or np.isnan(traj[k, body, 0]) else traj[k, body]
        errs.append(float(np.hypot(here[0] - x, here[1] - y)))
    return np.array(errs)


def free_throws(data: Path) -> dict[str, float]:
    rows = _rows(data / "free_throws.csv")
    cases = read_cases(data / "free_throws.csv")
    res = simulate_batch(cases.positions, THROWN, cases.throws, trajectory=True)
    assert res.trajectories is not None
    rest, out, same = [], [], 0
    for k, r in enumerate(rows):
        same += STATUS_NAMES[res.status[k, THROWN]] == r["status"]
        x, y = res.rest[k, THROWN]
        if r["x"]:
            rest.append(float(np.hypot(x - float(r["x"]), y - float(r["y"]))))
        elif r["out_x"]:
            out.append(float(np.hypot(x - float(r["out_x"]), y - float(r["out_y"]))))
    frames = _frames(data / "free_trajectories.csv", "throw_id")
    traj = _trajectory_errors(frames, cases.ids, res.trajectories, res.rest, {"th": THROWN})
    return {
        "free_throws": len(rows), "free_status_agreement": same / len(rows),
        "free_rest_median_m": float(np.median(rest)), "free_rest_max_m": float(np.max(rest)),
        "free_removed_last_position_max_m": float(np.max(out)) if out else 0.0,
        "free_trajectory_frames": len(traj), "free_trajectory_max_m": float(np.max(traj)),
        "free_trajectory_median_m": float(np.median(traj)),
    }  # fmt: skip


def collisions(data: Path) -> dict[str, float]:
    rows = _rows(data / "collisions.csv")
    cases = read_cases(data / "collisions.csv")
    res = simulate_batch(cases.positions, THROWN, cases.throws, trajectory=True)
    assert res.trajectories is not None
    bodies = {"th": THROWN, **{f"s{s + 1}": PLACED[s] for s in range(3)}}
    rest, stones, same, in_out = [], 0, 0, 0
    for k, r in enumerate(rows):
        for name, body in bodies.items():
            ref = r.get(f"{name}_status", "")
            if not ref:
                continue
            ours = STATUS_NAMES[res.status[k, body]]
            stones += 1
            same += ours == ref
            in_out += (ours == "in_play") == (ref == "in_play")
            if r[f"{name}_x"] and ours in ("in_play", "out_hog"):
                x, y = res.rest[k, body]
                rest.append(np.hypot(x - float(r[f"{name}_x"]), y - float(r[f"{name}_y"])))
    frames = _frames(data / "collision_trajectories.csv", "case_id")
    traj = _trajectory_errors(frames, cases.ids, res.trajectories, res.rest, bodies)
    return {
        "collision_cases": len(rows), "collision_stones": stones,
        "collision_status_agreement": same / stones, "collision_in_out_agreement": in_out / stones,
        "collision_rest_median_m": float(np.median(rest)),
        "collision_rest_p90_m": float(np.percentile(rest, 90)),
        "collision_rest_max_m": float(np.max(rest)),
        "collision_trajectory_frames": len(traj),
        "collision_trajectory_median_m": float(np.median(traj)),
        "collision_trajectory_p90_m": float(np.percentile(traj, 90)),
        "collision_trajectory_max_m": float(np.max(traj)),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of DC3's CSVs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = {**free_throws(args.data), **collisions(args.data)}
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"fcv1 ice against DC3 v1.0.0 ({args.data})")
    for key, value in figures.items():
        text = f"{value:10.4f}" if isinstance(value, float) else f"{value:10d}"
        target = TARGETS.get(key)
        if key == "collision_in_out_agreement":
            target_text = (
                f"  target >= {TARGET_IN_OUT:g}: {'met' if value >= TARGET_IN_OUT else 'NOT met'}"
            )
        elif target is not None:
            target_text = f"  target <= {target:g}: {'met' if value <= target else 'NOT met'}"
        else:
            target_text = ""
        print(f"  {key:36s} {text}{target_text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
