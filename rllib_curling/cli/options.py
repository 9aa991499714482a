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
    """``--search K`` and ``--samples N``: decision-time search for a checkpoint's policy."""
    p.add_argument(
        "--search", type=positive_int, default=1, metavar="K",
        help="re-rank the policy's top K actions by simulating each --samples times under the "
        "platform's noise and judging the outcomes like level 8 (default 1: the policy's own "
        "choice)",
    )  # fmt: skip
    p.add_argument(
        "--samples", type=positive_int, default=None, metavar="N",
        help="noisy throws per candidate with --search (default: as many as level 8 takes)",
    )  # fmt: skip
