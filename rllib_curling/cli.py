"""The ``curling`` command: argparse subcommands, one module per subcommand in ``commands/``.

Each ``rllib_curling.commands.<name>`` module defines ``add_parser(subparsers)`` (which registers
its subcommand and sets ``func``) and keeps heavy imports inside its ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Subcommand modules under rllib_curling.commands, in the order ``curling --help`` lists them.
COMMANDS = ("simulate", "server", "match", "ladder", "play", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="curling",
        description="Digital curling (数字冰壶): engine, protocol server, bots and RLlib tools.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"rllib_curling.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"rllib_curling.commands.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return dispatch(build_parser(), argv)


def dispatch(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse ``argv`` and run the chosen subcommand's ``func``; help and exit 2 without one."""
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
