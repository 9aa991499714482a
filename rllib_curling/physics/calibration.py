"""The calibration data (tables of the official server) and the figures an ice model reaches.

``rllib_curling/data/official_landing.csv`` (v, h, w, sweep, x, y: where a free throw comes to
rest) and ``official_midsheet.csv`` (v, h, w, x, y, vx, vy, spin: its MOTIONINFO) are least-
squares fits to throws on the course platform's official server (see the project's
``shared/calibration/README.md``); valid for v 2.75-3.25, |h| <= 0.45, |w| <= 1.5, sweep 0-12.
:func:`evaluate` simulates them noise-free and returns the figures that tests, the fitting
script (``measurements/fit_platform_ice.py``) and ``curling calibrate`` report. Recorded
collisions have their own module, :mod:`rllib_curling.physics.collisions`.
"""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from rllib_curling.physics.engine import simulate_batch
from rllib_curling.physics.ice import PLATFORM, IceModel

EMPTY = np.zeros((16, 2))
#: Free draws recorded on the official server (calibration README): throw (v, h, w), the mean
#: rest point (x, y) and the number of throws averaged.
OFFICIAL_FREE_DRAWS: tuple[tuple[tuple[float, float, float], tuple[float, float], int], ...] = (
    ((3.0, 0.0, 0.0), (2.3993, 4.8362), 6),
    ((2.55, -1.2, -3.14), (0.7750, 9.0068), 4),
)
#: Course facts used as sanity checks (calibration README): draw weight and curl.
DRAW_LINE = (3.613, 0.12234)  # v = a - b * y_stop for h = 0, w = 0
CURL_TARGET = 0.78  # m sideways for w = +-3.14 at v = 3
#: Draw-line speeds checked (rest points past the back line are kept for this check).
DRAW_SPEEDS = np.round(np.arange(2.4, 3.6001, 0.05), 4)


def package_csv(name: str) -> str:
    """The text of a calibration CSV shipped with the package (``rllib_curling/data``)."""
    try:
        path = resources.files("rllib_curling").joinpath("data", f"{name}.csv")
        return path.read_text("utf-8")
    except (NotADirectoryError, FileNotFoundError, TypeError):
        # An editable install made before the package had __init__.py resolves it as a
        # namespace package, which importlib.resources cannot read: use the source tree.
        return (Path(__file__).resolve().parents[1] / "data" / f"{name}.csv").read_text("utf-8")


def load_table(name: str) -> np.ndarray:
    """A calibration CSV of the package (``official_landing`` or ``official_midsheet``) as a
    structured array with named float columns."""
    return read_table(io.StringIO(package_csv(name)))


def read_table(source: str | Path | io.StringIO) -> np.ndarray:
    """A numeric CSV with a header (a landing or mid-sheet table) as a structured array."""
    return np.genfromtxt(source, delimiter=",", names=True, dtype=np.float64)


@dataclass(frozen=True)
class CalibrationReport:
    """Figures of one model against the tables (metres, or relative where said)."""

    rms_nosweep: float  # landing distance RMS over the rows without sweep
    worst_nosweep: float  # largest landing distance over those rows
    rms_sweep: float  # landing distance RMS over the sweep rows
    worst_sweep: float
    mid_speed_rel_err: float  # max |speed - speed_table| / speed_table at MOTIONINFO
    mid_spin_rel_err: float  # max relative spin error, rows with w != 0
    mid_x_err: float  # max |x - x_table| at MOTIONINFO
    mid_y_mean: float  # mean MOTIONINFO y (table: about 21.52)
    tee_rest: tuple[float, float]  # rest of v=3, h=0, w=0 (official mean: 2.3993, 4.8362)
    free_draw_errors: tuple[float, ...]  # distance to each OFFICIAL_FREE_DRAWS mean
    curl_pos: float  # x shift of v=3, w=+3.14 against w=0 (course: +0.78)
    curl_neg: float  # same for w=-3.14 (course: -0.78)
    draw_line_err: float  # max |y_stop - (a - v) / b| over DRAW_SPEEDS

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def landing_errors(
    model: IceModel = PLATFORM, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(table rows, simulated rest (N, 2), distance (N,)) for a landing table (the package's
    official_landing.csv by default; columns v, h, w, sweep, x, y), noise off. Stones are not
    removed from play here: the table's v = 3.25 rows rest just past the back line."""
    rows = load_table("official_landing") if rows is None else rows
    throws = np.stack([rows["v"], rows["h"], rows["w"], rows["sweep"]], axis=1)
    res = simulate_batch(EMPTY, 0, throws, model=model, noise=False, remove_out_of_play=False)
    rest = res.positions[:, 0].copy()
    out = np.all(rest == 0.0, axis=1)
    rest[out] = np.nan
    dist = np.hypot(rest[:, 0] - rows["x"], rest[:, 1] - rows["y"])
    dist[out] = np.inf
    return rows, rest, dist


def evaluate(model: IceModel = PLATFORM) -> CalibrationReport:
    """Simulate the calibration tables and the course facts with ``model``, noise off."""
    rows, _, dist = landing_errors(model)
    nosweep = rows["sweep"] == 0.0
    mrows = load_table("official_midsheet")
    throws = np.stack([mrows["v"], mrows["h"], mrows["w"]], axis=1)
    mid = simulate_batch(EMPTY, 0, throws, model=model, noise=False).mid
    speed = np.hypot(mid[:, 2], mid[:, 3])
    speed_t = np.hypot(mrows["vx"], mrows["vy"])
    spun = mrows["w"] != 0.0
    spin_err = np.abs(mid[spun, 4] - mrows["spin"][spun]) / np.abs(mrows["spin"][spun])
    facts = np.array([[3.0, 0.0, 0.0], [3.0, 0.0, 3.14], [3.0, 0.0, -3.14]])
    draws = np.stack([DRAW_SPEEDS, 0 * DRAW_SPEEDS, 0 * DRAW_SPEEDS], axis=1)
    res = simulate_batch(
        EMPTY, 0, np.concatenate([facts, draws]), model=model, noise=False, remove_out_of_play=False
    )
    rest = res.positions[:, 0]
    line = (DRAW_LINE[0] - DRAW_SPEEDS) / DRAW_LINE[1]
    free = simulate_batch(
        EMPTY, 0, [d[0] for d in OFFICIAL_FREE_DRAWS], model=model, noise=False,
        remove_out_of_play=False,
    ).positions[:, 0]  # fmt: skip
    free_err = np.hypot(*(free - np.array([d[1] for d in OFFICIAL_FREE_DRAWS])).T)
    draw_y = rest[3:, 1]
    return CalibrationReport(
        rms_nosweep=_rms(dist[nosweep]),
        worst_nosweep=float(np.max(dist[nosweep])),
        rms_sweep=_rms(dist[~nosweep]),
        worst_sweep=float(np.max(dist[~nosweep])),
        mid_speed_rel_err=float(np.max(np.abs(speed - speed_t) / speed_t)),
        mid_spin_rel_err=float(np.max(spin_err)),
        mid_x_err=float(np.max(np.abs(mid[:, 0] - mrows["x"]))),
        mid_y_mean=float(np.mean(mid[:, 1])),
        tee_rest=(float(rest[0, 0]), float(rest[0, 1])),
        free_draw_errors=tuple(float(e) for e in free_err),
        curl_pos=float(rest[1, 0] - rest[0, 0]),
        curl_neg=float(rest[2, 0] - rest[0, 0]),
        draw_line_err=float(np.max(np.abs(draw_y - line))),
    )


def _rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(values)))) if values.size else 0.0
