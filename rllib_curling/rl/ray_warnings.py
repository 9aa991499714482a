"""Warnings Ray logs about its own code, which this package drops (``quiet_ray_internals``).

Ray 2.60's ``RLModule.__init__`` builds a deprecated ``RLModuleConfig`` itself, to keep old
custom modules working, whatever the caller passed; so building or loading *any* RLModule, the
keyword constructor (``RLModule(observation_space=…, action_space=…, model_config=…)``) and
``RLModuleSpec(…).build()`` included, logs once per process (ray-project/ray#51630):

    WARNING rl_module.py:463 -- DeprecationWarning: `RLModule(config=[RLModuleConfig object])`
    has been deprecated. Use `RLModule(observation_space=.., …)` instead. …

This package already builds its modules with the keyword constructor (``rl.models``), and a
real ``RLModule(config=…)`` call is an error in Ray 2.60 (``ValueError``), not a warning: the
line tells a user nothing they could act on (``curling play`` printed it at start). The filter
drops exactly the messages in ``RAY_INTERNAL_DEPRECATIONS``; every other Ray deprecation still
shows. ``rllib_curling.rl`` installs it on import, so every process of this layer (the CLI, Ray
workers that load the curling modules) has it.
"""

from __future__ import annotations

import logging

#: The logger Ray's ``deprecation_warning`` writes to (``ray._common.deprecation``).
RAY_DEPRECATION_LOGGER = "ray._common.deprecation"
#: Start of the deprecation messages Ray logs about its own internals (module docstring).
RAY_INTERNAL_DEPRECATIONS = ("DeprecationWarning: `RLModule(config=[RLModuleConfig object])`",)


class RayInternalDeprecations(logging.Filter):
    """Drops the records of ``RAY_INTERNAL_DEPRECATIONS``; lets every other record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(RAY_INTERNAL_DEPRECATIONS)


_FILTER = RayInternalDeprecations()


def quiet_ray_internals() -> None:
    """Install the filter on Ray's deprecation logger (idempotent)."""
    logging.getLogger(RAY_DEPRECATION_LOGGER).addFilter(_FILTER)
