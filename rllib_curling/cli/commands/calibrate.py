"""``curling calibrate``: how close the engine comes to recorded throws, noise off
(``DESCRIPTION`` is its help; a collision table's columns: ``physics.collisions``)."""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path
from typing import Any

from rllib_curling.cli import UsageError

#: physics.md §3 targets: (figure, limit) — a figure passes when it is at most its limit.
TARGETS = {
    "landing_rms_nosweep": 0.03,
    "landing_worst_nosweep": 0.15,
    "landing_rms_sweep": 0.08,
    "mid_speed_rel_err": 0.02,
    "mid_spin_rel_err": 0.10,
    "mid_x_err": 0.03,
    "free_draw_v3_error": 0.02,
    "collision_target_median": 0.10,
    "collision_target_p90": 0.30,
    "collision_out_disagreement": 0.10,
    "collision_thrown_median": 0.10,
}

DESCRIPTION = """\
Without files: the package's tables of the platform's server (landing points, MOTIONINFO,
collisions, free draws) against the engine's fidelity targets. With files: any table of the
same kinds, recognised by its header:

- a collision table (setup, v, h, w, target_x, ..., target_rest_x, ...): struck-stone rest
  error median / 90th percentile, in/out-of-play agreement, thrown-stone rest error;
- a landing table (v, h, w, [sweep,] x, y): rest-point RMS and worst row;
- a mid-sheet table (v, h, w, x, y, vx, vy, spin): MOTIONINFO speed, spin and x errors.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="compare the engine with recorded throws (landing, MOTIONINFO, collisions)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "tables", nargs="*", type=Path, metavar="FILE.csv",
        help="tables to check (default: the platform's tables shipped with the package)",
    )  # fmt: skip
    p.add_argument("--ice", default="platform", help="ice model name (default: platform)")
    p.add_argument("--details", action="store_true", help="per-row figures of collision tables")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rllib_curling.errors import ConfigError
    from rllib_curling.physics import ICE_MODELS

    if args.ice not in ICE_MODELS:
        raise UsageError(f"unknown --ice {args.ice!r}; known: {', '.join(ICE_MODELS)}")
    model = ICE_MODELS[args.ice]
    try:
        report = (
            _default_report(model, args.details)
            if not args.tables
            else {str(path): _table_report(path, model, args.details) for path in args.tables}
        )
    except (ConfigError, OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(report))
    else:
        _print(report)
    return 0


def _default_report(model: Any, details: bool) -> dict[str, Any]:
    from rllib_curling.physics.calibration import OFFICIAL_FREE_DRAWS, evaluate
    from rllib_curling.physics.collisions import collision_errors

    tables = evaluate(model)
    coll = collision_errors(model)
    figures = {
        "landing_rms_nosweep": tables.rms_nosweep,
        "landing_worst_nosweep": tables.worst_nosweep,
        "landing_rms_sweep": tables.rms_sweep,
        "mid_speed_rel_err": tables.mid_speed_rel_err,
        "mid_spin_rel_err": tables.mid_spin_rel_err,
        "mid_x_err": tables.mid_x_err,
        "free_draw_v3_error": tables.free_draw_errors[0],
        **_collision_figures(coll),
    }
    out: dict[str, Any] = {"ice": model.name, "figures": figures, "targets": TARGETS}
    out["free_draws"] = [
        {"throw": list(throw), "official_mean": list(mean), "throws": n, "error": err}
        for (throw, mean, n), err in zip(OFFICIAL_FREE_DRAWS, tables.free_draw_errors, strict=True)
    ]
    if details:
        out["collisions"] = coll.details
    return out


def _collision_figures(coll: Any) -> dict[str, float]:
    return {
        "collision_target_median": coll.target_median,
        "collision_target_p90": coll.target_p90,
        "collision_out_disagreement": 1.0 - coll.in_out_agreement,
        "collision_thrown_median": coll.thrown_median,
        "collision_rows": coll.rows,
    }


def _table_report(path: Path, model: Any, details: bool) -> dict[str, Any]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        header = {c.strip() for c in next(csv.reader(fh), [])}
    if {"target_rest_x", "target_x"} <= header:
        from rllib_curling.physics.collisions import collision_errors, read_collisions

        coll = collision_errors(model, read_collisions(path))
        out: dict[str, Any] = {"kind": "collisions", "figures": _collision_figures(coll)}
        if details:
            out["collisions"] = coll.details
        return out
    import numpy as np

    from rllib_curling.physics import simulate_batch
    from rllib_curling.physics.calibration import landing_errors, read_table

    rows = read_table(path)
    names = set(rows.dtype.names or ())
    if {"vx", "vy", "spin"} <= names:
        throws = np.stack([rows["v"], rows["h"], rows["w"]], axis=1)
        mid = simulate_batch(np.zeros((16, 2)), 0, throws, model=model, noise=False).mid
        speed = np.hypot(rows["vx"], rows["vy"])
        spun = rows["w"] != 0.0
        return {"kind": "midsheet", "figures": {
            "mid_speed_rel_err": float(np.max(np.abs(np.hypot(mid[:, 2], mid[:, 3]) - speed)
                                              / speed)),
            "mid_spin_rel_err": float(np.max(np.abs(mid[spun, 4] - rows["spin"][spun])
                                             / np.abs(rows["spin"][spun]))) if spun.any() else 0.0,
            "mid_x_err": float(np.max(np.abs(mid[:, 0] - rows["x"]))),
            "rows": len(rows),
        }}  # fmt: skip
    if {"v", "h", "w", "x", "y"} <= names:
        if "sweep" not in names:
            rows = _with_sweep(rows)
        _, _, dist = landing_errors(model, rows)
        return {"kind": "landing", "figures": {
            "landing_rms": float(np.sqrt(np.mean(dist**2))), "landing_worst": float(dist.max()),
            "rows": len(rows),
        }}  # fmt: skip
    raise ValueError(
        f"{path}: not a landing (v,h,w,x,y), mid-sheet (...,vx,vy,spin) or collision table; "
        f"header {sorted(header)}"
    )


def _with_sweep(rows: Any) -> Any:
    import numpy as np

    out = np.zeros(len(rows), dtype=[(n, "f8") for n in (*rows.dtype.names, "sweep")])
    for name in rows.dtype.names:
        out[name] = rows[name]
    return out


def _print(report: dict[str, Any]) -> None:
    if "figures" in report:
        print(f"ice model {report['ice']!r} against the platform's recorded throws (noise off):")
        for name, value in report["figures"].items():
            limit = TARGETS.get(name)
            mark = "" if limit is None else ("  ok" if value <= limit else "  MISSED")
            target = "" if limit is None else f"  (target <= {limit:g})"
            print(f"  {name:28s} {_fmt(value)}{target}{mark}")
        for draw in report.get("free_draws", []):
            print(f"  free draw {draw['throw']}: {_fmt(draw['error'])} m from the official mean "
                  f"of {draw['throws']} throws")  # fmt: skip
        return
    for path, table in report.items():
        print(f"{path} ({table['kind']}):")
        for name, value in table["figures"].items():
            print(f"  {name:28s} {_fmt(value)}")


def _fmt(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    return "n/a" if math.isnan(value) else f"{value:.4f}"
