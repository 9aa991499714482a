"""Whole games of ``CurlingEnv`` on its own private server (``server: auto``), as RLlib runs it.

The Wine job runs it with Windows' Python: the env starts ``curling server`` as a child process,
plays two 1-end games against level 2 with both action spaces, and closes; exits 1 if an episode
did not terminate or the private server is still running after ``close()``.
"""

from __future__ import annotations

import sys

import gymnasium as gym
import psutil

import rllib_curling  # noqa: F401  (registers rllib_curling:Curling-v0)


def play(action: str, seed: int) -> int:
    env = gym.make("rllib_curling:Curling-v0", opponent=2, ends=1, action=action)
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    pid = env.unwrapped._server.process.pid
    steps, total, terminated, truncated = 0, 0.0, False, False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        steps, total = steps + 1, total + float(reward)
    env.close()
    alive = psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    print(
        f"{action}: private server pid {pid}, {steps} steps, return {total:+.1f}, "
        f"terminated {terminated}, server running after close: {alive}"
    )
    return 0 if terminated and not alive else 1


if __name__ == "__main__":
    sys.exit(max(play("discrete", 0), play("continuous", 1)))
