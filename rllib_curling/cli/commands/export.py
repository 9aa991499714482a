"""``curling export CHECKPOINT OUT``: a trained policy as an agent folder, weights only (the
folder's layout: ``rl.checkpoints``; ``DESCRIPTION`` is the command's help)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rllib_curling.agent.policy import EFFORT_FIELDS
from rllib_curling.cli import UsageError
from rllib_curling.cli.options import positive_int, unit_float
from rllib_curling.names import DEFAULT_MODULE_ID

DESCRIPTION = """\
An agent folder holds the network's weights (weights.pt), what it is (agent.json: the network,
its settings, its action space, how its search plays by default) and a model card
(MODEL_CARD.md). Every command that takes a checkpoint takes an agent folder; builtin, the
agent in the package, is one.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write a checkpoint's policy as an agent folder (weights, settings, model card)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("checkpoint", help="a checkpoint, or a trial/experiment directory")
    p.add_argument("out", metavar="OUT", help="the agent folder to write (created)")
    p.add_argument("--module-id", default=DEFAULT_MODULE_ID, help="module to export")
    p.add_argument("--search", type=positive_int, default=None, metavar="K",
                   help="the agent searches by default over its top K actions (default: no "
                   "search unless asked)")  # fmt: skip
    p.add_argument("--value-weight", type=unit_float, default=0.0, metavar="W",
                   help="weight of the learned value in its search (default 0); a DC agent "
                   "plays its search by default when W > 0")  # fmt: skip
    p.add_argument("--effort", type=_effort, default={}, metavar="FIELD=N[,FIELD=N...]",
                   help="how hard its search looks where it differs from the default search: "
                   f"{', '.join(EFFORT_FIELDS)}; e.g. top_k=32,samples=48 (default: the "
                   "search's own)")  # fmt: skip
    p.add_argument("--card", type=Path, default=None, metavar="FILE",
                   help="the model card (Markdown) to include (default: a short one naming the "
                   "checkpoint)")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rllib_curling.agent.policy import SearchDefaults, SearchEffort
    from rllib_curling.rl.checkpoints import export_agent, find_checkpoint

    try:
        path = find_checkpoint(args.checkpoint)
        shown = _shown(path)
        card = (
            args.card.read_text(encoding="utf-8")
            if args.card is not None
            else f"# Agent\n\nExported from `{shown}` with `curling export`.\n"
        )
        effort = SearchEffort.of(args.effort)
        search = SearchDefaults(args.search or 0, args.value_weight, effort).as_dict()
        out = export_agent(path, args.out, module_id=args.module_id, search=search, card=card)
    except (FileNotFoundError, ValueError, OSError) as exc:
        raise UsageError(str(exc)) from None
    size = sum(f.stat().st_size for f in out.iterdir())
    print(f"{out}: {size / 1e6:.2f} MB (from {shown})")
    return 0


def _effort(text: str) -> dict[str, int]:
    """``--effort``'s ``FIELD=N[,FIELD=N...]`` as a dict (``SearchEffort`` checks it)."""
    found: dict[str, int] = {}
    for item in text.split(","):
        name, sep, value = item.strip().partition("=")
        if not sep or name.strip() not in EFFORT_FIELDS or not value.strip().isdigit():
            raise argparse.ArgumentTypeError(
                f"{item.strip()!r}: give FIELD=N with FIELD one of {', '.join(EFFORT_FIELDS)}"
            )
        found[name.strip()] = int(value)
    return found


def _shown(path: Path) -> str:
    """A checkpoint's path as the card and the user read it: relative to where they ran the
    command when it lies below (a card names no one's home directory)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
