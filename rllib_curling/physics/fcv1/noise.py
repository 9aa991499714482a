"""DC's execution noise (the "normal_dist" player of DC3, DC4's player config), pure.

A throw's release velocity ``(vx, vy)`` becomes: speed ``min(|v|, max_speed) + N(0,
speed_std)``, direction ``atan2(vy, vx) + N(0, angle_std)`` (rad); the rotation is not noised.
Both draws come from the given ``numpy.random.Generator``, speed then direction, throw after
throw, so the same Generator state gives the same throws. DC3 draws from ``std::mt19937`` in
float32: the distribution is the same, the numbers are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import dc_sheet


@dataclass(frozen=True)
class NoiseModel:
    """One player's noise parameters (DC4: ``max_velocity``, ``shot_std_dev``,
    ``angle_std_dev``); m/s, m/s, rad."""

    max_speed: float = dc_sheet.MAX_SPEED
    speed_std: float = dc_sheet.SPEED_STD
    angle_std: float = dc_sheet.ANGLE_STD


#: DC3's defaults (PlayerNormalDistFactory).
NORMAL_DIST = NoiseModel()


def clamp_speed(velocities: object, max_speed: float = dc_sheet.MAX_SPEED) -> np.ndarray:
    """(N, 2) or (2,) release velocities with their speed cut to ``max_speed`` (the direction
    kept), as DC clamps a release before its noise: a new array of the same shape."""
    v = np.asarray(velocities, dtype=np.float64)
    speed = np.hypot(v[..., 0], v[..., 1])[..., None]
    return np.where(speed > max_speed, v * (max_speed / np.maximum(speed, 1e-300)), v)


def noisy_throws(
    velocities: object, rng: np.random.Generator, noise: NoiseModel = NORMAL_DIST
) -> np.ndarray:
    """(N, 2) or (2,) release velocities with DC's noise: a new array of the same shape."""
    v = np.asarray(velocities, dtype=np.float64)
    flat = np.atleast_2d(v)
    if flat.ndim != 2 or flat.shape[1] != 2:
        raise ValueError(f"velocities must have shape (2,) or (N, 2); got {v.shape}")
    draws = rng.normal(size=(flat.shape[0], 2))
    flat = clamp_speed(flat, noise.max_speed)
    speed = np.hypot(flat[:, 0], flat[:, 1]) + noise.speed_std * draws[:, 0]
    angle = np.arctan2(flat[:, 1], flat[:, 0]) + noise.angle_std * draws[:, 1]
    out = np.stack([speed * np.cos(angle), speed * np.sin(angle)], axis=1)
    return out.reshape(v.shape)
