"""DC level 8's search with a DC network's chance to win (``agent.dc_search.DCValueSearch``; its
end-score head through DC's win table when it has one, else its value head: ``--head``) against
a DC level, in-process on the fcv1 ice with DC's noise and rules; the teams alternate
(team 1 has the hammer in DC's first end), draws count ½. Seeds 5000 and up are used by no
dataset (those draw from ``DC_DATASET_SEED_TAG`` streams), e.g.

    python measurements/dc_value_search.py results/dc-bc/.../checkpoint_000002 \\
        --value-weight 0.5 --games 20 --seed 5000

``--value-weight 0`` is level 8's search valuing every stone by the chance to win alone.
Prints one line per game and a JSON summary (``rllib evaluate``'s DC games and figures). The
network runs on one thread (``torch.set_num_threads(1)``): its batches are small, and two matches
side by side on 2 cores would otherwise make each call 5× slower.
"""

from __future__ import annotations

import argparse
import json
import time

from rllib_curling.agent.dc_search import (
    DCValueSearch,
    chance_of,
    end_score_chance,
    result_chance,
)
from rllib_curling.agent.policy import load_policy
from rllib_curling.cli.commands.evaluate_dc import evaluate_dc
from rllib_curling.names import DEFAULT_MODULE_ID
from rllib_curling.rl.checkpoints import DC_ICE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a DC checkpoint or agent folder with a value head")
    parser.add_argument("--level", type=int, default=8, help="the DC level played (8)")
    parser.add_argument("--value-weight", type=float, default=0.5)
    parser.add_argument("--head", choices=("auto", "end_scores", "value"), default="auto",
                        help="the head the search reads (auto: end_scores when the network has "
                        "it)")  # fmt: skip
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ends", type=int, default=4)
    parser.add_argument("--seed", type=int, default=5000)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    policy = load_policy(args.checkpoint, DEFAULT_MODULE_ID, ice=DC_ICE)
    chance = {"auto": lambda: chance_of(policy),
              "end_scores": lambda: end_score_chance(policy.end_scores),
              "value": lambda: result_chance(policy.values)}[args.head]()  # fmt: skip
    bot = DCValueSearch(chance, args.value_weight)
    start = time.perf_counter()
    result = evaluate_dc(bot, args.games, args.level, args.ends, args.seed)
    print(json.dumps({
        "checkpoint": args.checkpoint, "head": args.head, "value_weight": args.value_weight,
        "ends": args.ends,
        "seed": args.seed, **result.as_dict(), "seconds": time.perf_counter() - start,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
