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
    name, rest = args.name, list(args.rest)
    if name == "physics" and _ice(rest) == "fcv1":  # the fcv1 ice has a benchmark of its own
        name, rest = "physics_fcv1", _without_ice(rest)
    module = importlib.import_module(f"rllib_curling.benchmarks.{name}")
    return int(module.main(rest) or 0)


def _ice(rest: list[str]) -> str | None:
    """The value of ``--ice`` among a benchmark's options (``--ice X`` or ``--ice=X``)."""
    for k, arg in enumerate(rest):
        if arg == "--ice" and k + 1 < len(rest):
            return rest[k + 1]
        if arg.startswith("--ice="):
            return arg.split("=", 1)[1]
    return None


def _without_ice(rest: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in rest:
        if skip:
            skip = False
        elif arg == "--ice":
            skip = True
        elif not arg.startswith("--ice="):
            out.append(arg)
    return out
