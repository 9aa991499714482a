"""Physics of digital curling: ice models, the compiled tick loop, the batch API.

See :mod:`rllib_curling.physics.engine` for the API and array layouts,
:mod:`rllib_curling.physics.ice` for the parameters and their sources, and
:mod:`rllib_curling.physics.band` for the running-band friction model.
"""

from __future__ import annotations

from rllib_curling.physics.engine import (
    THROW_HIGH,
    THROW_LOW,
    THROW_NAMES,
    BatchResult,
    SimResult,
    clamp_throw,
    clamp_throws,
    derive_seeds,
    simulate,
    simulate_batch,
)
from rllib_curling.physics.ice import ICE_MODELS, PLATFORM, IceModel

__all__ = [
    "ICE_MODELS",
    "PLATFORM",
    "THROW_HIGH",
    "THROW_LOW",
    "THROW_NAMES",
    "BatchResult",
    "IceModel",
    "SimResult",
    "clamp_throw",
    "clamp_throws",
    "derive_seeds",
    "simulate",
    "simulate_batch",
]
