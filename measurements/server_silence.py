"""How long a healthy private server stays silent: the figure ``server_timeout`` must exceed.

    python measurements/server_silence.py [--level 8] [--games 3] [--seed 0]

Plays ``--games`` 4-end games of random continuous actions through ``CurlingEnv`` against the
built-in ``--level`` on its private server, and times every blocking read of the env's client:
the longest one is the longest silence of the server (a bot's decision plus the engine; the bots
warm up before the server announces its ports). Also prints reset and step wall times. Run it
alone and next to a second copy to see the effect of load (figures in RESULTS.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from rllib_curling.client import CurlingClient
from rllib_curling.env import CurlingEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=8, help="built-in opponent (8)")
    parser.add_argument("--games", type=int, default=3, help="4-end games (3)")
    parser.add_argument("--seed", type=int, default=0, help="seed (0)")
    args = parser.parse_args()

    silences: list[float] = []
    receive = CurlingClient._receive

    def timed_receive(client: CurlingClient, timeout: float) -> bool:
        start = time.monotonic()
        try:
            return receive(client, timeout)
        finally:
            if timeout > 0:  # a blocking read: it lasts as long as the server is silent
                silences.append(time.monotonic() - start)

    CurlingClient._receive = timed_receive  # type: ignore[method-assign]
    env = CurlingEnv({"opponent": args.level, "ends": 4})
    rng = np.random.default_rng(args.seed)
    resets, steps = [], []
    try:
        for game in range(args.games):
            start = time.monotonic()
            env.reset(seed=args.seed if game == 0 else None)
            resets.append(time.monotonic() - start)
            done = False
            while not done:
                start = time.monotonic()
                _, _, terminated, truncated, _ = env.step(rng.uniform(-1, 1, 3))
                steps.append(time.monotonic() - start)
                done = terminated or truncated
    finally:
        env.close()
        CurlingClient._receive = receive  # type: ignore[method-assign]
    print(f"level {args.level}: {args.games} games, {len(steps)} steps")
    first = "first includes the server's start and warm-up"
    print(f"reset s ({first}): {[round(x, 2) for x in resets]}")
    print(
        f"step s: median {statistics.median(steps):.3f}, "
        f"p90 {np.percentile(steps, 90):.3f}, max {max(steps):.3f}"
    )
    print(f"longest silence of the server: {max(silences):.3f} s")


if __name__ == "__main__":
    main()
