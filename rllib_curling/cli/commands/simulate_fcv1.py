"""``curling simulate --ice fcv1``: throw DC3-style cases on the fcv1 ice, print the outcome.

A case file is a CSV with a header, in DC's shot frame (``dc_sheet``), with the input columns
of DC3's reference tables (``collisions.csv``, ``free_throws.csv``):

==============================  ==============================================================
column                          meaning
==============================  ==============================================================
case_id or throw_id             the case's id (echoed as ``case_id``)
n_placed                        stones lying before the throw (0, empty or absent: none)
s1_x0, s1_y0, s2_x0, ...        their positions, m (DC bodies 8, 9, ...: team 1's stones)
vx, vy                          the thrown stone's release velocity, m/s (DC body 4)
rotation                        ``cw`` or ``ccw`` (also -1 or +1)
==============================  ==============================================================

Other columns are ignored. Numbers are read as float32, as DC3 reads them. The output has the
reference's output columns: ``case_id``, ``th_status``, ``th_x``, ``th_y``, ``s1_status``,
``s1_x``, ``s1_y``, ..., ``t_end``, ``steps``; statuses ``in_play``, ``out_side``,
``out_back``, ``out_hog``; x, y the rest point of a stone in play or out_hog, empty otherwise.
No noise unless ``--seed`` is given (then DC's default player's noise, seeded).
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rllib_curling.cli import UsageError

#: DC bodies: the thrown stone (team 0's stone 4) and the placed ones (team 1's, then team 0's).
THROWN = 4
PLACED = (8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 5, 6, 7)
ROTATIONS = {"ccw": 1.0, "cw": -1.0, "1": 1.0, "+1": 1.0, "-1": -1.0}


@dataclass(frozen=True)
class Cases:
    """Cases read from a file: ``ids`` (N,) str, ``positions`` (N, 16, 2), ``throws`` (N, 3)
    vx, vy, rotation, ``placed`` (N,) stones lying before each throw."""

    ids: list[str]
    positions: np.ndarray
    throws: np.ndarray
    placed: np.ndarray


def read_cases(path: Path) -> Cases:
    """Read a case file (module docstring); :class:`UsageError` with one line on bad input."""
    from rllib_curling.physics.fcv1.flight import V_TOP

    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            names = [n.strip() for n in reader.fieldnames or []]
            rows = [
                {k.strip(): (v or "").strip() for k, v in r.items() if isinstance(k, str)}
                for r in reader
            ]
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a readable CSV file ({exc})") from None
    key = next((k for k in ("case_id", "throw_id") if k in names), None)
    missing = [c for c in ("vx", "vy", "rotation") if c not in names]
    if key is None or missing:
        need = (["case_id or throw_id"] if key is None else []) + missing
        raise UsageError(f"{path}: the header lacks {', '.join(need)} (it has {', '.join(names)})")
    if not rows:
        raise UsageError(f"{path}: no cases after the header")
    n = len(rows)
    positions, throws = np.zeros((n, 16, 2)), np.zeros((n, 3))
    placed = np.zeros(n, dtype=np.int64)
    for k, row in enumerate(rows):
        line = k + 2
        placed[k] = _count(row.get("n_placed", ""), path, line)
        for s in range(placed[k]):
            for axis, col in enumerate((f"s{s + 1}_x0", f"s{s + 1}_y0")):
                if col not in names:
                    raise UsageError(f"{path} line {line}: n_placed {placed[k]} needs column {col}")
                positions[k, PLACED[s], axis] = _number(row[col], col, path, line)
        throws[k, 0] = _number(row["vx"], "vx", path, line)
        throws[k, 1] = _number(row["vy"], "vy", path, line)
        rot = ROTATIONS.get(row["rotation"].lower())
        if rot is None:
            raise UsageError(f"{path} line {line}: rotation {row['rotation']!r}; allowed: cw, ccw")
        throws[k, 2] = rot
        speed = float(np.hypot(throws[k, 0], throws[k, 1]))
        if speed >= V_TOP:
            raise UsageError(f"{path} line {line}: speed {speed:g} m/s; allowed: below {V_TOP:g}")
    return Cases([row[key] for row in rows], positions, throws, placed)


def _count(text: str, path: Path, line: int) -> int:
    if text == "":
        return 0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value.is_integer() or not 0 <= value <= len(PLACED):
        raise UsageError(f"{path} line {line}: n_placed {text!r}; allowed: 0-{len(PLACED)}")
    return int(value)


def _number(text: str, column: str, path: Path, line: int) -> float:
    try:
        value = float(np.float32(text)) if text else float("nan")
    except ValueError:
        raise UsageError(f"{path} line {line}: column {column}: {text!r} is not a number") from None
    if not np.isfinite(value):
        raise UsageError(f"{path} line {line}: column {column} must be a finite number")
    return value


def outcome_columns(n_placed: int) -> list[str]:
    """The output columns for cases with up to ``n_placed`` placed stones."""
    cols = ["case_id"]
    for name in ["th"] + [f"s{s + 1}" for s in range(n_placed)]:
        cols += [f"{name}_status", f"{name}_x", f"{name}_y"]
    return cols + ["t_end", "steps"]


def outcomes(cases: Cases, rng: np.random.Generator | None) -> list[dict[str, object]]:
    """Simulate every case; one dict per case with :func:`outcome_columns` keys (numbers, or
    None where the reference leaves a cell empty)."""
    from rllib_curling.errors import InvalidThrowError
    from rllib_curling.physics.fcv1 import STATUS_NAMES, simulate_batch
    from rllib_curling.physics.fcv1.params import DT

    try:
        res = simulate_batch(cases.positions, THROWN, cases.throws, rng)
    except InvalidThrowError as exc:
        raise UsageError(str(exc)) from None
    width = int(cases.placed.max())
    records: list[dict[str, object]] = []
    for k, case in enumerate(cases.ids):
        rec: dict[str, object] = {"case_id": case}
        bodies = [("th", THROWN)] + [(f"s{s + 1}", PLACED[s]) for s in range(width)]
        for s, (name, body) in enumerate(bodies):
            there = s == 0 or s <= cases.placed[k]
            status = STATUS_NAMES[res.status[k, body]] if there else None
            rests = status in ("in_play", "out_hog")
            rec[f"{name}_status"] = status
            rec[f"{name}_x"] = round(float(res.rest[k, body, 0]), 6) if rests else None
            rec[f"{name}_y"] = round(float(res.rest[k, body, 1]), 6) if rests else None
        rec["t_end"] = round(int(res.steps[k]) * DT, 6)
        rec["steps"] = int(res.steps[k])
        records.append(rec)
    return records


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        text = f"{value:.6f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return str(value)


def run(args: argparse.Namespace) -> int:
    """The ``--ice fcv1`` path of ``curling simulate``."""
    import sys

    for flag, value in (("--v", args.v), ("--position", args.position), ("--slot", args.slot)):
        if value is not None:
            raise UsageError(f"{flag} is not used with --ice fcv1; give --throws FILE.csv")
    if args.throws is None:
        raise UsageError("--ice fcv1 needs --throws FILE.csv (DC3-style cases: vx, vy, rotation)")
    cases = read_cases(args.throws)
    rng = None if args.seed is None or args.no_noise else np.random.default_rng(args.seed)
    records = outcomes(cases, rng)
    if args.json:
        print(json.dumps(records))
        return 0
    writer = csv.writer(sys.stdout, lineterminator="\n")
    cols = outcome_columns(int(cases.placed.max()))
    writer.writerow(cols)
    for rec in records:
        writer.writerow([_cell(rec[c]) for c in cols])
    return 0
