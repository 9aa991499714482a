"""Stone-stone contacts of the fcv1 ice, solved the way Box2D v2.4.1 solves DC3's stones.

One Box2D step after the fcv1 free-flight update (:func:`box2d_step`):

1. *Collide*: a contact exists while the two stones' fat boxes (the stone's box grown by
   ``AABB_MARGIN``) overlap; it enters both stones' contact lists, newest first (``stamp``
   records its creation order). It *touches* while the centres are at most 2 r apart. A contact
   that starts or stops touching wakes both stones; one that keeps touching keeps its
   accumulated impulses for warm starting, otherwise they restart at 0.
2. *Islands*: stones joined by touching contacts, found depth-first from each awake stone in
   descending body order, the contacts in each stone's list order; the order of the contacts
   decides the order of the sequential impulses.
3. *Velocities*: restitution bias ``-e vn`` for approaching contacts (threshold 0), warm start,
   then ``VELOCITY_ITERATIONS`` passes, each solving friction (clamped to ``mu`` times the
   normal impulse, which passes spin) before the normal impulse (clamped at 0).
4. *Positions*: ``x += v dt``, then up to ``POSITION_ITERATIONS`` Baumgarte passes that push
   apart stones overlapping by more than the linear slop.

Arrays (16 stones in DC's body order; pair arrays indexed ``[i, j]`` with i < j, i = body A):
``pos``, ``vel`` (16, 2) m, m/s; ``w`` (16,) rad/s; ``live`` stones in play; ``awake`` Box2D's
sleep flag (a placed stone sleeps until a contact wakes it); ``touching``, ``nimp`` (normal
impulse), ``timp`` (tangent impulse), ``stamp`` (0 = no contact) (16, 16).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling.physics.fcv1 import params as p

N = 16
_TWO_R = 2.0 * p.RADIUS
_FAT = 2.0 * (p.RADIUS + p.AABB_MARGIN)


@njit(cache=True)
def collide(
    pos: np.ndarray, live: np.ndarray, awake: np.ndarray, touching: np.ndarray,
    nimp: np.ndarray, timp: np.ndarray, stamp: np.ndarray, clock: np.ndarray,
) -> bool:  # fmt: skip
    """Box2D's collide phase over every pair (module docstring, 1.); True if any pair touches."""
    anyt = False
    for i in range(N):
        if not live[i]:
            continue
        for j in range(i + 1, N):
            if not live[j] or not (awake[i] or awake[j]):
                anyt = anyt or (live[j] and touching[i, j])
                continue
            dx, dy = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
            if abs(dx) >= _FAT or abs(dy) >= _FAT:
                stamp[i, j] = 0
                touching[i, j] = False
                nimp[i, j] = timp[i, j] = 0.0
                continue
            if stamp[i, j] == 0:
                clock[0] += 1
                stamp[i, j] = clock[0]
            now = dx * dx + dy * dy <= _TWO_R * _TWO_R
            if now != touching[i, j]:
                awake[i] = awake[j] = True
                nimp[i, j] = timp[i, j] = 0.0
                touching[i, j] = now
            anyt = anyt or now
    return anyt


@njit(cache=True)
def drop(
    i: int, touching: np.ndarray, nimp: np.ndarray, timp: np.ndarray, stamp: np.ndarray
) -> None:
    """Forget every contact of stone ``i`` (removed from play)."""
    for j in range(N):
        a, b = min(i, j), max(i, j)
        touching[a, b] = False
        nimp[a, b] = timp[a, b] = 0.0
        stamp[a, b] = 0


@njit(cache=True)
def _island(
    seed: int, live: np.ndarray, touching: np.ndarray, stamp: np.ndarray, in_island: np.ndarray,
    used: np.ndarray, bodies: np.ndarray, ca: np.ndarray, cb: np.ndarray, iwork: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Bodies and contacts of the island of ``seed``, in Box2D's depth-first order."""
    stack, order, keys = iwork[:N], iwork[N : 2 * N], iwork[2 * N : 3 * N]
    top, nb, nc = 1, 0, 0
    stack[0] = seed
    in_island[seed] = True
    while top > 0:
        top -= 1
        b = stack[top]
        bodies[nb] = b
        nb += 1
        n = 0
        for o in range(N):  # the touching contacts of b, newest first
            a, c = min(b, o), max(b, o)
            if o != b and live[o] and touching[a, c] and not used[a, c]:
                k = n
                while k > 0 and keys[k - 1] < stamp[a, c]:
                    order[k], keys[k] = order[k - 1], keys[k - 1]
                    k -= 1
                order[k], keys[k] = o, stamp[a, c]
                n += 1
        for q in range(n):
            o = order[q]
            a, c = min(b, o), max(b, o)
            if used[a, c]:
                continue
            used[a, c] = True
            ca[nc], cb[nc] = a, c
            nc += 1
            if not in_island[o]:
                in_island[o] = True
                stack[top] = o
                top += 1
    return nb, nc


@njit(cache=True, inline="always")
def _apply(
    vel: np.ndarray, w: np.ndarray, a: int, b: int, px: float, py: float, rax: float,
    ray: float, rbx: float, rby: float,
) -> None:  # fmt: skip
    vel[a, 0] -= p.INV_MASS * px
    vel[a, 1] -= p.INV_MASS * py
    w[a] -= p.INV_INERTIA * (rax * py - ray * px)
    vel[b, 0] += p.INV_MASS * px
    vel[b, 1] += p.INV_MASS * py
    w[b] += p.INV_INERTIA * (rbx * py - rby * px)


@njit(cache=True)
def _solve_island(
    pos: np.ndarray, vel: np.ndarray, w: np.ndarray, nimp: np.ndarray, timp: np.ndarray,
    ca: np.ndarray, cb: np.ndarray, nc: int, geo: np.ndarray,
) -> None:  # fmt: skip
    """Velocity constraints of one island's contacts (module docstring, 3.); ``geo`` (>= nc, 9)
    receives each contact's nx, ny, rax, ray, rbx, rby, normal mass, tangent mass, bias."""
    for q in range(nc):
        a, b = ca[q], cb[q]
        dx, dy = pos[b, 0] - pos[a, 0], pos[b, 1] - pos[a, 1]
        d = math.sqrt(dx * dx + dy * dy)
        nx, ny = (dx / d, dy / d) if d > 1.1920929e-07 else (1.0, 0.0)
        mx = 0.5 * (pos[a, 0] + p.RADIUS * nx + pos[b, 0] - p.RADIUS * nx)
        my = 0.5 * (pos[a, 1] + p.RADIUS * ny + pos[b, 1] - p.RADIUS * ny)
        rax, ray, rbx, rby = mx - pos[a, 0], my - pos[a, 1], mx - pos[b, 0], my - pos[b, 1]
        tx, ty = ny, -nx
        rna, rnb = rax * ny - ray * nx, rbx * ny - rby * nx
        rta, rtb = rax * ty - ray * tx, rbx * ty - rby * tx
        kn = 2.0 * p.INV_MASS + p.INV_INERTIA * (rna * rna + rnb * rnb)
        kt = 2.0 * p.INV_MASS + p.INV_INERTIA * (rta * rta + rtb * rtb)
        dvx = vel[b, 0] - w[b] * rby - vel[a, 0] + w[a] * ray
        dvy = vel[b, 1] + w[b] * rbx - vel[a, 1] - w[a] * rax
        vrel = dvx * nx + dvy * ny
        bias = -p.RESTITUTION * vrel if vrel < -p.RESTITUTION_THRESHOLD else 0.0
        geo[q, 0], geo[q, 1], geo[q, 2], geo[q, 3] = nx, ny, rax, ray
        geo[q, 4], geo[q, 5], geo[q, 6], geo[q, 7], geo[q, 8] = rbx, rby, 1 / kn, 1 / kt, bias
    for q in range(nc):  # warm start
        a, b = ca[q], cb[q]
        nx, ny = geo[q, 0], geo[q, 1]
        px = nimp[a, b] * nx + timp[a, b] * ny
        py = nimp[a, b] * ny - timp[a, b] * nx
        _apply(vel, w, a, b, px, py, geo[q, 2], geo[q, 3], geo[q, 4], geo[q, 5])
    for _ in range(p.VELOCITY_ITERATIONS):
        for q in range(nc):
            a, b = ca[q], cb[q]
            nx, ny, rax, ray, rbx, rby = (
                geo[q, 0],
                geo[q, 1],
                geo[q, 2],
                geo[q, 3],
                geo[q, 4],
                geo[q, 5],
            )
            tx, ty = ny, -nx
            dvx = vel[b, 0] - w[b] * rby - vel[a, 0] + w[a] * ray
            dvy = vel[b, 1] + w[b] * rbx - vel[a, 1] - w[a] * rax
            lam = -geo[q, 7] * (dvx * tx + dvy * ty)
            fmax = p.CONTACT_FRICTION * nimp[a, b]
            new = min(max(timp[a, b] + lam, -fmax), fmax)
            lam = new - timp[a, b]
            timp[a, b] = new
            _apply(vel, w, a, b, lam * tx, lam * ty, rax, ray, rbx, rby)
            dvx = vel[b, 0] - w[b] * rby - vel[a, 0] + w[a] * ray
            dvy = vel[b, 1] + w[b] * rbx - vel[a, 1] - w[a] * rax
            lam = -geo[q, 6] * (dvx * nx + dvy * ny - geo[q, 8])
            new = max(nimp[a, b] + lam, 0.0)
            lam = new - nimp[a, b]
            nimp[a, b] = new
            _apply(vel, w, a, b, lam * nx, lam * ny, rax, ray, rbx, rby)


@njit(cache=True)
def _push_apart(pos: np.ndarray, ca: np.ndarray, cb: np.ndarray, nc: int) -> None:
    """Box2D's position iterations (module docstring, 4.): circles only move their centres."""
    for _ in range(p.POSITION_ITERATIONS):
        worst = 0.0
        for q in range(nc):
            a, b = ca[q], cb[q]
            dx, dy = pos[b, 0] - pos[a, 0], pos[b, 1] - pos[a, 1]
            d = math.sqrt(dx * dx + dy * dy)
            if d <= 1.1920929e-07:
                continue
            nx, ny = dx / d, dy / d
            sep = d - _TWO_R
            worst = min(worst, sep)
            c = min(max(p.BAUMGARTE * (sep + p.LINEAR_SLOP), -p.MAX_LINEAR_CORRECTION), 0.0)
            imp = -c / (2.0 * p.INV_MASS)
            pos[a, 0] -= p.INV_MASS * imp * nx
            pos[a, 1] -= p.INV_MASS * imp * ny
            pos[b, 0] += p.INV_MASS * imp * nx
            pos[b, 1] += p.INV_MASS * imp * ny
        if worst >= -3.0 * p.LINEAR_SLOP:
            return


@njit(cache=True)
def workspace() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays of :func:`box2d_step`, made once per shot: island flags of stones and
    contacts, integer work (stack, order, keys, bodies, contact ends), contact geometry."""
    return (
        np.zeros(N, dtype=np.bool_), np.zeros((N, N), dtype=np.bool_),
        np.zeros(4 * N + 2 * N * N, dtype=np.int64), np.zeros((N * N, 9)),
    )  # fmt: skip


@njit(cache=True)
def box2d_step(
    pos: np.ndarray, vel: np.ndarray, w: np.ndarray, live: np.ndarray, awake: np.ndarray,
    touching: np.ndarray, nimp: np.ndarray, timp: np.ndarray, stamp: np.ndarray,
    clock: np.ndarray, work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> None:  # fmt: skip
    """One Box2D world step of dt over every stone in play (module docstring). ``work``:
    :func:`workspace`."""
    anyt = collide(pos, live, awake, touching, nimp, timp, stamp, clock)
    if anyt:
        in_island, used, iwork, geo = work
        in_island[:] = False
        used[:, :] = False
        bodies, ca, cb = iwork[3 * N : 4 * N], iwork[4 * N : 4 * N + N * N], iwork[4 * N + N * N :]
        for seed in range(N - 1, -1, -1):
            if not live[seed] or not awake[seed] or in_island[seed]:
                continue
            nb, nc = _island(seed, live, touching, stamp, in_island, used, bodies, ca, cb, iwork)
            for k in range(nb):
                awake[bodies[k]] = True
            if nc > 0:
                _solve_island(pos, vel, w, nimp, timp, ca, cb, nc, geo)
            for k in range(nb):
                b = bodies[k]
                pos[b, 0] += p.DT * vel[b, 0]
                pos[b, 1] += p.DT * vel[b, 1]
            if nc > 0:
                _push_apart(pos, ca, cb, nc)
        return
    for b in range(N):
        if live[b] and awake[b]:
            pos[b, 0] += p.DT * vel[b, 0]
            pos[b, 1] += p.DT * vel[b, 1]
