"""``rllib evaluate`` of a Digital Curling agent (``agent.json``'s ``"ice": "fcv1"``, or a
checkpoint of ``curling_dc``): its games against our DC levels on DC's ice with DC's noise and
rules, in-process (``dc_bots.matches``: no server, no clock), the teams alternating; the same
table as the platform's evaluation. Team 1 has the hammer in DC's first end. The agent plays as
``agent.dc_player.load_dc_agent`` loads it: its folder's search unless ``--no-search`` (the
network alone) or ``--value-weight W`` says otherwise."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rllib_curling.cli import UsageError
from rllib_curling.cli.evaluation import EvaluationResult

if TYPE_CHECKING:
    from rllib_curling.dc_bots.base import DCBot


def check_dc_options(args: argparse.Namespace) -> None:
    """``UsageError`` (one line) for the options a DC evaluation has no use for."""
    if args.server != "auto":
        raise UsageError(
            "a DC agent is evaluated in-process: --server is for platform agents (put it on "
            "a DC server with `curling play --protocol dc3|dc4`)"
        )
    if args.watch:
        raise UsageError(
            "--watch is for platform agents (watch DC games with `curling server --protocol "
            "dc4 --opponent N` and `curling play --protocol dc4`)"
        )
    if args.samples is not None:
        raise UsageError("--samples is for platform agents (a DC agent's search re-throws as "
                         "DC level 8 does)")  # fmt: skip
    dc_value_weight(args)


def dc_value_weight(args: argparse.Namespace) -> float | None:
    """The DC agent's search setting of ``--no-search`` / ``--value-weight W`` (None: the agent
    folder's); ``UsageError`` for ``--search K``, which a DC agent's search does not take."""
    if args.search is not None and args.search > 0:
        raise UsageError(
            "--search K is for platform agents: a DC agent searches DC level 8's candidates "
            "(--value-weight W weighs its network, --no-search plays the network alone)"
        )
    if args.search == 0:
        if args.value_weight is not None:
            raise UsageError("--no-search and --value-weight together: choose one")
        return 0.0
    return float(args.value_weight) if args.value_weight is not None else None


def load_dc_agent_or_refuse(
    checkpoint: str, module_id: str, value_weight: float | None = None
) -> DCBot:
    """The DC agent of ``checkpoint`` (``agent.dc_player.load_dc_agent``); ``UsageError`` (one
    line) when it is none."""
    from rllib_curling.agent.dc_player import load_dc_agent

    try:
        return load_dc_agent(checkpoint, module_id, value_weight=value_weight)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def evaluate_dc(
    agent: DCBot,
    episodes: int,
    opponent: int,
    ends: int,
    seed: int,
    echo: bool = True,
) -> EvaluationResult:
    """``episodes`` DC games of ``agent`` against DC level ``opponent`` (``ends`` per game,
    seeded from ``seed``), from the agent's view."""
    from rllib_curling.dc_bots.levels import make_dc_bot
    from rllib_curling.dc_bots.matches import DCGameResult, play_dc_match
    from rllib_curling.dc_game import DCGameConfig
    from rllib_curling.game import result_for

    result = EvaluationResult(opponent=opponent)

    def count(g: int, team: int, game: DCGameResult) -> None:
        mine, theirs = game.totals[team], game.totals[1 - team]
        outcome = result_for(team, game.winner)
        result.add(outcome, mine, theirs, hammer=team == 1)
        line = (f"DC level {opponent} game {g + 1}: {outcome} {mine}-{theirs} "
                f"({'hammer' if team == 1 else 'no hammer'} in end 1) ends "
                f"{list(game.end_scores)}")  # fmt: skip
        result.lines.append(line)
        if echo:
            print(line, flush=True)

    config = DCGameConfig(standard_end_count=ends)
    play_dc_match(agent, make_dc_bot(opponent), episodes, config, seed, progress=count)
    return result
