"""A Tune sweep over PPO's learning rate and entropy bonus on the curling env, with tune.run.

Run:   python examples/tune_sweep.py [--iterations 5]
Expect: four trials (2 learning rates x 2 entropy bonuses); each trial plays in its own process
        (num_env_runners=0, its own private server), so two trials run at once on 2 CPUs. At the
        end the best trial's config and checkpoint are printed.
"""

import argparse
import os

from ray import tune

import rllib_curling.rl  # noqa: F401  (registers the env and the network with Ray)
from rllib_curling.rl.algorithm_configs import algorithm_config

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=5)
parser.add_argument("--storage-path", default="./results")
args = parser.parse_args()

config = algorithm_config(
    "PPO", env_config={"opponent": 2, "action": "discrete"}, num_env_runners=0
).training(
    train_batch_size_per_learner=512,
    minibatch_size=128,
    num_epochs=4,
    lr=tune.grid_search([1.0e-4, 5.0e-4]),
    entropy_coeff=tune.grid_search([0.0, 1.0e-2]),
)

analysis = tune.run(
    "PPO",  # a string works: importing rllib_curling registers the trainables
    config=config.to_dict(),
    stop={"training_iteration": args.iterations},
    storage_path=os.path.abspath(args.storage_path),
    name="ppo_sweep",
    checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
    metric="env_runners/episode_return_mean",
    mode="max",
)
print(
    "best config: lr", analysis.best_config["lr"], "entropy", analysis.best_config["entropy_coeff"]
)
print("best checkpoint:", analysis.best_checkpoint.path)
