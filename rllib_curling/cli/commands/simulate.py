"""``curling simulate``: throw stones with the physics engine and print where they rest.

One throw from flags, or many from a CSV file (header required; columns v, h, w and optionally
sweep; other columns are ignored, so rllib_curling/data/official_landing.csv works as is: its
x and y columns are then shown as the table's rest point with the distance to ours).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

import numpy as np

from rllib_curling.cli import UsageError

EXAMPLES = """examples:
  curling simulate --v 3 --h 0 --w 0 --no-noise
  curling simulate --v 4.5 --w -1 --position "2.375 4.88 0 0 ..." --json
  curling simulate --throws throws.csv --seed 1
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate throws and print where the stones rest",
        description=__doc__.splitlines()[0].split(": ", 1)[1],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--v", type=float, help="release speed, m/s (0-6; about 3 draws to the tee)")
    p.add_argument("--h", type=float, default=0.0, help="release offset from centre, m (±2.23)")
    p.add_argument("--w", type=float, default=0.0, help="spin, rad/s (±15.7; + curls to +x)")
    p.add_argument("--sweep", type=float, default=0.0, help="sweep distance after mid-sheet, m")
    p.add_argument(
        "--throws", metavar="FILE.csv", type=Path,
        help="CSV of throws with header v,h,w[,sweep] (other columns ignored; with x,y columns "
        "the table's rest points are compared, see --keep-out-of-play); replaces --v",
    )  # fmt: skip
    p.add_argument(
        "--position", metavar="NUMBERS",
        help='stones before the throw: 32 numbers "x0 y0 ... x15 y15" as in POSITION '
        "(spaces or commas; 0 0 = not in play). Default: an empty sheet",
    )  # fmt: skip
    p.add_argument("--slot", type=int, help="stone number thrown, 0-15 (default: first empty)")
    p.add_argument("--seed", type=int, help="seed of the friction noise (default: random)")
    p.add_argument("--no-noise", action="store_true", help="noise-free model (deterministic)")
    p.add_argument(
        "--keep-out-of-play", action="store_true",
        help="do not remove stones that leave play (to compare rest points with tables)",
    )  # fmt: skip
    p.add_argument(
        "--ice", default="platform",
        help="ice model name (default: platform); fcv1 = UEC Digital Curling's ice: --throws "
        "FILE.csv with DC3's case columns (case_id, n_placed, s1_x0.., vx, vy, rotation), CSV "
        "out with DC3's outcome columns, noise only with --seed",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per throw")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (ValueError, OSError) as exc:  # a bad throw or position, an unreadable file
        raise UsageError(str(exc)) from None


def _run(args: argparse.Namespace) -> int:
    if args.ice == "fcv1":  # a parallel room: DC's frame, cases and outcome columns
        from rllib_curling.cli.commands import simulate_fcv1

        return simulate_fcv1.run(args)
    from rllib_curling.physics import ICE_MODELS, simulate_batch

    if args.ice not in ICE_MODELS:
        known = ", ".join([*ICE_MODELS, "fcv1"])
        raise UsageError(f"unknown --ice {args.ice!r}; known: {known}")
    throws, expected = _read_throws(args)
    throws, note = _as_thrown(throws)
    if note:
        print(f"curling simulate: {note}", file=sys.stderr)
    position = _parse_position(args.position)
    slot = _pick_slot(position, args.slot)
    rng = None if args.no_noise else np.random.default_rng(args.seed)
    res = simulate_batch(
        position, slot, throws, rng, model=ICE_MODELS[args.ice], noise=not args.no_noise,
        remove_out_of_play=not args.keep_out_of_play,
    )  # fmt: skip
    records = [_record(throws[k], res.positions[k], slot, res.mid[k]) for k in range(len(throws))]
    if expected is not None:
        for rec, (x, y) in zip(records, expected, strict=True):
            rec["expected"] = {"x": float(x), "y": float(y)}
            rec["error"] = None if rec["x"] is None else float(np.hypot(rec["x"] - x, rec["y"] - y))
    if args.json:
        print(json.dumps(records))
    else:
        _print_table(records, slot)
    return 0


def _read_throws(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray | None]:
    if args.throws is None:
        if args.v is None:
            raise UsageError("give --v (and --h, --w, --sweep) or --throws FILE.csv")
        return np.array([[args.v, args.h, args.w, args.sweep]]), None
    if args.v is not None:
        raise UsageError("--v and --throws exclude each other")
    with args.throws.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        names = [n.strip() for n in reader.fieldnames or []]
        missing = [c for c in ("v", "h", "w") if c not in names]
        if missing:
            raise UsageError(f"{args.throws}: header must name v, h, w; missing {missing}")
        rows = []
        for line, row in enumerate(reader, start=2):
            row = {k.strip(): v for k, v in row.items() if k is not None}
            cols = ("v", "h", "w", "sweep", "x", "y")
            rows.append([_number(row.get(c), c, args.throws, line) for c in cols])
    if not rows:
        raise UsageError(f"{args.throws}: no throws after the header")
    data = np.array(rows)
    data[np.isnan(data[:, 3]), 3] = 0.0
    expected = data[:, 4:6] if not np.isnan(data[:, 4:6]).any() else None
    return data[:, :4], expected


def _as_thrown(throws: np.ndarray) -> tuple[np.ndarray, str | None]:
    """The throws as the engine throws them (``clamp_throw``: the platform's limits; NaN or inf
    raise, naming the value), and a one-line note of what it clamped, if anything: every value
    of a single throw, the first of many."""
    from rllib_curling.physics import THROW_HIGH, THROW_LOW, THROW_NAMES, clamp_throw

    thrown = np.array([clamp_throw(throw) for throw in throws])
    rows, cols = np.nonzero(thrown != throws)
    notes = [
        f"{THROW_NAMES[c]} {throws[r, c]:g} is outside {THROW_LOW[c]:g}..{THROW_HIGH[c]:g}, "
        f"thrown as {thrown[r, c]:g}"
        for r, c in zip(rows, cols, strict=True)
    ]
    if not notes:
        return thrown, None
    if len(throws) == 1:
        return thrown, "; ".join("--" + note for note in notes)
    n = len(set(rows.tolist()))
    where = f"throw {rows[0] + 1}: {notes[0]}"
    return thrown, f"{n} of {len(throws)} throws clamped to the platform's limits ({where})"


def _number(text: str | None, column: str, path: Path, line: int) -> float:
    if text is None or text.strip() == "":
        if column in ("sweep", "x", "y"):
            return float("nan")
        raise UsageError(f"{path} line {line}: column {column} is empty")
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{path} line {line}: column {column}: {text!r} is not a number") from None


def _parse_position(text: str | None) -> np.ndarray:
    if text is None:
        return np.zeros((16, 2))
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if len(tokens) != 32:
        raise UsageError(f"--position needs 32 numbers (x0 y0 ... x15 y15), got {len(tokens)}")
    try:
        values = np.array([float(t) for t in tokens])
    except ValueError as exc:
        raise UsageError(f"--position: {exc}") from None
    if not np.all(np.isfinite(values)):
        raise UsageError("--position: every value must be a finite number")
    return values.reshape(16, 2)


def _pick_slot(position: np.ndarray, slot: int | None) -> int:
    empty = np.flatnonzero(np.all(position == 0.0, axis=1))
    if slot is None:
        if empty.size == 0:
            raise UsageError("--position has no empty slot (0 0) for the thrown stone")
        return int(empty[0])
    if not 0 <= slot <= 15:
        raise UsageError(f"--slot must be 0-15, got {slot}")
    if slot not in empty:
        raise UsageError(f"--slot {slot} is occupied in --position; empty: {empty.tolist()}")
    return slot


def _record(throw: np.ndarray, position: np.ndarray, slot: int, mid: np.ndarray) -> dict:
    x, y = position[slot]
    out = bool(x == 0.0 and y == 0.0)
    keys = ("x", "y", "vx", "vy", "spin")
    return {
        "throw": dict(zip(("v", "h", "w", "sweep"), map(float, throw), strict=True)),
        "position": [float(c) for c in position.reshape(-1)],
        "x": None if out else float(x),
        "y": None if out else float(y),
        "mid": None if np.isnan(mid[0]) else dict(zip(keys, map(float, mid), strict=True)),
    }


def _print_table(records: list[dict], slot: int) -> None:
    has_expected = "expected" in records[0]
    head = f"{'v':>5} {'h':>6} {'w':>6} {'sweep':>5} | {'rest x':>7} {'rest y':>7}"
    head += " | table x table y   dist" if has_expected else ""
    print(f"stone {slot}; mid = MOTIONINFO x y vx vy spin")
    print(head + " | mid")
    for rec in records:
        t = rec["throw"]
        line = f"{t['v']:5.2f} {t['h']:6.2f} {t['w']:6.2f} {t['sweep']:5.1f} | "
        line += "    out        " if rec["x"] is None else f"{rec['x']:7.3f} {rec['y']:7.3f}"
        if has_expected:
            e = rec["expected"]
            err = "   -  " if rec["error"] is None else f"{rec['error']:6.3f}"
            line += f" | {e['x']:7.3f} {e['y']:7.3f} {err}"
        m = rec["mid"]
        line += " | -" if m is None else " | " + " ".join(f"{m[k]:.4f}" for k in m)
        print(line)
    if has_expected:
        _print_summary(records)


def _print_summary(records: list[dict]) -> None:
    for label, keep in (("no sweep", lambda s: s == 0), ("sweep", lambda s: s > 0)):
        errs = [r["error"] for r in records if keep(r["throw"]["sweep"])]
        if not errs:
            continue
        if any(e is None for e in errs):
            print(f"{label}: {len(errs)} throws, some out of play (try --keep-out-of-play)")
            continue
        rms = float(np.sqrt(np.mean(np.square(errs))))
        print(f"{label}: {len(errs)} throws, RMS {rms:.4f} m, worst {max(errs):.4f} m")
