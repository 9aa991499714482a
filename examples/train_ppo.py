"""Train PPO with the curling network against built-in level 2, with Tune, checkpoints and the best
checkpoint printed at the end.

Run:   python examples/train_ppo.py [--iterations 20] [--storage-path ./results]
Expect: Tune's progress table every iteration (episode return = our points minus theirs per game),
        checkpoints every 5 iterations, then "best checkpoint: <path>". Evaluate it with
        `rllib evaluate <path> --episodes 100`, or play it on a server with
        `curling play --checkpoint <path> -p 7788`. On 2 cores an iteration takes about a minute.
"""

import argparse
import os

from ray import tune

import rllib_curling.rl  # noqa: F401  (registers the env and the network with Ray)
from rllib_curling.rl.algorithm_configs import algorithm_config

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=20)
parser.add_argument("--storage-path", default="./results")
args = parser.parse_args()

config = algorithm_config(
    "PPO",
    env_config={"opponent": 2, "ends": 4, "action": "discrete"},
    num_env_runners=1,
    num_envs_per_env_runner=2,
).training(train_batch_size_per_learner=1024, minibatch_size=128, num_epochs=6, lr=3.0e-4)

tuner = tune.Tuner(
    "PPO",
    param_space=config,
    run_config=tune.RunConfig(
        name="train_ppo",
        storage_path=os.path.abspath(args.storage_path),
        stop={"training_iteration": args.iterations},
        checkpoint_config=tune.CheckpointConfig(
            checkpoint_frequency=5, checkpoint_at_end=True, num_to_keep=3
        ),
    ),
)
results = tuner.fit()
best = results.get_best_result(metric="env_runners/episode_return_mean", mode="max")
print("best checkpoint:", best.checkpoint.path)
