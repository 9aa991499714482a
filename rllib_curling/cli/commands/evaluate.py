"""``rllib evaluate CHECKPOINT``: play a trained policy against a built-in opponent and score it."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field


@dataclass
class EvaluationResult:
    """Games from the policy's view: wins, draws, losses and points."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: int = 0
    points_against: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def summary(self) -> str:
        n = max(self.games, 1)
        return (
            f"{self.games} games: {self.wins} won, {self.draws} drawn, {self.losses} lost "
            f"(win rate {100 * self.win_rate:.1f} %); mean score {self.points_for / n:.2f} - "
            f"{self.points_against / n:.2f}"
        )


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate",
        help="play a checkpoint against a built-in opponent",
        description="Play a trained policy (greedy) against a built-in opponent on a private "
        "server, hammer alternating; print one line per game and win/draw/loss and mean score.",
    )
    p.add_argument("checkpoint", help="RLlib checkpoint (algorithm dir, trial dir or checkpoint)")
    p.add_argument("--episodes", type=int, default=20, help="games to play (default 20)")
    p.add_argument("--opponent", type=int, default=2, help="built-in opponent level 0-8 (2)")
    p.add_argument("--ends", type=int, default=4, help="ends per game (default 4)")
    p.add_argument("--seed", type=int, default=None, help="seed of the private server")
    p.add_argument("--server", default="auto", help="'auto' (default) or host:port")
    p.add_argument("--module-id", default="default_policy", help="module to load")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    # Accepted for compatibility with Ray's former command; the checkpoint says what it is.
    p.add_argument("--run", "--algo", dest="run", help=argparse.SUPPRESS)
    p.add_argument("--env", help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def evaluate(
    checkpoint: str,
    episodes: int,
    opponent: int = 2,
    ends: int = 4,
    seed: int | None = None,
    server: str = "auto",
    module_id: str = "default_policy",
    echo: bool = True,
) -> EvaluationResult:
    """Play ``episodes`` games of the checkpoint's policy against built-in ``opponent``."""
    from rllib_curling.env import CurlingEnv
    from rllib_curling.rl.policy_player import PolicyPlayer

    player = PolicyPlayer.from_checkpoint(checkpoint, module_id)
    env = CurlingEnv(
        {"opponent": opponent, "ends": ends, "seed": seed, "server": server, **player.env_config()}
    )
    result = EvaluationResult()
    try:
        for game in range(1, episodes + 1):
            obs, info = env.reset()
            first = info["setstate"][0] == 0  # we throw the end's first stone
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(player.policy(obs))
                done = terminated or truncated
            mine, theirs = info["score"]
            outcome = info["result"] or (
                "WIN" if mine > theirs else "LOSE" if mine < theirs else "DRAW"
            )
            result.games += 1
            result.wins += outcome == "WIN"
            result.draws += outcome == "DRAW"
            result.losses += outcome == "LOSE"
            result.points_for += mine
            result.points_against += theirs
            line = (
                f"game {game}: {outcome} {mine}-{theirs} "
                f"({'no hammer' if first else 'hammer'} in end 1) ends {info['end_scores']}"
            )
            result.lines.append(line)
            if echo:
                print(line, flush=True)
    finally:
        env.close()
    return result


def run(args: argparse.Namespace) -> int:
    try:
        result = evaluate(
            args.checkpoint, args.episodes, args.opponent, args.ends, args.seed, args.server,
            args.module_id, echo=not args.json,
        )  # fmt: skip
    except (FileNotFoundError, ValueError) as exc:
        print(f"rllib evaluate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        data = {k: v for k, v in asdict(result).items() if k != "lines"}
        print(json.dumps({**data, "win_rate": result.win_rate}))
    else:
        print(result.summary())
    return 0
