"""Self-play on the two-seat env: one shared PPO policy plays both seats of one server.

Run:   python examples/self_play.py [--iterations 5] [--two-policies]
Expect: per-iteration lines with the mean episode return of each module (in self-play with one
        shared policy the two seats' returns are mirror images). With --two-policies, "main"
        learns against a frozen "opponent" module.
"""

import argparse

from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

import rllib_curling.rl  # noqa: F401  (registers "curling_multi" with Ray)
from rllib_curling.rl.algorithm_configs import algorithm_config
from rllib_curling.rl.models import module_spec

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=5)
parser.add_argument("--two-policies", action="store_true")
args = parser.parse_args()

config = algorithm_config(
    "PPO", env="curling_multi", env_config={"action": "discrete"}, num_env_runners=0
).training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=4)

if args.two_policies:
    config.multi_agent(
        policies={"main", "opponent"},
        # Each game, "main" takes one seat at random and the frozen "opponent" the other.
        policy_mapping_fn=lambda agent_id, episode, **kw: (
            "main" if hash(episode.id_) % 2 == (agent_id == "player1") else "opponent"
        ),
        policies_to_train=["main"],
    )
    modules = {"main": module_spec("PPO"), "opponent": module_spec("PPO")}
else:
    config.multi_agent(
        policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared"
    )
    modules = {"shared": module_spec("PPO")}
config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))

algo = config.build_algo()
try:
    for i in range(args.iterations):
        result = algo.train()
        returns = result["env_runners"].get("module_episode_returns_mean", {})
        print(f"iteration {i + 1}: " + ", ".join(f"{k} {v:+.2f}" for k, v in returns.items()))
finally:
    algo.stop()
