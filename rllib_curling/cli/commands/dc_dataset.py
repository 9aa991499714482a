"""``curling dataset OUT --ice dc``: a DC search level's games on Digital Curling's ice as RLlib
offline data (``offline.dc_dataset``), the parallel room of ``cli.commands.dataset``'s run."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rllib_curling.cli import UsageError

#: The platform's options that a DC dataset does not take (dest, as typed).
PLATFORM_ONLY = (("action", "--action"), ("labels", "--labels"))


def run_dc(args: argparse.Namespace) -> int:
    """Build the ``DCDatasetConfig`` from ``args``, play its pending shards, print a summary."""
    from rllib_curling.cli.commands.dataset_shared import (
        PER_ICE,
        init_ray,
        print_summary,
        progress_line,
    )
    from rllib_curling.errors import ConfigError
    from rllib_curling.offline.dataset import pending_shards
    from rllib_curling.offline.dc_dataset import DCDatasetConfig, generate_dc

    defaults = getattr(args, "dataset_defaults", {})
    for dest, flag in PLATFORM_ONLY:
        if getattr(args, dest) != defaults.get(dest):
            raise UsageError(f"{flag} is the platform's; --ice dc rows are the DC env's shots")
    given = {k: getattr(args, k) for k in PER_ICE if getattr(args, k) is not None}
    if isinstance(given.get("teacher"), str):
        raise UsageError(f"--ice dc: the teacher is a DC search level, got {given['teacher']}")
    try:
        config = DCDatasetConfig(**given, games=args.games, seed=args.seed)
    except (ConfigError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    start = time.perf_counter()
    init_ray(args.address)
    todo = len(pending_shards(Path(args.out).expanduser(), config))
    print(
        f"curling dataset --ice dc: DC level {config.teacher} against "
        f"{', '.join(map(str, config.opponents))}, {config.games} games of {config.ends} ends "
        f"in {config.shards} shards; {todo} to play",
        file=sys.stderr, flush=True,
    )  # fmt: skip
    try:
        summaries = generate_dc(args.out, config, progress=progress_line(start, todo))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return print_summary(args.out, summaries, start, as_json=args.json)
