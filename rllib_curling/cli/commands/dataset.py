"""``curling dataset OUT``: teacher games as RLlib offline data (``rl.dataset``), for BC/MARWIL.

Plays ``--games`` games of a teacher level against ``--opponents`` in parallel Ray tasks and
writes one Parquet shard per ``--games-per-shard`` games into ``OUT``; run it again with the same
settings to resume (finished shards are kept). A line per shard goes to stderr. ``--ice dc``
plays on Digital Curling's ice instead (``cli.commands.dc_dataset``, ``offline.dc_dataset``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from rllib_curling.cli import UsageError
from rllib_curling.cli.commands.dataset_shared import (
    PER_ICE,
    init_ray,
    print_summary,
    progress_line,
)
from rllib_curling.cli.options import add_ends, positive_int
from rllib_curling.cli.players import Agent, Level, opponent_list, player_type

if TYPE_CHECKING:
    from rllib_curling.offline.dataset import DatasetConfig


def add_parser(sub: argparse._SubParsersAction) -> None:
    import dataclasses
    from types import SimpleNamespace

    from rllib_curling.offline.dataset import ACTIONS, LABELS, DatasetConfig

    # The defaults, without building a config (its checks import the env, so Gymnasium).
    d = SimpleNamespace(**{f.name: f.default for f in dataclasses.fields(DatasetConfig)})
    p = sub.add_parser(
        "dataset",
        help="write a teacher's games as RLlib offline data (BC, MARWIL)",
        description="Play a teacher (a level, or a checkpoint's agent with its search) against "
        "opponents (levels, itself, other agents; a pair of games each in "
        "turn, the hammer alternating) and write every teacher turn as a row of RLlib's "
        "columnar offline format (Parquet): observation, the nearest shot template by outcome, "
        "reward, next observation, plus the teacher's throw, every template's value (soft "
        "targets), the end's points and the game's result. Games run as Ray tasks (all cores, "
        "or a cluster with --address); an interrupted run resumes with the same command. "
        "Read it with RLlib's BCConfig().offline_data(input_=[OUT]).",
    )
    p.add_argument("out", metavar="OUT", help="the dataset folder (created; resumed if there)")
    p.add_argument(
        "--ice", choices=("platform", "dc"), default="platform",
        help="platform (default): the platform's ice and levels; dc: Digital Curling's ice "
        "(fcv1, DC's rules and noise): a DC search level (--teacher, default the strongest) "
        "searches the DC env's shot layout against DC levels (--opponents, default 4,5,self), "
        "10 ends, 4 games per shard; rows in the DC env's spaces, for BC on DC ice "
        "(docs/digital_curling.md)",
    )  # fmt: skip
    p.add_argument(
        "--teacher", type=_teacher, default=d.teacher,
        help=f"teacher: a level ({d.teacher}), or a checkpoint (builtin: the shipped agent) "
        "whose agent plays as it does by default, its search included (expert iteration)",
    )  # fmt: skip
    add_opponents(p, ",".join(map(str, d.opponents)))
    p.add_argument(
        "--action", choices=ACTIONS, default=d.action,
        help=f"the rows' actions ({d.action}): 'discrete' labels the shot template nearest the "
        "teacher's throw; 'shots' makes the teacher search the shot set (the env's "
        "action='shots') and keeps its judgement of every shot (docs/agent.md)",
    )  # fmt: skip
    p.add_argument(
        "--labels", choices=LABELS, default=d.labels,
        help=f"with --action shots, how far the teacher looks ({d.labels}): 'search' its whole "
        "search (noisy re-throws, the opponent's reply); 'screen' every legal shot thrown once "
        "without noise, the best played (about 5 times as many rows an hour)",
    )  # fmt: skip
    p.add_argument("--games", type=positive_int, default=d.games, help=f"games ({d.games})")
    add_ends(p, d.ends)
    p.add_argument(
        "--games-per-shard", type=positive_int, default=d.games_per_shard,
        help=f"games per Ray task and Parquet shard ({d.games_per_shard})",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=d.seed, help=f"seed of the games ({d.seed})")
    p.add_argument("--address", default=None, help="a Ray cluster to run on (default: a local Ray)")
    p.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    # None: not given (each ice has its own defaults); dataset_defaults: what --ice dc refuses
    p.set_defaults(func=run, dataset_defaults={a.dest: a.default for a in p._actions},
                   **dict.fromkeys(PER_ICE))  # fmt: skip


def add_opponents(p: argparse.ArgumentParser, default: str) -> None:
    """``--opponents``, the league the teacher plays (``players.opponent_list``); ``curling
    improve``'s too."""
    p.add_argument(
        "--opponents", type=opponent_list("opponent"), default=default,
        help=f"the opponents, a pair of games each in turn ({default}): levels; 'self', the "
        "teacher against itself (both seats labelled); agents (builtin, an agent folder or "
        "checkpoint, e.g. a past generation's OUT/agent; policy:CHECKPOINT: its network "
        "alone), each with its own search, unlabelled. E.g. self,builtin,6,8",
    )  # fmt: skip


def _teacher(text: str) -> int | str:
    """``--teacher``: a level (its number) or an agent with its search (its checkpoint)."""
    teacher = player_type(Level, Agent)(text)
    if isinstance(teacher, Level):
        return teacher.level
    assert isinstance(teacher, Agent)
    if not teacher.search:
        raise argparse.ArgumentTypeError(
            f"a teacher plays with its search: {teacher.checkpoint}, not {text}"
        )
    return teacher.checkpoint


def make_teacher_of(teacher: int | str, action: str = "discrete", labels: str = "search") -> Any:
    """``generate``'s ``make_teacher`` for a checkpoint teacher (its path made absolute), else
    None (a level teaches itself); loads the checkpoint now, so a bad one fails in one line.
    ``action="shots"``: the agent's search over the shot set as far as ``labels`` says
    (``agent.search.shot_teacher``)."""
    if not isinstance(teacher, str):
        return None
    import functools

    from rllib_curling.agent.player import agent_bot
    from rllib_curling.agent.search import shot_teacher

    make: Any = functools.partial(shot_teacher, labels=labels) if action == "shots" else agent_bot
    return _loaded(make, teacher, name=f"teacher {teacher}")


def make_opponents_of(config: DatasetConfig) -> dict[str, Any]:
    """``generate``'s ``make_opponents``: for each agent opponent (``players.opponent_list``),
    its agent as it plays by default (``agent_bot``; ``policy:CHECKPOINT``: its network alone),
    paths made absolute; loads each now, so a bad one fails in one line."""
    from rllib_curling.agent.player import agent_bot
    from rllib_curling.cli.players import Agent, parse_player

    makes = {}
    for name in config.agent_opponents:
        try:
            agent = parse_player(name, (Agent,))
        except ValueError as exc:
            raise ValueError(f"opponent {name!r}: {exc}") from None
        assert isinstance(agent, Agent)
        search = {} if agent.search else {"search": 0}
        makes[name] = _loaded(agent_bot, agent.checkpoint, name=f"opponent {name}", **search)
    return makes


def _loaded(make: Any, checkpoint: str, **kwargs: Any) -> Any:
    """``make`` of ``checkpoint`` (its path made absolute) as a picklable factory, after one
    load now: a bad checkpoint fails here, in one line."""
    import functools

    from rllib_curling.rl.checkpoints import find_checkpoint

    path = str(find_checkpoint(checkpoint))
    make(path, **kwargs)
    return functools.partial(make, path, **kwargs)


def run(args: argparse.Namespace) -> int:
    if args.ice == "dc":
        from rllib_curling.cli.commands.dc_dataset import run_dc

        return run_dc(args)
    from rllib_curling.errors import ConfigError
    from rllib_curling.offline.dataset import DatasetConfig, generate, pending_shards

    given = {k: getattr(args, k) for k in PER_ICE if getattr(args, k) is not None}
    try:
        config = DatasetConfig(
            **given, games=args.games, seed=args.seed,
            action=args.action, labels=args.labels,
        )  # fmt: skip
        make_teacher = make_teacher_of(config.teacher, config.action, config.labels)
        make_opponents = make_opponents_of(config)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    start = time.perf_counter()
    init_ray(args.address)
    try:
        from pathlib import Path

        todo = len(pending_shards(Path(args.out).expanduser(), config))
        teacher = config.teacher if isinstance(config.teacher, str) else f"level {config.teacher}"
        print(
            f"curling dataset: {teacher} against {', '.join(map(str, config.opponents))}, "
            f"{config.games} games in {config.shards} shards; {todo} to play",
            file=sys.stderr, flush=True,
        )  # fmt: skip
        summaries = generate(
            args.out, config, progress=progress_line(start, todo), make_teacher=make_teacher,
            make_opponents=make_opponents,
        )  # fmt: skip
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return print_summary(args.out, summaries, start, as_json=args.json)
