"""``curling bench rllib``: env steps sampled per second by PPO's env runners, and memory per env.

Rows: 1 env runner with 1, 2, 4 and 8 envs, then 2 runners with the best env count of the 1-runner
rows. Each row builds PPO as ``algorithm_config`` does (the curling network; the envs of a runner
are one ``CurlingVectorEnv`` on one private server process, level-2 opponent, discrete actions);
each runner samples ``--steps`` env steps per round, the runners at the same time as in training.
A row's figure is total steps / wall time, median of ``--repeats`` rounds after a warm-up round.
``--single`` adds the 1-env row of the old path (``gym_env_vectorize_mode="sync"``, one
``CurlingEnv`` with its own server) for comparison.

Memory per env: the RSS of every curling server process the runners started, plus what the envs
add to their runner (measured by opening as many more envs in it and playing 20 steps), over the
env count. On 2 cores each runner also shares the CPU with its server process and the driver.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import time
from typing import Any

from rllib_curling.benchmarks.processes import rss_bytes, server_children

ENV_COUNTS = (1, 2, 4, 8)
MB = 1 << 20


def _row(runners: int, envs: int, steps: int, repeats: int, mode: str) -> dict[str, Any]:

    from rllib_curling.rl.algorithm_configs import algorithm_config

    config = algorithm_config(
        "PPO",
        env_config={"opponent": 2, "action": "discrete"},
        num_env_runners=runners,
        num_envs_per_env_runner=envs,
    )
    config.env_runners(gym_env_vectorize_mode=mode)
    algo = config.build_algo()
    try:
        group = algo.env_runner_group
        assert group is not None  # built with remote env runners

        def sample(runner: Any) -> int:
            episodes = runner.sample(num_timesteps=steps * envs)
            return sum(len(e) for e in episodes)

        def memory(runner: Any) -> tuple[int, int]:
            """(servers' RSS, what as many more envs add to the runner's RSS), bytes."""
            from rllib_curling.env.vector import CurlingVectorEnv

            me = os.getpid()
            servers = sum(rss_bytes(pid) for pid in server_children(me))
            before = rss_bytes(me)
            extra = CurlingVectorEnv(envs, {"opponent": 2, "action": "discrete"})
            try:
                extra.reset()
                for _ in range(20):
                    extra.step(extra.action_space.sample())
                return servers, rss_bytes(me) - before
            finally:
                extra.close()

        group.foreach_env_runner(sample, local_env_runner=False)  # warm-up
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            counts = group.foreach_env_runner(sample, local_env_runner=False)
            rates.append(sum(counts) / (time.perf_counter() - start))
        usage = group.foreach_env_runner(memory, local_env_runner=False)
        servers = sum(u[0] for u in usage) / (runners * envs)
        in_runner = sum(u[1] for u in usage) / (runners * envs)
        return {
            "runners": runners, "envs_per_runner": envs, "mode": mode,
            "steps_per_s": statistics.median(rates),
            "server_mb_per_env": servers / MB, "runner_mb_per_env": max(in_runner, 0) / MB,
            "mb_per_env": (servers + max(in_runner, 0)) / MB,
        }  # fmt: skip
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="curling bench rllib", description=__doc__)
    parser.add_argument("--steps", type=int, default=250, help="env steps per env per round")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (3)")
    parser.add_argument(
        "--envs", default=",".join(map(str, ENV_COUNTS)), help="env counts of the 1-runner rows"
    )
    parser.add_argument("--single", action="store_true", help="add the old 1-env sync row")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    import ray

    from rllib_curling.rl.algorithm_configs import VECTOR_MODE
    from rllib_curling.rl.registration import register

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        register()
        plan = [(1, n, VECTOR_MODE) for n in (int(x) for x in args.envs.split(","))]
        if args.single:
            plan.insert(0, (1, 1, "sync"))
        rows = []
        for runners, envs, mode in plan:
            rows.append(_row(runners, envs, args.steps, args.repeats, mode))
            if not args.json:
                _print(rows[-1])
        best = max((r for r in rows if r["mode"] == VECTOR_MODE), key=lambda r: r["steps_per_s"])
        rows.append(_row(2, best["envs_per_runner"], args.steps, args.repeats, VECTOR_MODE))
        if not args.json:
            _print(rows[-1])
    finally:
        ray.shutdown()
    ones = [r["steps_per_s"] for r in rows if r["runners"] == 1 and r["envs_per_runner"] == 1]
    result = {
        "rows": rows,
        # None when --envs has no 1-env row (and no --single) to compare with.
        "best_1_runner_over_1_env": best["steps_per_s"] / ones[0] if ones and ones[0] else None,
        "runners_2_steps_per_s": rows[-1]["steps_per_s"],
    }
    if args.json:
        print(json.dumps(result))
    else:
        ratio = result["best_1_runner_over_1_env"]
        shown = "no 1-env row" if ratio is None else f"{ratio:.2f}x"
        print(
            f"1 runner, best ({best['envs_per_runner']} envs) / 1 env: {shown}; 2 runners: "
            f"{result['runners_2_steps_per_s']:.0f} env steps/s"
        )
    return 0


def _print(row: dict[str, Any]) -> None:
    print(
        f"PPO env runners: {row['runners']}  envs/runner: {row['envs_per_runner']:>2} "
        f"({row['mode']:<18}) sampled env steps/s: {row['steps_per_s']:6.0f}  "
        f"memory/env: {row['mb_per_env']:5.0f} MB (server {row['server_mb_per_env']:.0f} + "
        f"in runner {row['runner_mb_per_env']:.0f})",
        flush=True,
    )
