"""Fit the free parameters of the ``platform`` ice to the calibration tables (run by hand).

    python measurements/fit_platform_ice.py [--quick]

The model's structure and constants come from the public reverse-engineering notes of the
platform (see rllib_curling/physics/ice.py); what the tables must decide is fitted here, noise
off, against rllib_curling/data/official_landing.csv and official_midsheet.csv:

1. ``lateral_gain``, ``torque_gain`` (scales of the curl force and of the spin change) and
   ``wet_k`` (the wet friction coefficient, i.e. the speed-dependent part of the deceleration):
   landing RMS over the 120 no-sweep rows plus the MOTIONINFO speed, spin and x errors.
2. ``mu_swept`` (friction while swept): landing RMS over the 27 sweep rows. The platform's code
   says 0.0006, but the recorded throws show that sweeping barely lengthens a throw (at most
   about 0.15 m for 12 m of sweeping), so the fitted value is close to the unswept 0.0010.

It prints the fitted numbers (to copy into ``PLATFORM`` in ice.py) and the calibration figures.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.optimize import minimize, minimize_scalar

from rllib_curling.physics.calibration import (
    OFFICIAL_FREE_DRAWS,
    evaluate,
    landing_errors,
    load_table,
)
from rllib_curling.physics.engine import simulate_batch
from rllib_curling.physics.ice import PLATFORM, IceModel

EMPTY = np.zeros((16, 2))
STAGE1 = ("lateral_gain", "torque_gain", "wet_k")


def stage1_loss(model: IceModel, mid_rows: np.ndarray) -> float:
    """Landing RMS (no sweep) plus MOTIONINFO errors scaled to comparable metres."""
    rows, _, dist = landing_errors(model)
    nosweep = rows["sweep"] == 0.0
    throws = np.stack([mid_rows["v"], mid_rows["h"], mid_rows["w"]], axis=1)
    mid = simulate_batch(EMPTY, 0, throws, model=model, noise=False).mid
    speed_err = np.hypot(mid[:, 2], mid[:, 3]) - np.hypot(mid_rows["vx"], mid_rows["vy"])
    spin_err = mid[:, 4] - mid_rows["spin"]
    x_err = mid[:, 0] - mid_rows["x"]
    landing = float(np.sqrt(np.mean(dist[nosweep] ** 2)))
    draws = simulate_batch(
        EMPTY, 0, [d[0] for d in OFFICIAL_FREE_DRAWS], model=model, noise=False,
        remove_out_of_play=False,
    ).positions[:, 0]  # fmt: skip
    draw_err = np.hypot(*(draws - np.array([d[1] for d in OFFICIAL_FREE_DRAWS])).T)
    # 1 cm of landing ~ 1 % of spin (0.005 rad/s) ~ 0.2 % of speed (0.004 m/s) ~ 0.5 cm of x.
    mid_term = np.sqrt(
        np.mean((spin_err / 0.5) ** 2) + np.mean((speed_err / 0.4) ** 2) + np.mean((x_err * 2) ** 2)
    )
    return landing + float(mid_term) + float(np.sqrt(np.mean(draw_err**2)))


def fit_stage1(base: IceModel, quick: bool) -> IceModel:
    mid_rows = load_table("official_midsheet")
    x0 = np.array([getattr(base, name) for name in STAGE1])

    def loss(scaled: np.ndarray) -> float:
        values = scaled * x0
        model = base.replace(**dict(zip(STAGE1, (float(v) for v in values), strict=True)))
        return stage1_loss(model, mid_rows)

    res = minimize(
        loss, np.ones(len(STAGE1)), method="Nelder-Mead",
        options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 20 if quick else 150},
    )  # fmt: skip
    values = res.x * x0
    print(f"stage 1: loss {res.fun:.5f} after {res.nfev} evaluations")
    return base.replace(
        **{name: round(float(v), 5) for name, v in zip(STAGE1, values, strict=True)}
    )


def fit_stage2(base: IceModel) -> IceModel:
    def loss(mu_swept: float) -> float:
        rows, _, dist = landing_errors(base.replace(mu_swept=float(mu_swept)))
        return float(np.sqrt(np.mean(dist[rows["sweep"] > 0.0] ** 2)))

    res = minimize_scalar(loss, bounds=(0.0006, 0.0010), method="bounded",
                          options={"xatol": 1e-7})  # fmt: skip
    print(f"stage 2: sweep RMS {res.fun:.4f} at mu_swept {res.x:.7f}")
    return base.replace(mu_swept=round(float(res.x), 7))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke test)")
    parser.add_argument(
        "--from-nominal", action="store_true",
        help="start from the platform's nominal constants instead of the current PLATFORM",
    )  # fmt: skip
    args = parser.parse_args(argv)
    start = time.perf_counter()
    base = PLATFORM
    if args.from_nominal:
        base = IceModel(name="platform")
    print("start:", json.dumps(evaluate(base).as_dict()))
    model = fit_stage2(fit_stage1(base, args.quick))
    fitted = {name: getattr(model, name) for name in (*STAGE1, "mu_swept")}
    print("fitted:", json.dumps(fitted))
    print("figures:", json.dumps(evaluate(model).as_dict(), indent=1))
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
