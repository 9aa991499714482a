"""Aiming on the fcv1 ice (Digital Curling): turn "put a stone there" into DC's throw (vx, vy,
rotation), with tables built from ``physics.fcv1``. The platform's aiming is ``aiming/tables.py``
(offsets ``h`` on the platform's ice); this is the parallel room for DC's shot frame.

Every DC stone leaves the hack (the origin) and fcv1's free flight depends only on the speed and
the spin (``physics.fcv1.params``: speed-only deceleration, a curl that turns the velocity), so the
free path of a release at bearing θ is the path of the straight release (θ = 0, along +y) turned
by θ about the hack. One noise-free table per rotation and release speed, of straight releases,
answers every aiming question:

- ``draw(x, y, rotation)``: the release that comes to rest at (x, y);
- ``hit(x, y, speed, rotation)``: the release whose path runs through the centre of a stone at
  (x, y), meeting it (one stone diameter short of its centre) at ``speed`` m/s (the weight);
- ``draws`` / ``hits``: the same for many targets at once (the search bots' candidates).

Bearings are measured from +y toward +x (``atan2(x, y)``); a release at bearing θ and speed v is
``(v sin θ, v cos θ)``.

Tables (``dc_shot_tables()``, built once per process, about a second):

| table        | shape           | meaning                                                         |
|--------------|-----------------|-----------------------------------------------------------------|
| ``V_GRID``   | (NV,) m/s       | release speeds, 0.5 … 4.0 (DC's noise clamps speeds to 4.0)     |
| ``ROTATIONS``| (2,)            | −1 (cw, curls toward +x), +1 (ccw, curls toward −x)             |
| ``D_GRID``   | (ND,) m         | distances from the hack where the path is recorded, 0 … 44      |
| ``rest_d``   | (2, NV)         | distance from the hack of the rest point (NaN: not at rest in   |
|              |                 | the play area's reach, i.e. removed while moving)               |
| ``rest_turn``| (2, NV)         | bearing of the rest point, rad (the curl's total turn)          |
| ``turn``     | (2, NV, ND)     | bearing of the path where it is ``D_GRID[k]`` from the hack     |
| ``speed``    | (2, NV, ND)     | speed there, m/s (NaN past the rest point or the removal)       |

Noise-free and free (no other stone): the search bots judge the throws under DC's noise and
collisions with ``physics.fcv1.simulate_batch``. Pure: reads the engine, no I/O.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from rllib_curling import dc_sheet

V_GRID = np.round(np.arange(0.5, dc_sheet.MAX_SPEED + 1e-9, 0.005), 4)
ROTATIONS = (-1.0, 1.0)
D_GRID = np.round(np.arange(0.0, 44.0 + 1e-9, 0.05), 4)
#: A hit's weight is its speed when it first touches the target: one stone diameter short of the
#: target's centre (head on).
CONTACT_GAP = 2 * dc_sheet.STONE_RADIUS

Release = tuple[float, float, float]


def _rotation_index(rotation: float) -> int:
    if rotation not in ROTATIONS:
        raise ValueError(f"rotation must be -1 (cw) or +1 (ccw), got {rotation!r}")
    return ROTATIONS.index(float(rotation))


def release(speed: object, bearing: object, rotation: float) -> np.ndarray:
    """(..., 3) throws ``(vx, vy, rotation)`` of release ``speed`` at ``bearing`` (from +y)."""
    v, b = np.broadcast_arrays(np.asarray(speed, float), np.asarray(bearing, float))
    return np.stack([v * np.sin(b), v * np.cos(b), np.full(v.shape, float(rotation))], axis=-1)


@dataclass(frozen=True)
class DCShotTables:
    """Noise-free free-path tables of the fcv1 ice (see the module docstring)."""

    rest_d: np.ndarray
    rest_turn: np.ndarray
    turn: np.ndarray
    speed: np.ndarray

    def draws(self, x: object, y: object, rotation: float) -> np.ndarray:
        """(N, 3) releases that come to rest at each (x, y) with ``rotation``, nothing in the way.

        Targets nearer or farther than any tabulated rest get the nearest tabulated speed."""
        r = _rotation_index(rotation)
        x, y = np.broadcast_arrays(np.atleast_1d(np.asarray(x, float)), np.asarray(y, float))
        ok = np.isfinite(self.rest_d[r])
        dist = np.hypot(x, y)
        v = np.interp(dist, self.rest_d[r, ok], V_GRID[ok])
        turn = np.interp(v, V_GRID[ok], self.rest_turn[r, ok])
        return release(v, np.arctan2(x, y) - turn, rotation)

    def draw(self, x: float, y: float, rotation: float) -> Release:
        """The release that comes to rest at (x, y) with ``rotation`` (one ``draws``)."""
        vx, vy, rot = self.draws(x, y, rotation)[0].tolist()
        return vx, vy, rot

    def hits(self, x: object, y: object, speed: object, rotation: float) -> np.ndarray:
        """(N, 3) releases whose free paths run through each (x, y) and reach the stone there
        (``CONTACT_GAP`` short of it) at ``speed`` m/s; a weight out of reach gets the nearest
        (4.0 m/s at the most)."""
        r = _rotation_index(rotation)
        x, y, speed = np.broadcast_arrays(
            np.atleast_1d(np.asarray(x, float)), np.asarray(y, float), np.asarray(speed, float)
        )
        out = np.empty((x.size, 3))
        for k, (tx, ty, s) in enumerate(zip(x.ravel(), y.ravel(), speed.ravel(), strict=True)):
            dist = float(np.hypot(tx, ty))
            at_contact = _column(self.speed[r], max(dist - CONTACT_GAP, 0.0))
            ok = np.isfinite(at_contact)
            v = float(np.interp(s, at_contact[ok], V_GRID[ok])) if ok.any() else V_GRID[-1]
            out[k] = release(v, np.arctan2(tx, ty) - self._turn_at(r, v, dist), rotation)
        return out

    def _turn_at(self, r: int, v: float, dist: float) -> float:
        """Bearing of the path of speed ``v`` at ``dist`` from the hack; a path that ends
        (removed) before ``dist`` gives its bearing where it was last recorded."""
        while dist > 0.0:
            column = _column(self.turn[r], dist)
            ok = np.isfinite(column)
            if ok.any():
                return float(np.interp(v, V_GRID[ok], column[ok]))
            dist -= 0.1
        return 0.0

    def hit(self, x: float, y: float, speed: float, rotation: float) -> Release:
        """The release that meets the stone at (x, y) head on at ``speed`` (one ``hits``)."""
        vx, vy, rot = self.hits(x, y, speed, rotation)[0].tolist()
        return vx, vy, rot

    def clearance(self, throw: object, points: object) -> np.ndarray:
        """(K,) distance (m) between each point (K, 2) and the free, noise-free path of ``throw``
        where the path is as far from the hack as the point; ``inf`` where the path stops (or
        leaves play) before that distance. A stone's centre nearer than two radii is in the way."""
        vx, vy, rotation = (float(a) for a in np.asarray(throw, float))
        r = _rotation_index(rotation)
        pts = np.asarray(points, float).reshape(-1, 2)
        v = float(np.clip(np.hypot(vx, vy), V_GRID[0], V_GRID[-1]))
        i = int(np.clip(np.searchsorted(V_GRID, v) - 1, 0, len(V_GRID) - 2))
        f = (v - V_GRID[i]) / (V_GRID[i + 1] - V_GRID[i])
        dist = np.hypot(pts[:, 0], pts[:, 1])
        with np.errstate(invalid="ignore"):
            turn = (1 - f) * np.interp(dist, D_GRID, self.turn[r, i]) + f * np.interp(
                dist, D_GRID, self.turn[r, i + 1]
            )
        bearing = float(np.arctan2(vx, vy)) + turn
        gap = np.hypot(dist * np.sin(bearing) - pts[:, 0], dist * np.cos(bearing) - pts[:, 1])
        return np.where(np.isfinite(gap), gap, np.inf)

    def rest_point(self, throw: object) -> tuple[float, float]:
        """Where the free, noise-free release ``throw`` = (vx, vy, rotation) comes to rest (from
        the tables; the inverse of ``draw``)."""
        vx, vy, rotation = (float(a) for a in np.asarray(throw, float))
        r = _rotation_index(rotation)
        v = float(np.hypot(vx, vy))
        ok = np.isfinite(self.rest_d[r])
        dist = float(np.interp(v, V_GRID[ok], self.rest_d[r, ok]))
        bearing = float(np.arctan2(vx, vy)) + float(np.interp(v, V_GRID[ok], self.rest_turn[r, ok]))
        return dist * float(np.sin(bearing)), dist * float(np.cos(bearing))


def _column(table: np.ndarray, dist: float) -> np.ndarray:
    """``table`` (NV, ND) linearly interpolated at distance ``dist`` on ``D_GRID``: (NV,)."""
    i = int(np.clip(np.searchsorted(D_GRID, dist) - 1, 0, len(D_GRID) - 2))
    f = (dist - D_GRID[i]) / (D_GRID[i + 1] - D_GRID[i])
    with np.errstate(invalid="ignore"):
        return np.asarray((1 - f) * table[:, i] + f * table[:, i + 1])


@functools.lru_cache(maxsize=1)
def dc_shot_tables() -> DCShotTables:
    """Build (once per process) the fcv1 free-path tables from straight releases."""
    from rllib_curling.physics.fcv1 import simulate
    from rllib_curling.physics.fcv1.params import DT, FRAME_STEPS, IN_PLAY, OUT_HOG

    empty = np.zeros((16, 2))
    shape = (len(ROTATIONS), len(V_GRID))
    rest_d, rest_turn = np.full(shape, np.nan), np.full(shape, np.nan)
    turn, speed = np.full((*shape, len(D_GRID)), np.nan), np.full((*shape, len(D_GRID)), np.nan)
    frame = FRAME_STEPS * DT
    for r, rotation in enumerate(ROTATIONS):
        for i, v in enumerate(V_GRID):
            result = simulate(empty, 0, (0.0, float(v), rotation), trajectory=True)
            assert result.trajectory is not None  # asked for
            path = result.trajectory[:, 0, :]
            path = path[np.all(np.isfinite(path), axis=1)]
            if result.status[0] in (IN_PLAY, OUT_HOG):
                rx, ry = result.rest[0]
                rest_d[r, i], rest_turn[r, i] = np.hypot(rx, ry), np.arctan2(rx, ry)
                path = np.vstack([path, result.rest[0]])
            # Regular frames (0.1 s) give the speed; the last point (the rest or the removal)
            # closes the path for the bearing.
            dist = np.hypot(path[:, 0], path[:, 1])
            bearing = np.arctan2(path[:, 0], np.maximum(path[:, 1], 1e-12))
            bearing[0] = 0.0
            keep = np.concatenate([[True], np.diff(dist) > 0])
            dist, bearing = dist[keep], bearing[keep]
            turn[r, i] = np.interp(D_GRID, dist, bearing, right=np.nan)
            n_regular = len(result.trajectory) - 1
            seg = np.hypot(*np.diff(result.trajectory[:n_regular, 0, :], axis=0).T)
            mid = 0.5 * (
                np.hypot(*result.trajectory[: n_regular - 1, 0, :].T)
                + np.hypot(*result.trajectory[1:n_regular, 0, :].T)
            )
            good = np.isfinite(seg) & (seg > 0)
            if good.sum() >= 2:
                s = np.interp(D_GRID, mid[good], seg[good] / frame, left=float(v), right=np.nan)
                s[D_GRID > dist[-1]] = np.nan
                speed[r, i] = s
    return DCShotTables(rest_d=rest_d, rest_turn=rest_turn, turn=turn, speed=speed)
