"""Aiming: turn "put a stone there" into a throw (v, h, w), using tables built with the engine.

A free stone's path does not depend on where it is released: a throw with offset ``h`` follows the
path of the same throw from ``h = 0`` moved sideways by ``h``. So one noise-free table of free
paths, indexed by speed ``v`` and spin ``w``, answers every aiming question:

- ``draw_speed(y_stop, w)``: the speed at which a free stone stops at ``y_stop``;
- ``lateral(v, w, y)``: how far (in x) the stone has drifted from its release line when its
  centre crosses ``y`` (its resting drift if it stops before ``y``);
- ``aim(x, y, v, w)``: the offset ``h`` that makes the path pass through ``(x, y)``.

``path_x``, ``aim_h`` and ``draw_speeds`` are the vectorised forms (many throws at once) that
the search bots use; all interpolate the tables with one helper, ``grid_index``.

Tables (built once per process and ice model, about a second):

| table          | shape                    | meaning                                              |
|----------------|--------------------------|------------------------------------------------------|
| ``V_GRID``     | (NV,) m/s                | speeds, 1.5 … 6.0                                    |
| ``W_GRID``     | (NW,) rad/s              | spins, −2π … 2π                                      |
| ``Y_GRID``     | (NY,) m                  | lines y = 2.9 … 12.0 where the drift is recorded     |
| ``rest_y``     | (NV, NW)                 | y where the free stone stops (−inf: out the back)    |
| ``drift``      | (NV, NW, NY)             | x − release x when crossing Y_GRID[k]                |

The bots, the shot templates and the env's action maps use this module; it only reads the
engine (no I/O).
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field

import numpy as np

from rllib_curling import sheet

V_GRID = np.round(np.arange(1.5, 6.0 + 1e-9, 0.025), 4)
W_GRID = np.linspace(-2 * np.pi, 2 * np.pi, 17)
Y_GRID = np.round(np.arange(2.9, 12.0 + 1e-9, 0.05), 4)
_TRAJECTORY_STRIDE = 2
_CHUNK = 256
#: Spins whose draw curve ``ShotTables.draw_speed`` keeps (the templates use four).
_MAX_CURVES = 64


@dataclass(frozen=True)
class ShotTables:
    """Noise-free free-path tables of one ice model (see the module docstring)."""

    rest_y: np.ndarray
    rest_drift: np.ndarray
    drift: np.ndarray

    #: ``draw_speed``'s curve per spin: (-rest y, v) of the speeds that stop in front.
    _draw_curves: dict[float, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def draw_speed(self, y_stop: float, w: float) -> float:
        """Speed at which a free stone with spin ``w`` comes to rest at ``y_stop``."""
        curve = self._draw_curves.get(w)
        if curve is None:
            rest = _lerp(self.rest_y, W_GRID, w, axis=1)  # (NV,), decreasing in v
            ok = np.isfinite(rest)
            curve = (-rest[ok], V_GRID[ok])
            if len(self._draw_curves) >= _MAX_CURVES:
                self._draw_curves.clear()
            self._draw_curves[w] = curve
        return float(np.interp(-y_stop, *curve))

    def lateral(self, v: float, w: float, y: float) -> float:
        """Sideways drift of a free stone (v, w) when its centre reaches line ``y``.

        Bilinear in (v, w), then linear in y: the same arithmetic as interpolating whole table
        slices (``_lerp``, then ``np.interp`` over ``Y_GRID``), on the few cells it needs."""
        iv, fv = _cell(V_GRID, v)
        iw, fw = _cell(W_GRID, w)

        def at(table: np.ndarray, *k: int) -> float:
            lo = _mix(float(table[(iv, iw, *k)]), float(table[(iv + 1, iw, *k)]), fv)
            if fw == 0.0:
                return lo
            hi = _mix(float(table[(iv, iw + 1, *k)]), float(table[(iv + 1, iw + 1, *k)]), fv)
            return _mix(lo, hi, fw)

        if y < at(self.rest_y):  # stops before reaching the line
            return float(at(self.rest_drift))
        points = _GRID_LISTS[id(Y_GRID)]
        j = min(max(bisect.bisect_right(points, y) - 1, 0), len(points) - 2)
        ends = [at(self.drift, j), at(self.drift, j + 1)]
        return float(np.interp(y, Y_GRID[j : j + 2], ends))

    def aim(self, x: float, y: float, v: float, w: float) -> float:
        """Offset ``h`` so that the free path of (v, w) passes through (or rests at) (x, y)."""
        h = x - sheet.RELEASE_X - self.lateral(v, w, y)
        return float(min(max(h, -sheet.H_MAX), sheet.H_MAX))

    def draw(self, x: float, y: float, w: float) -> tuple[float, float, float]:
        """Throw that comes to rest at (x, y) with spin w, when nothing is in the way."""
        v = self.draw_speed(y, w)
        return v, self.aim(x, y, v, w), w

    def hit(self, x: float, y: float, v: float, w: float) -> tuple[float, float, float]:
        """Throw of speed v and spin w whose path runs through the centre of a stone at (x, y)."""
        return v, self.aim(x, y, v, w), w


def grid_index(grid: np.ndarray, value: object) -> tuple[np.ndarray, np.ndarray]:
    """Lower cell index and fraction of ``value`` (any shape) on the increasing ``grid``, with
    ``value`` clamped to the grid's range: the one interpolation helper of the tables."""
    value = np.clip(np.asarray(value, dtype=np.float64), grid[0], grid[-1])
    i = np.clip(np.searchsorted(grid, value) - 1, 0, len(grid) - 2)
    return i, (value - grid[i]) / (grid[i + 1] - grid[i])


#: The grids as Python lists, for ``_lerp``'s scalar lookups (bisect instead of numpy calls).
_GRID_LISTS = {id(grid): grid.tolist() for grid in (V_GRID, W_GRID, Y_GRID)}


def _cell(grid: np.ndarray, value: float) -> tuple[int, float]:
    """``grid_index`` of one number, in plain Python (bisect) for speed: the same cell and
    fraction."""
    points = _GRID_LISTS.get(id(grid)) or grid.tolist()
    value = min(max(float(value), points[0]), points[-1])
    i = min(max(bisect.bisect_left(points, value) - 1, 0), len(points) - 2)
    return i, (value - points[i]) / (points[i + 1] - points[i])


def _mix(lo: float, hi: float, f: float) -> float:
    """``lo`` at ``f == 0``, else ``(1 - f) * lo + f * hi`` (as ``_lerp`` mixes arrays)."""
    return lo if f == 0.0 else (1 - f) * lo + f * hi


def _lerp(table: np.ndarray, grid: np.ndarray, value: float, axis: int) -> np.ndarray:
    """Linear interpolation of ``table`` along ``axis`` (sampled at ``grid``), clamped."""
    i, f = _cell(grid, value)
    lo = np.take(table, i, axis=axis)
    if f == 0.0:
        return np.asarray(lo)
    with np.errstate(invalid="ignore"):
        return np.asarray((1 - f) * lo + f * np.take(table, i + 1, axis=axis))


def path_x(tables: ShotTables, v: object, h: object, w: object, y: object) -> np.ndarray:
    """x of the free path of throws (v, h, w) where its centre crosses line ``y`` (broadcast).

    Where the stone stops before the line, its resting x. Vectorised ``ShotTables.lateral``.
    """
    v, h, w, y = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (v, h, w, y)))
    iv, fv = grid_index(V_GRID, v)
    iw, fw = grid_index(W_GRID, w)
    iy, fy = grid_index(Y_GRID, y)
    rest_y = np.where(np.isfinite(tables.rest_y), tables.rest_y, -100.0)

    def bilinear(table: np.ndarray, *tail: np.ndarray) -> np.ndarray:
        out = np.zeros(v.shape)
        for dv, wv in ((0, 1 - fv), (1, fv)):
            for dw, ww in ((0, 1 - fw), (1, fw)):
                out = out + wv * ww * table[(iv + dv, iw + dw, *tail)]
        return out

    path = (1 - fy) * bilinear(tables.drift, iy) + fy * bilinear(tables.drift, iy + 1)
    stops_before = y < bilinear(rest_y)
    lateral = np.where(stops_before, bilinear(tables.rest_drift), path)
    return sheet.RELEASE_X + h + lateral


def aim_h(tables: ShotTables, x: object, y: object, v: object, w: object) -> np.ndarray:
    """Offsets ``h`` whose free paths (v, w) pass through (x, y) (vectorised ``aim``)."""
    drift = path_x(tables, v, 0.0, w, y) - sheet.RELEASE_X
    return np.clip(np.asarray(x) - sheet.RELEASE_X - drift, -sheet.H_MAX, sheet.H_MAX)


def draw_speeds(tables: ShotTables, y: object, w: float) -> np.ndarray:
    """Speeds that stop a free stone with spin ``w`` at each ``y`` (vectorised ``draw_speed``)."""
    i, f = grid_index(W_GRID, w)
    lo, hi = tables.rest_y[:, i], tables.rest_y[:, i + 1]
    ok = np.isfinite(lo) & np.isfinite(hi)
    rest = (1 - f) * lo[ok] + f * hi[ok]
    return np.asarray(np.interp(-np.asarray(y, dtype=np.float64), -rest, V_GRID[ok]))


@functools.lru_cache(maxsize=4)
def shot_tables(model_name: str = "platform") -> ShotTables:
    """Build (once per process) the free-path tables of an ice model with the engine."""
    from rllib_curling.physics import ICE_MODELS, simulate_batch

    model = ICE_MODELS[model_name]
    vv, ww = np.meshgrid(V_GRID, W_GRID, indexing="ij")
    throws = np.stack([vv.ravel(), np.zeros(vv.size), ww.ravel(), np.zeros(vv.size)], axis=1)
    empty = np.zeros((16, 2))
    rest_y = np.full(len(throws), -np.inf)
    rest_drift = np.zeros(len(throws))
    drift = np.zeros((len(throws), len(Y_GRID)))
    for start in range(0, len(throws), _CHUNK):
        part = throws[start : start + _CHUNK]
        result = simulate_batch(
            empty, 0, part, None, model=model, noise=False, trajectory_stride=_TRAJECTORY_STRIDE
        )
        assert result.trajectories is not None  # asked for with trajectory_stride
        for i, path in enumerate(result.trajectories):
            _fill_path(np.asarray(path)[:, 0, :], start + i, rest_y, rest_drift, drift)
    shape = (len(V_GRID), len(W_GRID))
    return ShotTables(
        rest_y=rest_y.reshape(shape),
        rest_drift=rest_drift.reshape(shape),
        drift=drift.reshape(*shape, len(Y_GRID)),
    )


def _fill_path(
    path: np.ndarray, k: int, rest_y: np.ndarray, rest_drift: np.ndarray, drift: np.ndarray
) -> None:
    """Record one thrown stone's path (T, 2), which may end in (0, 0) once out of play."""
    on = np.any(path != 0.0, axis=1)
    path = path[on]
    x = path[:, 0] - sheet.RELEASE_X
    y = path[:, 1]
    stopped_in_play = bool(on[-1])
    if stopped_in_play:
        rest_y[k] = y[-1]
        rest_drift[k] = x[-1]
    else:
        rest_drift[k] = x[-1]
    # y decreases along the path: interpolate x at each grid line it crossed.
    crossed = np.interp(Y_GRID, y[::-1], x[::-1], left=np.nan, right=np.nan)
    crossed[Y_GRID < y[-1]] = x[-1]
    drift[k] = crossed
