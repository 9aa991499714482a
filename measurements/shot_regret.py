"""How far a shot network's choices fall short of its teacher's, on held-out games of a
``curling dataset --action shots`` folder (shards the network did not train on):

    python measurements/shot_regret.py results/curling-shots data/shots-heldout

For every row, the teacher's screen (``screen``: every legal shot's value thrown once without
noise) prices each shot; a choice's **regret** is the best screen value minus the chosen
shot's (chances to win, 0 … 1). Prints the mean regret of the network's most likely legal shot,
of the teacher's own choice (which weighs noise and replies the screen does not), and of a
uniformly random legal shot; the network's top-1 agreement with the teacher; where the
teacher's choice ranks among the network's; and the share of hits each plays.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import torch

from rllib_curling.aiming import shots
from rllib_curling.rl.checkpoints import load_module

COLUMNS = ["obs", "actions", "screen"]


def read_rows(folder: Path) -> dict[str, np.ndarray]:
    found: dict[str, list] = {c: [] for c in COLUMNS}
    for path in sorted(folder.glob("shard-*/*.parquet")):
        data = pq.read_table(path, columns=COLUMNS).to_pydict()
        for c in COLUMNS:
            found[c] += data[c]
    return {
        "observations": np.array([o["observations"] for o in found["obs"]], np.float32),
        "mask": np.array([o["action_mask"] for o in found["obs"]], np.float32) > 0.5,
        "actions": np.asarray(found["actions"], np.int64),
        "screen": np.array(found["screen"], np.float64),
    }


def network_logits(checkpoint: str, observations: np.ndarray) -> np.ndarray:
    module = load_module(checkpoint)
    module.eval()
    with torch.no_grad():
        parts = [module.net(torch.from_numpy(observations[i : i + 512]))[0]
                 for i in range(0, len(observations), 512)]  # fmt: skip
    return torch.cat(parts).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("data", type=Path)
    parser.add_argument("--seed", type=int, default=0, help="the random player's seed")
    args = parser.parse_args()
    rows = read_rows(args.data)
    logits = np.where(rows["mask"], network_logits(args.checkpoint, rows["observations"]), -np.inf)
    value = np.where(np.isnan(rows["screen"]), -np.inf, rows["screen"])  # (B, N)
    best = value.max(axis=1)
    index = np.arange(len(value))
    picked = logits.argmax(axis=1)
    taught = rows["actions"]
    rng = np.random.default_rng(args.seed)
    random = np.array([rng.choice(np.flatnonzero(m)) for m in rows["mask"]])
    order = np.argsort(-logits, axis=1, kind="stable")
    rank = np.argmax(order == taught[:, None], axis=1)
    print(f"{len(value)} rows of {args.data}")
    for name, choice in (("network", picked), ("teacher", taught), ("random legal", random)):
        regret = best - value[index, choice]
        hits = np.mean(shots.SHOT_STONE[choice] >= 0)
        print(f"  {name:<13} mean regret {regret.mean():.4f}   hits {hits:.0%}")
    print(
        f"  top-1 agreement with the teacher {np.mean(picked == taught):.1%}; the teacher's "
        f"choice in the network's top 5 {np.mean(rank < 5):.1%}, top 20 {np.mean(rank < 20):.1%}"
    )


if __name__ == "__main__":
    main()
