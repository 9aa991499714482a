"""The command lines: ``curling`` (``cli.curling``) and ``rllib`` (``cli.rllib``).

One module per subcommand in ``cli/commands/``: each defines ``add_parser(subparsers)`` (which
registers the subcommand and sets ``func``) and keeps heavy imports inside its ``run(args)``, so
``curling server --help`` imports neither Ray, torch nor Gymnasium.
"""

from __future__ import annotations

import argparse


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
