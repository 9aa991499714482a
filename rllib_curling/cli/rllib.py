"""The ``rllib`` command: a compatible stand-in for the one Ray dropped after 2.41.

    rllib train --run PPO --env curling [--config JSON] [--stop JSON] ...
    rllib train -f tune_configs/ppo.yaml [--stop JSON]        (1.x form)
    rllib train file tune_configs/ppo.yaml | my_config.py      (2.x form)
    rllib evaluate CHECKPOINT [--episodes N] [--opponent L]

The subcommands are ``cli/commands/train.py`` and ``cli/commands/evaluate.py``; running either
imports ``rllib_curling.rl``, which registers the ``curling`` env, the ``curling_net`` model and
the trainables with Ray.
"""

from __future__ import annotations

import argparse
import sys

from rllib_curling.cli import dispatch
from rllib_curling.cli.commands import evaluate, train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rllib", description="Train and evaluate RLlib agents (rllib-curling)."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    train.add_parser(sub)
    evaluate.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return dispatch(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
