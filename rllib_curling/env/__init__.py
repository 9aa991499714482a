"""The Gymnasium envs: one game of curling against an opponent, over the platform's protocol.

| module                 | what it holds                                                         |
|------------------------|-----------------------------------------------------------------------|
| ``config``             | ``CurlingEnvConfig`` (the typed ``env_config``), ``CurriculumConfig`` |
| ``servers``            | ``EnvServer``: a room of a private server (``PrivateServer``) or one  |
|                        | from a list; ``connect_client``, the one place a client is built      |
| ``actions``            | the continuous, discrete and raw action maps (action → throw)         |
| ``spaces``             | the spaces, ``observe``, ``throw_for``, ``check_action``              |
| ``rewards``            | the reward names (``REWARDS``) and ``game_reward``                    |
| ``curling_env``        | ``CurlingEnv``: single agent against a built-in or external opponent  |
| ``vector``             | ``CurlingVectorEnv``: N ``CurlingEnv`` on one server, pipelined       |
| ``multi_agent``        | ``CurlingMultiAgentEnv``: agents at one server's seats, self-play by  |
|                        | default (``Seating``, ``SelfPlaySeating``; imports Ray)               |
| ``league``             | ``CurlingLeagueEnv`` (``LeagueSeating``): learner against a league    |
| ``vector_multi_agent`` | ``CurlingVectorMultiAgentEnv``: multi-agent games stepped together,   |
|                        | pipelined (imports Ray)                                               |
| ``render``             | text and image pictures of a position (matplotlib for images)         |

The observation layout and its encoder are ``rllib_curling.observation`` (the network reads
them too).

``CurlingMultiAgentEnv`` is loaded on first access, so ``from rllib_curling.env import
CurlingEnv`` does not import Ray.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium

from rllib_curling.env.curling_env import CurlingEnv

if TYPE_CHECKING:
    from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

__all__ = ["GYM_ID", "CurlingEnv", "CurlingMultiAgentEnv", "register_gymnasium"]

#: The Gymnasium id of ``CurlingEnv``; ``gym.make("rllib_curling:Curling-v0")`` works anywhere.
GYM_ID = "Curling-v0"


def register_gymnasium() -> None:
    """Register ``Curling-v0`` with Gymnasium (done on import of this package; idempotent)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="rllib_curling.env:CurlingEnv")


def __getattr__(name: str) -> Any:
    if name == "CurlingMultiAgentEnv":
        from rllib_curling.env.multi_agent import CurlingMultiAgentEnv

        return CurlingMultiAgentEnv
    raise AttributeError(f"module 'rllib_curling.env' has no attribute {name!r}")


register_gymnasium()
