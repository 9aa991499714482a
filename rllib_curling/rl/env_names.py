"""The names the curling envs are registered under with Tune (``rl.registration``), the names an
RLlib config's ``environment(...)`` takes. Gymnasium's id is ``rllib_curling.env.GYM_ID``.

| name                 | env                                                             |
|----------------------|-----------------------------------------------------------------|
| ``ENV_NAME``         | ``"curling"``: ``CurlingEnv`` (or ``CurlingVectorEnv``)          |
| ``MULTI_AGENT_ENV_NAME`` | ``"curling_multi"``: ``CurlingMultiAgentEnv``               |
| ``LEAGUE_ENV_NAME``  | ``"curling_league"``: ``CurlingLeagueEnv``                      |
| ``DC_ENV_NAME``      | ``"curling_dc"``: ``dc_env.DCCurlingEnv`` (Digital Curling's    |
|                      | ice, in process; its own ``DCEnvConfig``, not a curling run)    |
"""

from __future__ import annotations

ENV_NAME = "curling"
MULTI_AGENT_ENV_NAME = "curling_multi"
LEAGUE_ENV_NAME = "curling_league"
#: Every curling env name: a config with one of these is a *curling run* (``rl.trainables``).
CURLING_ENVS = (ENV_NAME, MULTI_AGENT_ENV_NAME, LEAGUE_ENV_NAME)
DC_ENV_NAME = "curling_dc"
#: The Digital Curling envs: their ``env_config`` is a ``dc_env.DCEnvConfig`` and ``rllib
#: train`` builds them with ``algorithm_configs.dc_algorithm_config``.
DC_ENVS = (DC_ENV_NAME,)
