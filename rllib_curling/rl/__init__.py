"""The RLlib layer: the curling network, ready-made algorithm configs, Tune glue, callbacks, the
policy player. Importing it registers the env, the network and the trainables with Ray
(``rllib_curling.rl.registration``), and drops a warning Ray logs about its own code
(``rllib_curling.rl.ray_warnings``).

| module            | what it holds                                                        |
|-------------------|----------------------------------------------------------------------|
| ``network``       | ``CurlingEncoder`` and the model config (``DEFAULT_MODEL_CONFIG``)    |
| ``models``        | the RLModules of the new API stack (PPO, IMPALA, APPO, DQN)          |
| ``model_v2``      | the same network as an old-API-stack ModelV2 (``ModelCatalog``)      |
| ``training``      | ``algorithm_config(algo)``, ``register_trainables()``                 |
| ``checkpoints``   | finding a checkpoint in a run directory, ``load_policy``             |
| ``tuning``        | building a trial's config and running a Tune experiment              |
| ``callbacks``     | ``CurlingMetrics``: win rate and points in the results               |
| ``policy_player`` | a trained policy as a player on any server                           |
| ``registration``  | what is registered with Ray, and ``register()``                      |
| ``ray_warnings``  | the filter of Ray's warnings about its own internals                 |
"""

from __future__ import annotations

from rllib_curling.rl.ray_warnings import quiet_ray_internals
from rllib_curling.rl.registration import register

quiet_ray_internals()
register()
