"""``rllib train``: train an RLlib algorithm with Tune, as Ray's former command did.

rllib train --run PPO --env curling [--config JSON] [--stop JSON] ...
rllib train -f tune_configs/ppo.yaml [--stop JSON]        (1.x form)
rllib train file tune_configs/ppo.yaml | my_config.py      (2.x form)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Train with Tune (its progress table is the progress output). With --env curling (or
curling_multi) the config starts from rllib_curling.rl.training.algorithm_config (the curling
network, sized for small machines); --config and a YAML's config are applied on top. Flags given
on the command line override what a -f file says.

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


def _experiments_from_args(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    path = args.file
    if args.file_cmd:
        if args.file_cmd[0] != "file" or len(args.file_cmd) != 2:
            raise SystemExit(
                f"rllib train: unexpected arguments {args.file_cmd}; "
                "did you mean `rllib train file FILE`?"
            )
        path = args.file_cmd[1]
    if path:
        experiments = load_experiments(Path(path))
    else:
        if not args.run:
            raise SystemExit("rllib train: give --run ALGO (and --env ENV), or -f FILE.yaml")
        experiments = {args.experiment_name or "default": {"run": args.run, "env": args.env}}
    for name, spec in experiments.items():
        _apply_overrides(spec, args)
        if not spec.get("run"):
            raise SystemExit(f"rllib train: experiment {name!r} has no `run` (algorithm)")
    return experiments


def load_experiments(path: Path) -> dict[str, dict[str, Any]]:
    """Read a YAML experiments file, or a Python file defining ``config`` (and maybe ``stop``)."""
    if not path.exists():
        raise SystemExit(f"rllib train: no such file: {path}")
    if path.suffix == ".py":
        namespace: dict[str, Any] = {"__file__": str(path), "__name__": "__rllib_config__"}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        config = namespace.get("config")
        if config is None:
            raise SystemExit(f"rllib train: {path} must define `config` (an AlgorithmConfig)")
        run = config.algo_class.__name__ if config.algo_class else None
        return {path.stem: {"run": run, "config": config, "stop": namespace.get("stop", {})}}
    import yaml

    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise SystemExit(
            f"rllib train: {path} must map experiment names to {{run, env, stop, config}}"
        )
    return data


def _apply_overrides(spec: dict[str, Any], args: argparse.Namespace) -> None:
    for key in ("run", "env", "stop", "storage_path", "num_samples", "restore"):
        value = getattr(args, key, None)
        if value is not None:
            spec[key] = value
    if args.config:
        if not isinstance(spec.get("config", {}), dict):
            spec["config"] = spec["config"].update_from_dict(args.config)
        else:
            spec["config"] = {**spec.get("config", {}), **args.config}
    ckpt = dict(spec.get("checkpoint_config") or {})
    for flag, key in (
        ("checkpoint_freq", "checkpoint_frequency"),
        ("checkpoint_at_end", "checkpoint_at_end"),
        ("keep_checkpoints_num", "num_to_keep"),
        ("checkpoint_score_attr", "checkpoint_score_attribute"),
    ):
        if getattr(args, flag) is not None:
            ckpt[key] = getattr(args, flag)
    spec["checkpoint_config"] = ckpt


def run_train(args: argparse.Namespace) -> int:
    experiments = _experiments_from_args(args)
    from rllib_curling.rl.tuning import init_ray, run_experiment

    init_ray(address=args.ray_address, num_cpus=args.ray_num_cpus, verbose=args.verbose)
    status = 0
    for name, spec in experiments.items():
        best = run_experiment(name, spec, resume=args.resume, verbose=args.verbose)
        if best is None:
            status = 1
            print(f"[{name}] no checkpoint was written", file=sys.stderr)
        else:
            print(f"[{name}] best checkpoint: {best}")
    return status
