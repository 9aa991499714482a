"""Ray's warnings about its own internals are dropped (``rl.ray_warnings``): loading a checkpoint
for ``curling play`` logs no ``DeprecationWarning``, and Ray's other deprecations still show."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rllib_curling.rl  # noqa: F401  (installs the filter, as every module of the layer does)
from rllib_curling.rl.ray_warnings import RAY_DEPRECATION_LOGGER

pytestmark = pytest.mark.timeout(300)
pytest_plugins = ("rl_fixtures",)  # fixtures: tiny_checkpoint


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_ray_deprecation_logger__drops_the_rlmodule_shim_and_keeps_the_others() -> None:
    from ray._common.deprecation import deprecation_warning

    records = _Records()
    logger = logging.getLogger(RAY_DEPRECATION_LOGGER)
    # An earlier quiet Ray run in this process (``rl.tuning``) may have raised the "ray" logger
    # to ERROR; this test is about the filter, so it sets the level Ray starts with.
    level = logger.level
    logger.setLevel(logging.WARNING)
    logger.addHandler(records)
    try:
        # what Ray's RLModule.__init__ logs through its own RLModuleConfig shim
        deprecation_warning(old="RLModule(config=[RLModuleConfig object])", new="RLModule(...)")
        deprecation_warning(old="Something.old()", new="Something.new()")
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)
    assert len(records.messages) == 1
    assert records.messages[0].startswith("DeprecationWarning: `Something.old()`")


@pytest.mark.slow
def test_policy_player__loading_a_checkpoint_logs_no_deprecation_warning(
    tiny_checkpoint: Path,
) -> None:
    """In a fresh process (Ray logs the shim's warning once per process), as ``curling play``
    loads it: no warning through ``warnings`` nor Ray's logger; a control deprecation logged
    afterwards does show, so the check sees Ray's log lines."""
    script = textwrap.dedent(
        f"""
        import json, warnings
        import numpy as np
        from rllib_curling.agent.player import PolicyPlayer
        from rllib_curling.env.spaces import observation_space
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            player = PolicyPlayer.from_checkpoint({str(tiny_checkpoint)!r})
            player.policy(np.zeros(observation_space().shape, np.float32))
        print(json.dumps([f"{{w.category.__name__}}: {{w.message}}" for w in caught
                          if issubclass(w.category, DeprecationWarning)]))
        from ray._common.deprecation import deprecation_warning
        deprecation_warning(old="control")
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "[]"
    logged = [line for line in run.stderr.splitlines() if "DeprecationWarning" in line]
    assert len(logged) == 1 and "`control` has been deprecated" in logged[0], logged
