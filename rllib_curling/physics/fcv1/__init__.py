"""The fcv1 ice: UEC Digital Curling's physics (DC3, DC4) beside the platform's ice.

A parallel room: its own free-flight model, Box2D-like contacts, compiled kernels and API, on
DC's shot frame (:mod:`rllib_curling.dc_sheet`). See :mod:`.engine` for the API and the array
layouts, :mod:`.params` for the physics, :mod:`.noise` for DC's execution noise.
"""

from __future__ import annotations

from rllib_curling.physics.fcv1.engine import (
    STATUS_NAMES,
    THROW_NAMES,
    Fcv1Batch,
    Fcv1Result,
    check_throws,
    simulate,
    simulate_batch,
)
from rllib_curling.physics.fcv1.noise import NORMAL_DIST, NoiseModel, clamp_speed, noisy_throws

__all__ = [
    "NORMAL_DIST",
    "STATUS_NAMES",
    "THROW_NAMES",
    "Fcv1Batch",
    "Fcv1Result",
    "NoiseModel",
    "check_throws",
    "clamp_speed",
    "noisy_throws",
    "simulate",
    "simulate_batch",
]
