"""The Gymnasium env on Digital Curling's ice: one DC game (``dc_game``, the fcv1 ice with DC's
noise, DC's rules) against a built-in DC bot (``dc_bots``), played in process. The parallel room
of ``rllib_curling.env``; it reuses that package's ice-independent parts (the rewards, the action
check, the opponent mixtures).

| module     | what it holds                                                              |
|------------|----------------------------------------------------------------------------|
| ``config`` | ``DCEnvConfig`` (the typed ``env_config``), ``DC_SHOTS_SPEC`` (the shots)   |
| ``spaces`` | the spaces, ``observe`` (the observation table), ``release``, the mirror   |
| ``dc_env`` | ``DCCurlingEnv``                                                           |

Gymnasium: ``gym.make("rllib_curling:CurlingDC-v0", opponent=3, ends=4)``; Tune/RLlib:
``"curling_dc"`` (``rllib_curling.rl.env_names.DC_ENV_NAME``).
"""

from __future__ import annotations

import gymnasium

from rllib_curling.dc_env.config import DCEnvConfig
from rllib_curling.dc_env.dc_env import DCCurlingEnv

__all__ = ["DC_GYM_ID", "DCCurlingEnv", "DCEnvConfig", "register_gymnasium"]

#: The Gymnasium id of ``DCCurlingEnv``: ``gym.make("rllib_curling:CurlingDC-v0")``.
DC_GYM_ID = "CurlingDC-v0"


def register_gymnasium() -> None:
    """Register ``CurlingDC-v0`` with Gymnasium (done on import of this package; idempotent)."""
    if DC_GYM_ID not in gymnasium.registry:
        gymnasium.register(id=DC_GYM_ID, entry_point="rllib_curling.dc_env:DCCurlingEnv")


register_gymnasium()
