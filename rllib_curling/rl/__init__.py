"""The RLlib layer: the curling network, ready-made algorithm configs, Tune glue, callbacks,
checkpoints (playing a trained agent is the layer above: ``rllib_curling.agent``). Importing it
registers the env, the network and the trainables with Ray (``rllib_curling.rl.registration``),
and drops a warning Ray logs about its own code (``rllib_curling.rl.ray_warnings``).

| module                | what it holds                                                      |
|-----------------------|--------------------------------------------------------------------|
| ``network``           | ``CurlingEncoder`` and the model config (``DEFAULT_MODEL_CONFIG``) |
| ``models``            | the RLModules of the new API stack (PPO, IMPALA, APPO, DQN)        |
| ``model_v2``          | the same network as an old-API-stack ModelV2 (``ModelCatalog``)    |
| ``env_names``         | the names of the curling envs in Tune (``ENV_NAME``, ...)          |
| ``trainables``        | the curling-aware algorithm classes (``CurlingPPO``, ...,          |
|                       | ``TRAINABLES``, ``ALGORITHMS``) and ``curling_defaults``           |
| ``algorithm_configs`` | ``algorithm_config(algo)``: ready-made configs sized for 2 cores   |
| ``learners``          | ``CurlingBCLearner``: cloning with soft targets and a value head   |
| ``shot_network``      | ``ShotNet``: the network over ``action="shots"`` (set + ice map)   |
| ``shot_models``       | its RLModules (actor-critic, APPO, DQN) masking illegal shots      |
| ``shot_learner``      | ``CurlingShotLearner``: distilling a search into the shot network  |
| ``dc_models``         | ``DCMaskedActorCritic``: the DC env's masked MLP, value and        |
|                       | end-score heads (``EndScoreAPI``)                                  |
| ``dc_learner``        | ``DCBCLearner``: ``CurlingBCLearner`` with DC's mirror             |
| ``callbacks``         | ``CurlingMetrics``: win rate, points, speed, the curriculum        |
| ``league``            | league self-play: sampling and snapshot rules, ``LeagueCallback``  |
| ``env_runners``       | ``CurlingMultiAgentEnvRunner``: multi-agent games stepped together |
| ``experiments``       | ``ExperimentSpec``: ``rllib train``'s typed experiment and checks  |
| ``tuning``            | building a trial's config and running a Tune experiment            |
| ``checkpoints``       | finding a checkpoint, loading its module, ``export_agent``         |
| ``registration``      | what is registered with Ray, and ``register()``                    |
| ``ray_warnings``      | the filter of Ray's warnings about its own internals               |
"""

from __future__ import annotations

from rllib_curling.rl.ray_warnings import quiet_ray_internals
from rllib_curling.rl.registration import register

quiet_ray_internals()
register()
