"""``rllib train``: train an RLlib algorithm with Tune, as Ray's former command did.

rllib train --run PPO --env curling [--config JSON] [--stop JSON] ...
rllib train -f tune_configs/ppo.yaml [--stop JSON]        (1.x form)
rllib train file tune_configs/ppo.yaml | my_config.py      (2.x form)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rllib_curling.cli import UsageError

DESCRIPTION = """\
Train with Tune (its progress table is the progress output). With --env curling (or
curling_multi) the config starts from the package's (the curling network, sized for small
machines); --config and a YAML's config are applied on top. Flags given
on the command line override what a -f file says; --config's env_config is merged into the
file's key by key (nested mappings such as league and curriculum too).

  rllib train --run PPO --env curling [--config JSON] [--stop JSON] ...
  rllib train -f tune_configs/ppo.yaml [--stop JSON]        (1.x form)
  rllib train file tune_configs/ppo.yaml | my_config.py      (2.x form)
"""


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def _add_train_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--run", "--algo", "-r", "-a", dest="run", help="algorithm: PPO, DQN, IMPALA, APPO, ..."
    )
    p.add_argument(
        "--env", "-e", help="registered env name (curling, curling_multi, CartPole-v1, ...)"
    )
    p.add_argument("--config", "-c", type=_json, help="JSON object of algorithm config keys")
    p.add_argument(
        "--stop", "-s", type=_json, help='JSON stop criteria, e.g. {"training_iteration": 10}'
    )
    p.add_argument("--checkpoint-freq", type=int, help="checkpoint every N iterations (default 0)")
    p.add_argument(
        "--checkpoint-at-end",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="checkpoint when the trial ends (default on)",
    )
    p.add_argument(
        "--keep-checkpoints-num", type=int, help="keep only the N best/newest checkpoints"
    )
    p.add_argument("--checkpoint-score-attr", help="metric that ranks checkpoints to keep")
    p.add_argument(
        "--storage-path",
        "--local-dir",
        dest="storage_path",
        help="results directory (default ~/ray_results)",
    )
    p.add_argument(
        "--experiment-name", "-n", help="experiment name (default: the YAML key, or 'default')"
    )
    p.add_argument("--num-samples", type=int, help="trials per config (grid points are multiplied)")
    p.add_argument("--restore", help="checkpoint to start the trial(s) from")
    p.add_argument(
        "--start-from",
        help="checkpoint whose policy weights the trial(s) start with (e.g. a BC run's for PPO)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="resume the experiment under --storage-path/--experiment-name",
    )
    p.add_argument("--ray-address", help="join this Ray cluster (e.g. auto, or ray://head:10001)")
    p.add_argument("--ray-num-cpus", type=int, help="CPUs of the local Ray instance")
    p.add_argument("--framework", choices=["torch"], default=None, help="only torch is supported")
    p.add_argument("-v", dest="verbose", action="count", default=0, help="more output (-v, -vv)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    train = sub.add_parser(
        "train",
        help="train with Tune",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    train.add_argument(
        "-f",
        "--config-file",
        dest="file",
        help="YAML experiments file ({name: {run, env, stop, config}})",
    )
    _add_train_flags(train)
    train.add_argument(
        "file_cmd",
        nargs="*",
        metavar="file FILE",
        help="2.x form: `rllib train file FILE.yaml|FILE.py`",
    )
    train.set_defaults(func=run_train)


def _experiments_from_args(args: argparse.Namespace) -> list[Any]:
    from rllib_curling.errors import ConfigError
    from rllib_curling.rl.experiments import ExperimentSpec, read_experiment_file

    path = args.file
    if args.file_cmd:
        if args.file_cmd[0] != "file" or len(args.file_cmd) != 2:
            raise ConfigError(
                f"unexpected arguments {args.file_cmd}; did you mean `rllib train file FILE`?"
            )
        path = args.file_cmd[1]
    if path:
        experiments = read_experiment_file(path)
        if args.experiment_name:
            if len(experiments) > 1:
                raise ConfigError(
                    f"{path} holds {len(experiments)} experiments; --experiment-name names one"
                )
            experiments[0].name = args.experiment_name
    else:
        if not args.run:
            raise ConfigError("give --run ALGO (and --env ENV), or -f FILE.yaml")
        experiments = [ExperimentSpec(name=args.experiment_name or "default")]
    for spec in experiments:
        _apply_overrides(spec, args)
    return experiments


def _apply_overrides(spec: Any, args: argparse.Namespace) -> None:
    """Flags given on the command line win over what the file says."""
    for key in ("run", "env", "stop", "storage_path", "num_samples", "restore", "start_from"):
        value = getattr(args, key, None)
        if value is not None:
            setattr(spec, key, value)
    if args.config:
        if not isinstance(spec.config, dict):
            base = getattr(spec.config, "env_config", None)
            spec.config = spec.config.update_from_dict(_with_env_config(args.config, base))
        else:
            override = _with_env_config(args.config, spec.config.get("env_config"))
            spec.config = {**spec.config, **override}
    for flag, key in (
        ("checkpoint_freq", "checkpoint_frequency"),
        ("checkpoint_at_end", "checkpoint_at_end"),
        ("keep_checkpoints_num", "num_to_keep"),
        ("checkpoint_score_attr", "checkpoint_score_attribute"),
    ):
        if getattr(args, flag) is not None:
            spec.checkpoint_config[key] = getattr(args, flag)


def _with_env_config(override: dict[str, Any], base: Any) -> dict[str, Any]:
    """``override`` with its ``env_config`` merged into ``base`` (the file's) key by key,
    nested mappings too (``league``, ``curriculum``): ``--config '{"env_config": {"league":
    {"start_from": "results/curling-ppo"}}}'`` keeps every other key the file sets."""
    env = override.get("env_config")
    if not isinstance(env, dict) or not isinstance(base, dict):
        return override
    return {**override, "env_config": _deep_merge(base, env)}


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        both = isinstance(old, dict) and isinstance(value, dict)
        out[key] = _deep_merge(old, value) if both else value  # type: ignore[arg-type]
    return out


def run_train(args: argparse.Namespace) -> int:
    from rllib_curling.errors import ConfigError

    try:
        experiments = _experiments_from_args(args)
        from rllib_curling.rl.tuning import build_config, init_ray, quiet, run_experiment

        quiet(args.verbose)
        for spec in experiments:  # fail fast, before Ray starts: file, algorithm, env, keys
            build_config(spec)
        import ray

        started = not ray.is_initialized()  # ours to stop: nothing is left running after us
        init_ray(address=args.ray_address, num_cpus=args.ray_num_cpus, verbose=args.verbose)
        try:
            status = 0
            for spec in experiments:
                best = run_experiment(spec, resume=args.resume, verbose=args.verbose)
                if best is None:
                    status = 1
                    print(f"[{spec.name}] no checkpoint was written", file=sys.stderr)
                else:
                    print(f"[{spec.name}] best checkpoint: {best}")
            return status
        finally:
            if started:
                ray.shutdown()
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
