"""``CurlingMultiAgentEnvRunner``: RLlib's multi-agent env runner, with curling's games stepped
together (``env.vector_multi_agent.CurlingVectorMultiAgentEnv``).

RLlib 2.60 builds a multi-agent env runner's envs as a ``SyncVectorMultiAgentEnv`` (its only
mode), which steps the games one after the other. Curling's multi-agent runs (``curling_multi``,
``curling_league``; ``rl.trainables.curling_defaults`` sets ``env_runner_cls``) get this runner:
it builds the env as RLlib does, then hands the same sub-envs to the curling vector env, which
sends every game's throw before it waits for any reply. Other envs are left as RLlib built them.
"""

from __future__ import annotations

from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.vector.sync_vector_multi_agent_env import SyncVectorMultiAgentEnv
from ray.rllib.utils.annotations import override

from rllib_curling.env.vector_multi_agent import CurlingVectorMultiAgentEnv, is_curling_multi_agent


class CurlingMultiAgentEnvRunner(MultiAgentEnvRunner):
    """``MultiAgentEnvRunner`` whose curling games are stepped together (module docstring)."""

    @override(MultiAgentEnvRunner)
    def make_env(self) -> None:
        super().make_env()
        envs = getattr(self.env, "envs", None) or []
        if (envs and all(is_curling_multi_agent(env) for env in envs)
                and not isinstance(self.env, CurlingVectorMultiAgentEnv)):  # fmt: skip
            assert isinstance(self.env, SyncVectorMultiAgentEnv)  # RLlib 2.60's only vector env
            self.env = CurlingVectorMultiAgentEnv.from_sync(self.env)
