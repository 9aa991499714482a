"""Env steps per second of the DC env (``rllib_curling.dc_env``) over whole games against a DC
level, random legal actions, both action modes.

    python measurements/dc_env_speed.py [--level 3] [--games 6] [--ends 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rllib_curling.dc_env import DCCurlingEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--ends", type=int, default=10)
    args = parser.parse_args()
    for action in ("shots", "throw"):
        env = DCCurlingEnv(opponent=args.level, ends=args.ends, action=action)
        env.action_space.seed(0)
        rng = np.random.default_rng(0)
        env.reset(seed=0)  # warm-up: fcv1's kernels and the aiming tables
        env.step(env.action_space.sample() if action == "throw" else env.layout.throw_away)
        steps, start = 0, time.perf_counter()
        for game in range(args.games):
            obs, _ = env.reset(seed=game)
            done = False
            while not done:
                if action == "shots":
                    a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                else:
                    a = env.action_space.sample()
                obs, _, terminated, truncated, _ = env.step(a)
                steps += 1
                done = terminated or truncated
        rate = steps / (time.perf_counter() - start)
        print(
            f"{action}: {steps} steps, {args.games} games of {args.ends} ends against DC level "
            f"{args.level}: {rate:.0f} env steps/s"
        )


if __name__ == "__main__":
    main()
