"""``curling bench rllib``: env steps sampled per second by PPO's env runners, with 1 and 2 runners.

Each runner samples ``--steps`` env steps with the curling network (its own private curling
server per env, level-2 opponent); the runners sample at the same time, as in training. The
figure is total steps / wall time of the slowest runner, median of ``--repeats`` rounds after a
warm-up round; the ratio 2 runners / 1 runner shows how sampling scales (on 2 cores each runner
also shares its core with its server process and the driver).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time


def _sampled_steps_per_s(runners: int, steps: int, repeats: int) -> float:
    import ray

    from rllib_curling.rl.training import algorithm_config

    config = algorithm_config(
        "PPO", env_config={"opponent": 2, "action": "discrete"}, num_env_runners=runners
    )
    algo = config.build_algo()
    try:
        group = algo.env_runner_group

        def sample(runner: object) -> int:
            episodes = runner.sample(num_timesteps=steps)  # type: ignore[attr-defined]
            return sum(len(e) for e in episodes)

        group.foreach_env_runner(sample, local_env_runner=False)  # warm-up
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            counts = group.foreach_env_runner(sample, local_env_runner=False)
            rates.append(sum(counts) / (time.perf_counter() - start))
        return statistics.median(rates)
    finally:
        algo.stop()
        ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="curling bench rllib", description=__doc__)
    parser.add_argument("--steps", type=int, default=1000, help="steps per runner per round")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    import ray

    import rllib_curling  # noqa: F401  (registers the env)

    result = {}
    for runners in (1, 2):
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="error")
        result[f"runners_{runners}_steps_per_s"] = _sampled_steps_per_s(
            runners, args.steps, args.repeats
        )
    result["scaling_2_over_1"] = result["runners_2_steps_per_s"] / result["runners_1_steps_per_s"]
    if args.json:
        print(json.dumps(result))
    else:
        for runners in (1, 2):
            rate = result[f"runners_{runners}_steps_per_s"]
            print(f"PPO env runners: {runners}  sampled env steps/s: {rate:.0f}")
        print(f"scaling 2 runners / 1 runner: {result['scaling_2_over_1']:.2f}")
    return 0
