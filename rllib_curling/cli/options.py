"""Command-line options that several commands share (one definition each)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_search_options(p: argparse.ArgumentParser) -> None:
    """``--search K``, ``--no-search``, ``--samples N`` and ``--value-weight W``: the agent's
    search (``rl.search``) for a checkpoint's policy."""
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
        help="noisy throws per re-judged candidate with --search (default 24)",
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
