"""Give a platform agent an end-score head, or train its head on (``agent.end_score_head``:
the network's other weights stay as they are), and write a new agent folder whose search judges
positions by both heads. E.g., from a clone of the repository:

    curling dataset data/self --teacher builtin --opponents self --games 300 --seed 1
    python measurements/end_score_head.py builtin data/self builtin-es --held 24

The shards before ``--held`` are trained on, the rest judged after each epoch. The new folder's
search blends the two heads' chances to win, ``--share`` of the end-score head's; everything
else is the source agent's. ``curling improve AGENT OUT --train end-score`` runs the same
recipe as a generation's second stage (its own games, the last tenth of the shards held out).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    import torch

    from rllib_curling.agent.end_score_head import (
        HeadTraining,
        read_positions,
        train_end_score_head,
        with_end_score_head,
    )
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import load_module, write_agent

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the source agent folder (or builtin)")
    parser.add_argument("data", type=Path, help="a platform dataset (curling dataset's folder)")
    parser.add_argument("out", type=Path, help="the new agent folder")
    parser.add_argument("--held", type=int, required=True, help="first held-out shard")
    parser.add_argument("--epochs", type=int, default=5, help="passes over the data (5)")
    parser.add_argument("--share", type=float, default=0.5,
                        help="the end-score head's share of the learned value (0.5)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="torch's seed (0)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    dataset = json.loads((args.data / "dataset.json").read_text())
    n_shards = -(-int(dataset["games"]) // int(dataset["games_per_shard"]))
    train = read_positions(args.data, range(args.held))
    held = read_positions(args.data, range(args.held, n_shards))
    print(f"training on {len(train)} positions (shards 0-{args.held - 1}), judging on "
          f"{len(held)} (shards {args.held}-{n_shards - 1})")  # fmt: skip

    training = HeadTraining(epochs=args.epochs, seed=args.seed)
    module = with_end_score_head(load_module(args.agent), training.hiddens)
    train_end_score_head(module, train, ends=int(dataset["ends"]), training=training, held=held,
                         progress=print)  # fmt: skip
    policy = load_policy(args.agent)
    search = {**policy.search_defaults.as_dict(), "end_score_share": args.share}
    card = (
        f"# An agent with an end-score head\n\n`{args.agent}`'s network and search, with an "
        f"end-score head trained by `python measurements/end_score_head.py {args.agent} "
        f"{args.data} {args.out} --held {args.held} --epochs {args.epochs} --share "
        f"{args.share} --seed {args.seed}`.\n"
    )
    write_agent(module, args.out, search=search, card=card)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
