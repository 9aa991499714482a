"""Command-line options that several commands share (one definition each), and the argparse
types behind them.

| here                  | what                                                                 |
|-----------------------|----------------------------------------------------------------------|
| ``add_ends``          | ``--ends N`` (N >= 1) of the commands that play games (``curling     |
|                       | server`` has its own: it also takes -1, unlimited, as ServerConfig)  |
| ``add_search_options``| ``--search K``, ``--no-search``, ``--samples N``, ``--value-weight W`` |
|                       | (``SearchOptions``; ``load_player`` loads a checkpoint with them)    |
| ``level_range``       | the built-in levels as help texts write them (``0-8``), from         |
|                       | ``bots.levels.LEVELS``                                               |
| ``level_list``        | an argparse type: ``2`` or ``2,4,6``, each a level (``check_level``)   |
| ``positive_int``, ``non_negative_int``, ``unit_float`` | argparse types: an integer >= 1, |
|                       | an integer >= 0, a number in [0, 1]                                  |
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rllib_curling.game import DEFAULT_ENDS


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    return _at_least(1, text)


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    return _at_least(0, text)


def _at_least(low: int, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
    return value


def add_ends(p: argparse.ArgumentParser, default: int = DEFAULT_ENDS) -> None:
    """``--ends N``: ends per game, at least 1."""
    p.add_argument(
        "--ends", type=positive_int, default=default, help=f"ends per game (default {default})"
    )


def level_range() -> str:
    """The built-in levels as a help text writes them: ``"0-8"`` (``bots.levels.LEVELS``)."""
    from rllib_curling.bots.levels import LEVELS

    return f"{LEVELS[0]}-{LEVELS[-1]}"


def level_list(what: str) -> Callable[[str], tuple[int, ...]]:
    """An argparse type for ``what`` (``"opponent"``): ``"2"`` or ``"2,4,6"`` → the levels, each
    checked by ``bots.check_level`` (its message names the valid levels)."""

    def parse(text: str) -> tuple[int, ...]:
        from rllib_curling.bots.levels import check_level

        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts or not all(part.lstrip("-").isdigit() for part in parts):
            raise argparse.ArgumentTypeError(f"{what}s are levels like 2 or 2,4,6: {text!r}")
        try:
            return tuple(check_level(int(part), what) for part in parts)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def add_search_options(p: argparse.ArgumentParser) -> None:
    """``--search K``, ``--no-search``, ``--samples N`` and ``--value-weight W``: the agent's
    search (``agent.search``) for a checkpoint's policy."""
    p.add_argument(
        "--search", type=positive_int, default=None, metavar="K",
        help="play the agent's search: the policy's top K actions joined with level 8's "
        "candidates, judged by simulating them under the platform's noise and by the opponent's "
        "best answers (default: the shipped agent `builtin` searches, other checkpoints do not)",
    )  # fmt: skip
    p.add_argument(
        "--no-search", dest="search", action="store_const", const=0,
        help="play the policy's own choice, without search",
    )  # fmt: skip
    p.add_argument(
        "--samples", type=positive_int, default=None, metavar="N",
        help="noisy throws per re-judged candidate with --search (default: the agent "
        "folder's effort's, else 24)",
    )  # fmt: skip
    p.add_argument(
        "--value-weight", type=unit_float, default=None, metavar="W",
        help="weight of the network's learned value in the search's judgement, 0-1 (default: "
        "the agent's own, 0 for a checkpoint)",
    )  # fmt: skip


def unit_float(text: str) -> float:
    """An argparse type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


@dataclass(frozen=True)
class SearchOptions:
    """What ``add_search_options`` parsed: ``search`` K (None: as the agent folder says, 0: the
    policy alone), ``samples`` per candidate and the learned value's ``value_weight`` (None:
    the defaults of ``PolicyPlayer.from_checkpoint``)."""

    search: int | None = None
    samples: int | None = None
    value_weight: float | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SearchOptions:
        return cls(args.search, args.samples, args.value_weight)


def load_player(
    checkpoint: str, module_id: str, options: SearchOptions, *, seed: int | None = None
) -> Any:
    """A ``PolicyPlayer`` of ``checkpoint`` (anything ``load_policy`` takes) playing as
    ``options`` say (``seed``: its search's simulations); ``UsageError`` with the reason, in one
    line, when it cannot be loaded."""
    from rllib_curling.agent.player import PolicyPlayer
    from rllib_curling.cli import UsageError

    try:
        return PolicyPlayer.from_checkpoint(
            checkpoint,
            module_id,
            search=options.search,
            samples=options.samples,
            seed=seed,
            value_weight=options.value_weight,
        )
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None
