"""rllib-curling: train digital-curling (数字冰壶) AIs with Ray RLlib.

The package's layers, each importing only the ones below it (docs/architecture.md):
``physics`` → ``rules``/``game`` → ``aiming``/``observation`` → ``bots`` / ``protocol`` →
``server`` / ``client`` → ``env`` → ``offline`` (teacher games as offline data) → ``rl``
(network, training, checkpoints) → ``agent`` (playing a trained agent: its policy, its search,
its player) → ``benchmarks`` → ``cli``.

``import rllib_curling`` is light (numpy only; no Ray, torch or Gymnasium), so ``curling server``
starts fast. Registration is explicit:

- **Gymnasium**: ``gym.make("rllib_curling:Curling-v0", ...)`` imports this package, which
  then imports ``rllib_curling.env``, which registers ``Curling-v0`` (so does any import of
  ``rllib_curling.env``), and ``rllib_curling.dc_env``, which registers ``CurlingDC-v0``
  (Digital Curling's ice).
- **Ray** (the ``"curling"`` / ``"curling_multi"`` envs, the ``"curling_net"`` ModelCatalog
  model, the trainables): ``import rllib_curling.rl``. ``import rllib_curling`` does it too when
  Ray is already imported, so ``from ray import tune`` then ``import rllib_curling`` works; the
  ``rllib`` command does it by itself.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["CurlingEnv", "CurlingMultiAgentEnv", "__version__"]

if TYPE_CHECKING:
    from rllib_curling.env.curling_env import CurlingEnv
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv


def __getattr__(name: str) -> Any:
    # The envs import gymnasium (and the multi-agent env Ray): load them on first access.
    if name in ("CurlingEnv", "CurlingMultiAgentEnv"):
        from rllib_curling import env

        return getattr(env, name)
    raise AttributeError(f"module 'rllib_curling' has no attribute {name!r}")


if "gymnasium" in sys.modules:  # e.g. gym.make("rllib_curling:Curling-v0") importing us
    import rllib_curling.dc_env  # noqa: F401  (registers CurlingDC-v0)
    import rllib_curling.env  # noqa: F401  (registers Curling-v0)
if "ray" in sys.modules:  # Ray is in use already: register with it now
    import rllib_curling.rl  # noqa: F401
