"""The ``curling`` command: engine, server, bots and matches, playing a checkpoint, benchmarks."""

from __future__ import annotations

import argparse
import importlib
import sys

from rllib_curling.cli import dispatch

#: Subcommand modules under rllib_curling.cli.commands, in the order ``curling --help`` lists them.
COMMANDS = (
    "simulate", "calibrate", "server", "match", "ladder", "rate", "dataset", "export", "improve",
    "play", "replay", "plot", "bench",
)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="curling",
        description="Digital curling (数字冰壶): engine, protocol server, bots and RLlib tools.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"rllib_curling.cli.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return dispatch(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
