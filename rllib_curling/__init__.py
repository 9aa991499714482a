"""rllib-curling: train digital-curling (数字冰壶) AIs with Ray RLlib.

``import rllib_curling`` registers the env as ``"curling"`` with RLlib (and ``"curling_multi"``
for self-play), as ``rllib_curling:Curling-v0`` with Gymnasium, and the network as
``"curling_net"`` in RLlib's ModelCatalog (see ``rllib_curling.registration``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rllib_curling.registration import register_all

__version__ = "0.1.0"
__all__ = ["CurlingEnv", "CurlingMultiAgentEnv", "__version__"]

if TYPE_CHECKING:
    from rllib_curling.env import CurlingEnv
    from rllib_curling.multi_agent import CurlingMultiAgentEnv


def __getattr__(name: str) -> Any:
    # The env imports gymnasium; keep `import rllib_curling` light for `curling server`.
    if name == "CurlingEnv":
        from rllib_curling.env import CurlingEnv

        return CurlingEnv
    if name == "CurlingMultiAgentEnv":
        from rllib_curling.multi_agent import CurlingMultiAgentEnv

        return CurlingMultiAgentEnv
    raise AttributeError(f"module 'rllib_curling' has no attribute {name!r}")


register_all()
