"""``curling bench NAME``: run one of the benchmark scripts in ``rllib_curling.benchmarks``."""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = ("physics", "bots", "search", "server", "env", "rllib")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Benchmarks print figures (medians of repeated runs); --json for machines.",
    )
    p.add_argument("name", choices=BENCHMARKS, help="which benchmark")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark (see --help)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(f"rllib_curling.benchmarks.{args.name}")
    return int(module.main(list(args.rest)) or 0)
