"""The running-band friction model: the reference integrals and the lookup table built from them.

Geometry (velocity-aligned frame, used only inside this module): the stone moves along +f
("forward") at speed ``v`` and spins at ``|w|`` in the sense that curls it toward +l ("lateral"),
so a positive lateral force is curl in the direction of the spin's sign. The running band is a
thin ring of radius ``r`` around the centre; ring angle ``x`` in [0, pi/2] sweeps each quadrant:

====  =============  ================================================================
name  quadrant       local velocity of the ring element (in units of ``v``), rho = |w| r / v
====  =============  ================================================================
BW    back, with     (rho sin x, 1 + rho cos x)  -- spin adds to the forward speed
BA    back, against  (rho sin x, 1 - rho cos x)  -- spin subtracts from it
FW    front, with    (-rho sin x, 1 + rho cos x)
FA    front, against (-rho sin x, 1 - rho cos x)
====  =============  ================================================================

Each element gets **dry** friction ``mu * dry_accel / (2 pi)`` per radian (acceleration units)
and/or **wet** friction ``(k / M) |u|^phi`` per radian, both along ``-u/|u|``; its torque is
``p x F``. Which quadrants are dry or wet (and at which radius) depends on the speed regime:
that is :attr:`IceModel.band_terms`. As on the platform, the direction of an element whose
local velocity points backward (``u_f < 0``) is taken as ``sign(u_f) * u/|u|`` (the platform's
``atan``-based formulation); this only matters when ``|w| r > v``, i.e. in the last centimetres.

Because every dry term depends on ``rho`` only and every wet term is ``(v^2 + (|w| R)^2)^(phi/2)``
times a function of ``rho``, the forces on a free stone are

    lateral, deceleration, spin change = mu * D(rho) + q * W(rho),  q = (v^2 + (|w| R)^2)^(phi/2)

per regime. :func:`build_table` tabulates ``D`` and ``W`` on a grid of ``s = rho / (1 + rho)``
in [0, 1] (a one-dimensional table per regime, six numbers per node); the kernel interpolates it
linearly. :func:`band_forces` is the reference the table is tested against.
"""

from __future__ import annotations

import math

import numpy as np

from rllib_curling.physics.ice import IceModel

#: Quadrant name -> (sign of sin x in the lateral velocity, sign of cos x in the forward one,
#: ring point p = r * (pl, pf) as functions of x: (pl_cos, pl_sin, pf_cos, pf_sin)).
_QUADRANTS = {
    #       lat  fwd   point (lateral, forward) coefficients of (cos x, sin x)
    "BW": (1.0, 1.0, (1.0, 0.0, 0.0, -1.0)),
    "BA": (1.0, -1.0, (-1.0, 0.0, 0.0, -1.0)),
    "FW": (-1.0, 1.0, (1.0, 0.0, 0.0, 1.0)),
    "FA": (-1.0, -1.0, (-1.0, 0.0, 0.0, 1.0)),
}

#: Regime indices used by the table and the kernel.
SLOW, MID, FAST = 0, 1, 2

_GAUSS_NODES = 96
_GX, _GW = np.polynomial.legendre.leggauss(_GAUSS_NODES)


def _quadrant_integrals(quadrant: str, rho: np.ndarray, quirk: bool) -> np.ndarray:
    """Integrals over one quadrant for each ``rho`` (shape (n,)): returns (n, 6) array

    columns: dry lateral, dry forward (deceleration), dry torque (per unit radius),
    wet lateral, wet forward, wet torque; wet ones carry ``|u|^2`` (phi = 2 folded later).
    """
    lat_sign, fwd_sign, (plc, pls, pfc, pfs) = _QUADRANTS[quadrant]
    rho = np.asarray(rho, dtype=np.float64)[:, None]
    # Split [0, pi/2] where the forward velocity changes sign (only on the "against" side).
    if fwd_sign < 0:
        split = np.where(rho > 1.0, np.arccos(np.minimum(1.0, 1.0 / np.maximum(rho, 1e-300))), 0.0)
    else:
        split = np.zeros_like(rho)
    out = np.zeros((rho.shape[0], 6))
    for lo, hi in ((np.zeros_like(split), split), (split, np.full_like(split, math.pi / 2))):
        half = (hi - lo) / 2
        x = lo + half * (_GX[None, :] + 1.0)
        wgt = half * _GW[None, :]
        c, s = np.cos(x), np.sin(x)
        ul = lat_sign * rho * s
        uf = 1.0 + fwd_sign * rho * c
        norm = np.hypot(ul, uf)
        norm = np.where(norm == 0.0, 1.0, norm)
        dl, df = ul / norm, uf / norm
        if quirk:
            sgn = np.where(uf < 0.0, -1.0, 1.0)
            dl, df = dl * sgn, df * sgn
        pl = plc * c + pls * s
        pf = pfc * c + pfs * s
        # Friction is -d; lateral component -dl; deceleration +df; torque p x (-d) about +spin.
        torque = -(pl * df - pf * dl)
        u2 = ul * ul + uf * uf
        for k, val in enumerate((-dl, df, torque, -dl * u2, df * u2, torque * u2)):
            out[:, k] += np.sum(wgt * val, axis=1)
    return out


def _regime_coefficients(model: IceModel, regime: int, rho: np.ndarray) -> np.ndarray:
    """(n, 6) coefficients of one regime: columns dry lat, dry decel, dry spin change (per unit
    mu), wet lat, wet decel, wet spin change (per unit ``q``), in m/s^2 and rad/s^2."""
    rho = np.asarray(rho, dtype=np.float64)
    out = np.zeros((rho.shape[0], 6))
    dry_density = model.dry_accel / (2 * math.pi)
    wet_density = model.wet_k / model.mass
    spin_per_torque = model.spin_gain / model.inertia
    for kind, quadrant, radial, force_w, torque_w in model.band_terms[regime]:
        radius = model.band_radius + radial * model.band_width / 2
        ratio = radius / model.band_radius
        integ = _quadrant_integrals(quadrant, rho * ratio, model.reverse_flow_quirk)
        if kind == "dry":
            out[:, 0] += force_w * dry_density * integ[:, 0] * model.lateral_gain
            out[:, 1] += force_w * dry_density * integ[:, 1]
            out[:, 2] += torque_w * dry_density * model.mass * radius * integ[:, 2]
        else:
            # |u|^2 integrals are in units of v^2; convert to units of q = v^2 (1 + rho^2).
            scale = wet_density / (1.0 + rho**2)
            out[:, 3] += force_w * scale * integ[:, 3] * model.lateral_gain
            out[:, 4] += force_w * scale * integ[:, 4]
            out[:, 5] += torque_w * model.wet_k * radius * integ[:, 5] / (1.0 + rho**2)
    out[:, 2] *= spin_per_torque * model.torque_gain
    out[:, 5] *= spin_per_torque * model.torque_gain
    return out


def regime_of(model: IceModel, speed: float) -> int:
    """Speed regime of the platform: FAST at >= regime_fast, MID at >= regime_slow, else SLOW."""
    if speed >= model.regime_fast:
        return FAST
    return MID if speed >= model.regime_slow else SLOW


def band_forces(
    model: IceModel, speed: float, spin: float, mu: float
) -> tuple[float, float, float]:
    """Reference: (lateral accel, deceleration, d(spin)/dt) of a free stone, by quadrature.

    ``lateral`` is toward +curl of the spin's sign (multiply by ``sign(spin)``); ``d(spin)/dt``
    likewise is for positive spin. ``spin == 0`` gives no lateral force and no spin change.
    """
    if speed <= 0.0:
        raise ValueError(f"speed must be positive, got {speed}")
    aw = abs(spin)
    rho = np.array([aw * model.band_radius / speed])
    coef = _regime_coefficients(model, regime_of(model, speed), rho)[0]
    q = (speed * speed + (aw * model.band_radius) ** 2) ** (model.wet_phi / 2)
    lat = mu * coef[0] + q * coef[3]
    dec = mu * coef[1] + q * coef[4]
    dom = mu * coef[2] + q * coef[5]
    if aw == 0.0:
        return 0.0, float(dec), 0.0
    return float(lat), float(dec), float(dom)


#: Nodes of the table in s = rho / (1 + rho); s = 1 (rho = inf) is evaluated at S_MAX_RHO.
TABLE_NODES = 2049
S_MAX_RHO = 1.0e6


def build_table(model: IceModel, nodes: int = TABLE_NODES) -> np.ndarray:
    """Lookup table, shape (3, nodes, 6): ``[regime, node, column]`` as in
    :func:`_regime_coefficients`; node ``i`` is at ``s = i / (nodes - 1)``."""
    if model.wet_phi != 2.0:
        raise ValueError(f"only wet_phi = 2 is supported by the table, got {model.wet_phi}")
    s = np.linspace(0.0, 1.0, nodes)
    rho = np.where(s < 1.0, s / np.maximum(1.0 - s, 1e-300), S_MAX_RHO)
    table = np.empty((3, nodes, 6))
    for regime in (SLOW, MID, FAST):
        table[regime] = _regime_coefficients(model, regime, rho)
    return table
