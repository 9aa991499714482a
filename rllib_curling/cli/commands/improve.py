"""``curling improve AGENT OUT``: one generation of expert iteration (``DESCRIPTION`` is its
help; the retraining is BC with ``CurlingBCLearner``)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rllib_curling.agent.policy import SearchDefaults
from rllib_curling.cli import UsageError
from rllib_curling.cli.options import add_ends, level_list, positive_int

#: The experiment's name under OUT/results.
EXPERIMENT = "improve"
#: The new agent's search settings when AGENT has none (a checkpoint): the shipped agent's.
FALLBACK_SEARCH = SearchDefaults(k=8, value_weight=0.6)

DESCRIPTION = """\
The agent (a checkpoint or an agent folder; builtin: the one in the package) plays with its
search as the teacher, its games become offline data, the network retrains on them from the
agent's own weights (behaviour cloning with soft targets, and the value head on the games'
results), and the result is exported as a new agent folder with the same search settings:

    OUT/data/          curling dataset OUT/data --teacher AGENT --games N
    OUT/results/       rllib train (BC on OUT/data, starting from AGENT, N iterations)
    OUT/agent/         curling export OUT/results/improve OUT/agent (AGENT's search settings)

Each stage is skipped when its output is there, so an interrupted generation resumes with the
same command; the next generation is curling improve OUT/agent OUT2.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "improve",
        help="one generation of expert iteration: the agent's searched games -> BC -> an agent",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("agent", metavar="AGENT", help="the teacher: a checkpoint, an agent folder "
                   "or builtin")  # fmt: skip
    p.add_argument("out", metavar="OUT", help="the generation's folder (created; resumed)")
    p.add_argument("--games", type=positive_int, default=400, help="teacher games (400)")
    p.add_argument("--opponents", type=level_list("opponent"), default="4,6,8",
                   help="opponent levels, in turn (4,6,8)")  # fmt: skip
    add_ends(p)
    p.add_argument("--seed", type=int, default=1, help="seed of the games (1; the shipped "
                   "agent's data used 0)")  # fmt: skip
    p.add_argument("--iterations", type=positive_int, default=100,
                   help="BC iterations of 20 batches of 1024 positions (100)")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rllib_curling.cli.commands.dataset import init_ray, make_teacher_of, progress_line
    from rllib_curling.errors import ConfigError
    from rllib_curling.offline.dataset import DatasetConfig, generate, pending_shards
    from rllib_curling.rl.checkpoints import agent_info, export_agent, find_checkpoint

    out = Path(args.out).expanduser().resolve()
    try:
        teacher = str(find_checkpoint(args.agent))
        search = SearchDefaults.of(agent_info(teacher)) or FALLBACK_SEARCH
        config = DatasetConfig(
            teacher=args.agent, opponents=args.opponents, games=args.games,
            ends=args.ends, seed=args.seed,
        )  # fmt: skip
        make_teacher = make_teacher_of(args.agent)  # loads it now: a bad agent fails in one line
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    import ray

    from rllib_curling.rl.tuning import quiet

    start = time.perf_counter()
    started = not ray.is_initialized()  # ours to stop: nothing is left running after us
    init_ray(None)
    quiet(0)
    try:
        data = out / "data"
        todo = len(pending_shards(data, config))
        _say(f"1/3 data: {args.agent} (its search) against levels {_levels_text(args.opponents)}, "
             f"{config.games} games; {todo} shards to play")  # fmt: skip
        generate(data, config, progress=progress_line(start, todo), make_teacher=make_teacher)
        results = out / "results" / EXPERIMENT
        if not list(results.glob("*/checkpoint_*")):
            _say(f"2/3 network: BC from {args.agent}'s weights, {args.iterations} iterations")
            _train(data, out / "results", teacher, args.iterations)
        else:
            _say(f"2/3 network: trained already ({results})")
        card = _card(args, teacher, search)
        agent = export_agent(results, out / "agent", search=search.as_dict(), card=card)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if started:
            ray.shutdown()
    _say(f"3/3 agent: {agent} ({(time.perf_counter() - start) / 60:.1f} min); next: "
         f"rllib evaluate {agent} --opponent 6,8 --episodes 200")  # fmt: skip
    return 0


def _train(data: Path, storage: Path, start_from: str, iterations: int) -> None:
    """BC on ``data`` from ``start_from``'s weights (``tune_configs/bc.yaml``'s settings)."""
    from rllib_curling.rl.experiments import ExperimentSpec
    from rllib_curling.rl.tuning import run_experiment

    spec = ExperimentSpec(
        name=EXPERIMENT, run="BC", env="curling",
        stop={"training_iteration": iterations},
        config={"env_config": {"ends": 4, "action": "discrete"}, "input_": str(data)},
        checkpoint_config={"checkpoint_at_end": True, "num_to_keep": 1},
        storage_path=str(storage), start_from=start_from, source="curling improve",
    )  # fmt: skip
    if run_experiment(spec) is None:
        raise RuntimeError("BC wrote no checkpoint")


def _card(args: argparse.Namespace, teacher: str, search: SearchDefaults) -> str:
    return (
        "# An agent made by `curling improve`\n\n"
        f"One generation of expert iteration from `{args.agent}` ({teacher}):\n\n"
        f"- data: `curling dataset OUT/data --teacher {args.agent} --games {args.games} "
        f"--opponents {_levels_text(args.opponents)} --ends {args.ends} --seed {args.seed}` "
        "(its search)\n"
        f"- network: BC (`CurlingBCLearner`), {args.iterations} iterations, from its weights\n"
        f"- search: {search.as_dict()}\n\n"
        "Measure it: `rllib evaluate OUT/agent --opponent 6,8 --episodes 200`.\n"
    )


def _levels_text(levels: tuple[int, ...]) -> str:
    """Levels as ``--opponents`` takes them: ``4,6,8``."""
    return ",".join(map(str, levels))


def _say(text: str) -> None:
    print(f"curling improve: {text}", file=sys.stderr, flush=True)
