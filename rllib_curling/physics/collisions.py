"""Recorded collisions: read a table of them and the figures an ice model reaches on it.

A collision table (``rllib_curling/data/official_collisions.csv`` is the platform's, recorded
on its stand-alone server; see the project's ``shared/calibration/README.md``) has one row per
throw, with the header

| column                        | meaning                                                    |
|-------------------------------|------------------------------------------------------------|
| setup                         | a name; rows with the same setup repeat one throw          |
| v, h, w                       | the throw (no sweep)                                       |
| target_x, target_y            | where the struck stone was placed (RESETPOSITION)          |
| thrown_slot, target_slot      | stone numbers 0..15 of the thrown and the placed stone     |
| target_rest_x, target_rest_y  | where the struck stone came to rest, ``out`` = out of play |
| thrown_rest_x, thrown_rest_y  | where the thrown stone came to rest (empty = not recorded) |

:func:`collision_errors` throws every row noise-free and reports, for the struck stone, the
median and 90th percentile of the rest-point error over the rows where it stayed in play, how
often the engine agrees on in/out of play, and the thrown stone's median rest error where
recorded. ``curling calibrate FILE.csv`` prints them for any such table.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rllib_curling.errors import ConfigError
from rllib_curling.physics.calibration import package_csv
from rllib_curling.physics.engine import simulate_batch
from rllib_curling.physics.ice import PLATFORM, IceModel

COLUMNS = (
    "setup", "v", "h", "w", "target_x", "target_y", "thrown_slot", "target_slot",
    "target_rest_x", "target_rest_y", "thrown_rest_x", "thrown_rest_y",
)  # fmt: skip
OUT = "out"


@dataclass(frozen=True)
class CollisionRow:
    """One recorded collision; ``target_rest`` None = the struck stone left play; ``thrown_rest``
    None = not recorded."""

    setup: str
    throw: tuple[float, float, float]
    target: tuple[float, float]
    thrown_slot: int
    target_slot: int
    target_rest: tuple[float, float] | None
    thrown_rest: tuple[float, float] | None


@dataclass(frozen=True)
class CollisionReport:
    """Figures of an ice model on a collision table (metres)."""

    rows: int
    target_median: float  # struck stone's rest error, rows where it stayed in play
    target_p90: float
    in_out_agreement: float  # share of rows where engine and record agree on in/out of play
    thrown_median: float  # thrown stone's rest error, rows where it was recorded (nan: none)
    thrown_rows: int
    details: list[dict[str, Any]] = field(repr=False, default_factory=list)

    def as_dict(self, details: bool = False) -> dict[str, Any]:
        out = asdict(self)
        if not details:
            out.pop("details")
        return out


def read_collisions(source: str | Path | None = None) -> list[CollisionRow]:
    """The rows of a collision table (the package's official one when ``source`` is None).

    Raises ``ConfigError`` naming the file, the line and the column for anything malformed.
    """
    name = "official_collisions.csv" if source is None else str(source)
    try:
        text = (
            package_csv("official_collisions")
            if source is None
            else Path(source).read_text(encoding="utf-8-sig")
        )
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror or exc}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [c.strip() for c in reader.fieldnames or []]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ConfigError(f"{name}: not a collision table, missing columns {missing}")
    rows = []
    for line, raw in enumerate(reader, start=2):
        row = {k.strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        rows.append(_row(row, name, line))
    if not rows:
        raise ConfigError(f"{name}: no rows after the header")
    return rows


def _row(row: dict[str, str], name: str, line: int) -> CollisionRow:
    def number(column: str) -> float:
        try:
            value = float(row[column])
        except ValueError:
            raise ConfigError(
                f"{name} line {line}: {column} = {row[column]!r} is not a number"
            ) from None
        if not math.isfinite(value):
            raise ConfigError(f"{name} line {line}: {column} = {row[column]!r} is not finite")
        return value

    def point(prefix: str, *, out_ok: bool, optional: bool) -> tuple[float, float] | None:
        x, y = row[f"{prefix}_x"], row[f"{prefix}_y"]
        if out_ok and x.lower() == OUT:
            return None
        if optional and not x and not y:
            return None
        return number(f"{prefix}_x"), number(f"{prefix}_y")

    slots = []
    for column in ("thrown_slot", "target_slot"):
        value = number(column)
        if value != int(value) or not 0 <= value <= 15:
            raise ConfigError(f"{name} line {line}: {column} = {row[column]!r} is not in 0..15")
        slots.append(int(value))
    if slots[0] == slots[1]:
        raise ConfigError(f"{name} line {line}: thrown_slot and target_slot are both {slots[0]}")
    return CollisionRow(
        setup=row["setup"],
        throw=(number("v"), number("h"), number("w")),
        target=(number("target_x"), number("target_y")),
        thrown_slot=slots[0],
        target_slot=slots[1],
        target_rest=point("target_rest", out_ok=True, optional=False),
        thrown_rest=point("thrown_rest", out_ok=False, optional=True),
    )


def collision_errors(
    model: IceModel = PLATFORM, rows: list[CollisionRow] | None = None
) -> CollisionReport:
    """Throw every row of the table noise-free with ``model``; the figures of the module doc."""
    rows = read_collisions() if rows is None else rows
    n = len(rows)
    positions = np.zeros((n, 16, 2))
    for k, row in enumerate(rows):
        positions[k, row.target_slot] = row.target
    slots = np.array([row.thrown_slot for row in rows])
    throws = np.array([row.throw for row in rows])
    kept = simulate_batch(positions, slots, throws, model=model, noise=False,
                          remove_out_of_play=False).positions  # fmt: skip
    ruled = simulate_batch(positions, slots, throws, model=model, noise=False).positions
    target_err, thrown_err, agree, details = [], [], 0, []
    for k, row in enumerate(rows):
        rest = kept[k, row.target_slot]
        sim_out = bool(np.all(ruled[k, row.target_slot] == 0.0))
        agree += sim_out == (row.target_rest is None)
        err = None if row.target_rest is None else float(np.hypot(*(rest - row.target_rest)))
        if err is not None:
            target_err.append(err)
        thrown = kept[k, row.thrown_slot]
        t_err = None if row.thrown_rest is None else float(np.hypot(*(thrown - row.thrown_rest)))
        if t_err is not None:
            thrown_err.append(t_err)
        details.append({
            "setup": row.setup, "target_rest": rest.tolist(), "target_out": sim_out,
            "target_error": err, "thrown_rest": thrown.tolist(), "thrown_error": t_err,
        })  # fmt: skip
    return CollisionReport(
        rows=n,
        target_median=_stat(target_err, 50),
        target_p90=_stat(target_err, 90),
        in_out_agreement=agree / n,
        thrown_median=_stat(thrown_err, 50),
        thrown_rows=len(thrown_err),
        details=details,
    )


def _stat(values: list[float], percentile: float) -> float:
    return float(np.percentile(values, percentile)) if values else math.nan
