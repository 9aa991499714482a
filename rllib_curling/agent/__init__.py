"""Playing a trained agent: loading its network, its search, and the players that play it.

Above ``rl`` (which trains networks and finds and writes checkpoints) and below ``benchmarks``
and ``cli`` (``curling play``, ``rllib evaluate``, ``curling server --agent``, ``curling
dataset --teacher``, ``curling rate``), which use it.

| module       | what it holds                                                            |
|--------------|--------------------------------------------------------------------------|
| ``policy``   | ``load_policy``: a checkpoint or agent folder as a ``LoadedPolicy`` (its |
|              | action, proposals, probabilities, values; its ``SearchDefaults``)        |
| ``search``   | the agent's search (``AGENT_SPEC``, ``PolicySearch``, ``AgentSearch``,   |
|              | ``module_leaf_value``) and ``AgentBot``: the agent as an in-process bot  |
| ``guided``   | the search a shot network guides (``GuidedSearch``: noisy successive     |
|              | halving over its prior, its end-score head through the win table)        |
| ``player``   | ``PolicyPlayer``: a policy as a client's player on any server,           |
|              | ``agent_bot``, ``play_session``                                          |
| ``dc_player``| ``AgentDCBot``, ``load_dc_agent``: a DC agent (``"ice": "fcv1"``) as a  |
|              | DC bot (its search, or the network alone), for ``dc_client`` and         |
|              | ``dc_bots.matches``                                                      |
| ``dc_search``| ``DCValueSearch``: DC level 8's search judging by the chance to win     |
|              | blended with a DC network's (its end-score head through DC's win table)  |
| ``gate``     | a generation's gate: the new agent against the old, head to head in Ray  |
|              | tasks, resumable; kept at ``GATE_SCORE`` (``curling improve``)           |
| ``end_score_head`` | an agent's end-score head trained alone on a dataset's positions   |
|              | (``curling improve --train end-score``)                                  |

Importing ``rllib_curling.agent`` or ``rllib_curling.agent.policy`` imports neither Ray nor
torch: ``load_policy`` does, when it loads (so ``curling server`` starts fast, ``--agent`` or
not, until it loads an agent).
"""
