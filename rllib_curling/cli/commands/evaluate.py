"""``rllib evaluate CHECKPOINT``: play a trained policy against built-in opponents and score it
(``DESCRIPTION`` is its help)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from typing import Any

from rllib_curling.cli import CommandError, UsageError
from rllib_curling.cli.evaluation import EvaluationResult, table
from rllib_curling.cli.options import (
    SearchOptions,
    add_ends,
    add_search_options,
    level_list,
    level_range,
    load_player,
    positive_int,
)
from rllib_curling.errors import ConnectionLostError
from rllib_curling.game import DEFAULT_ENDS
from rllib_curling.names import DEFAULT_MODULE_ID

#: Base seed of evaluation games: opponent level L plays with seed EVAL_SEED + L.
EVAL_SEED = 1_000_000

DESCRIPTION = """\
CHECKPOINT is a checkpoint, a trial or an experiment directory (results/curling-ppo: its best
trial's newest checkpoint, or the best evaluated one when the run evaluated), an agent folder,
or builtin for the agent in the package. For each opponent the policy (greedy) plays --episodes
games on a private server, the hammer alternating; the table gives won, drawn and lost games,
the win rate with draws counted half, and the mean score. The games' seeds (--seed) are never
ones training uses (training servers draw random seeds) nor ones curling rate uses.

A Digital Curling agent (trained on curling_dc) plays our DC levels instead, on DC's ice with
DC's noise and rules, in-process (no server), the teams alternating.

--watch shows the games on a web page (one URL for every opponent, printed first): live while
they are played, and afterwards every game of the evaluation, until Ctrl+C.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="play a checkpoint against built-in opponents",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("checkpoint", help="a checkpoint, a trial/experiment directory, an agent "
                   "folder, or builtin (the agent shipped in the package)")  # fmt: skip
    p.add_argument("--episodes", type=positive_int, default=20, help="games per opponent (20)")
    p.add_argument("--opponent", type=level_list("opponent"), default=(2,), metavar="L[,L...]",
                   help=f"built-in levels {level_range()} to play, e.g. 2 or 2,4,6,8 "
                   "(default 2)")  # fmt: skip
    add_ends(p)
    p.add_argument("--seed", type=int, default=EVAL_SEED,
                   help=f"base seed; level L uses seed + L (default {EVAL_SEED})")  # fmt: skip
    p.add_argument("--server", default="auto",
                   help="auto (default): a private server for each opponent, the hammer "
                   "alternating; or HOST:PORT, a server of yours (it seats the players: "
                   "curling server alternates the hammer with --games 0)")  # fmt: skip
    p.add_argument("--module-id", default=DEFAULT_MODULE_ID, help="module to load")
    add_search_options(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--watch", action="store_true",
                   help="show the games on a web page (its URL is printed); after the games "
                   "it shows all of them until Ctrl+C (needs --server auto)")  # fmt: skip
    # Accepted for compatibility with Ray's former command; the checkpoint says what it is.
    p.add_argument("--run", "--algo", dest="run", help=argparse.SUPPRESS)
    p.add_argument("--env", help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def evaluate(
    checkpoint: str,
    episodes: int,
    opponent: int = 2,
    ends: int = DEFAULT_ENDS,
    seed: int | None = None,
    server: str = "auto",
    module_id: str = DEFAULT_MODULE_ID,
    echo: bool = True,
    player: Any = None,
    watch: dict[str, Any] | None = None,
) -> EvaluationResult:
    """Play ``episodes`` games of the checkpoint's policy against built-in ``opponent``.

    ``watch``: env_config keys of the private server's web page (``http_port``, ``log_dir``).
    """
    from rllib_curling.agent.player import PolicyPlayer
    from rllib_curling.env.curling_env import CurlingEnv
    from rllib_curling.game import Result, result_of

    player = player or PolicyPlayer.from_checkpoint(checkpoint, module_id)
    env = CurlingEnv(
        {"opponent": opponent, "ends": ends, "seed": seed, "server": server,
         **player.env_config(), **(watch or {})}
    )  # fmt: skip
    result = EvaluationResult(opponent=opponent)
    try:
        for game in range(1, episodes + 1):
            obs, info = env.reset()
            first = info["setstate"][0] == 0  # we throw the end's first stone
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(player.act(obs, env.client))
                done = terminated or truncated
            mine, theirs = info["score"]
            outcome = Result(info["result"]) if info["result"] else result_of(mine, theirs)
            result.add(outcome, mine, theirs, hammer=not first)
            line = (
                f"level {opponent} game {game}: {outcome} {mine}-{theirs} "
                f"({'no hammer' if first else 'hammer'} in end 1) ends {info['end_scores']}"
            )
            result.lines.append(line)
            if echo:
                print(line, flush=True)
    finally:
        env.close()
    return result


def _first_cause(exc: ConnectionLostError) -> ConnectionLostError:
    """The innermost ``ConnectionLostError`` of a chain: what went wrong, not the env's words
    about reconnecting."""
    while isinstance(exc.__cause__, ConnectionLostError):
        exc = exc.__cause__
    return exc


def _hammer_note(result: EvaluationResult) -> str | None:
    """A note when a server of the user's gave the policy the same side in end 1 every game
    (a ``curling server`` with ``--games 1`` seats each new connection as Player1)."""
    if result.games < 2 or result.hammer_games not in (0, result.games):
        return None
    side = "with" if result.hammer_games else "without"
    return (f"note: the server seated the policy {side} the hammer in end 1 in all "
            f"{result.games} games against level {result.opponent}; `curling server --games 0` "
            "alternates it (the games of one connection swap seats)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from rllib_curling.rl.checkpoints import find_checkpoint

    try:
        path = find_checkpoint(args.checkpoint)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if _ice_of(str(path), args.module_id) == "fcv1":
        return run_dc(args, str(path))
    options = SearchOptions.from_args(args)
    player = load_player(str(path), args.module_id, options, seed=args.seed)
    if args.watch and args.server != "auto":
        raise UsageError(
            "--watch needs --server auto (a server of your own shows its games with "
            "`curling server --http-port PORT`)"
        )
    if not args.json:
        print(f"evaluating {path}", flush=True)
    with tempfile.TemporaryDirectory(prefix="rllib-evaluate-") as records:
        watch = _watch(records, sys.stderr if args.json else sys.stdout) if args.watch else None
        try:
            results = [
                evaluate(str(path), args.episodes, level, args.ends, args.seed + level,
                         args.server, args.module_id, echo=not args.json, player=player,
                         watch=watch)
                for level in args.opponent
            ]  # fmt: skip
        except ConnectionLostError as exc:
            raise CommandError(f"no games on {args.server}: {_first_cause(exc)}") from None
        if args.server != "auto":
            for note in filter(None, map(_hammer_note, results)):
                print(note, file=sys.stderr, flush=True)
        if args.json:
            print(
                json.dumps({"checkpoint": str(path), "opponents": [r.as_dict() for r in results]})
            )
        else:
            print(table(results))
        if watch is not None:
            return _show_all(records, watch["http_port"], sys.stderr if args.json else sys.stdout)
    return 0


def _ice_of(checkpoint: str, module_id: str) -> str:
    """The ice the agent of ``checkpoint`` plays on (``rl.checkpoints.ICES``): an agent folder's
    ``agent.json`` says it; an RLlib checkpoint's module is loaded to tell."""
    from rllib_curling.rl.checkpoints import agent_ice, agent_info, load_module, module_ice

    try:
        info = agent_info(checkpoint, module_id)
        if info is not None:
            return agent_ice(info)
        return module_ice(load_module(checkpoint, module_id))
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run_dc(args: argparse.Namespace, path: str) -> int:
    """A DC agent: its games against our DC levels on DC's ice (``evaluate_dc``)."""
    from rllib_curling.cli.commands.evaluate_dc import (
        check_dc_options,
        dc_value_weight,
        evaluate_dc,
        load_dc_agent_or_refuse,
    )

    check_dc_options(args)
    agent = load_dc_agent_or_refuse(path, args.module_id, dc_value_weight(args))
    if not args.json:
        print(f"evaluating {path} on Digital Curling's ice against our DC levels", flush=True)
    results = [
        evaluate_dc(agent, args.episodes, level, args.ends, args.seed + level, echo=not args.json)
        for level in args.opponent
    ]  # fmt: skip
    if args.json:
        print(json.dumps({"checkpoint": path, "ice": "fcv1",
                          "opponents": [r.as_dict() for r in results]}))  # fmt: skip
    else:
        print(table(results, "DC level"))
    return 0


def _watch(records: str, out: Any) -> dict[str, Any]:
    """env_config keys for watching: one free port for every private server, and records."""
    import socket

    with socket.socket() as sock:  # one port for every opponent's server: one URL
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    print(f"watch the games at http://127.0.0.1:{port}/", file=out, flush=True)
    return {"http_port": port, "log_dir": records}


def _show_all(records: str, port: int, out: Any) -> int:
    """Every game of the evaluation on the same page, until Ctrl+C."""
    from pathlib import Path

    from rllib_curling.errors import ConfigError, ServerStartError
    from rllib_curling.server.web import WebHandle
    from rllib_curling.server.web.replay import replay_hub

    try:
        files = sorted(Path(records).glob("*.jsonl"))  # the env's last game is cut short: left out
        hub = replay_hub(files, title="rllib evaluate", finished_only=True)
        web = WebHandle(hub, "127.0.0.1", port)
    except (ConfigError, ServerStartError) as exc:
        raise CommandError(str(exc)) from None
    web.serve_until_ctrl_c(f"all {len(hub.games())} games stay on {web.url} until Ctrl+C", out)
    return 0
