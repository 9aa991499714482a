"""How well a shot network's values predict the games' results, on held-out games of a
``curling dataset --action shots`` folder (shards the network did not train on):

    python measurements/value_calibration.py results/curling-shots data/shots-heldout \\
        --png measurements/value_calibration.png

For every row (a turn of the labelled side): the value head's chance to win ``(1 + V) / 2``,
the end-score head's chance to win through the win table (``win_table``), and the teacher
search's own value (``search_value``) as a reference. Prints the explained variance of the
game's result (+1 / 0 / −1 as 2 · result − 1) for each, their Brier scores, and per stone of
the end; ``--png`` draws the reliability plot (predicted chance to win vs the share of games
won, draws ½, in bins of 0.1).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import torch

from rllib_curling import win_table
from rllib_curling.rl.checkpoints import load_module


def read_rows(folder: Path) -> dict[str, np.ndarray]:
    columns = ["obs", "result", "score_diff", "end", "hammer", "shot", "search_value"]
    tables = [pq.read_table(p, columns=columns) for p in sorted(folder.glob("shard-*/*.parquet"))]
    out: dict[str, list] = {c: [] for c in columns}
    for table in tables:
        data = table.to_pydict()
        for c in columns:
            out[c] += data[c]
    obs = np.array([np.asarray(o["observations"], np.float32) for o in out.pop("obs")])
    rows = {c: np.asarray(v) for c, v in out.items()}
    rows["observations"] = obs
    return rows


def predictions(checkpoint: str, rows: dict[str, np.ndarray], ends: int) -> dict[str, np.ndarray]:
    module = load_module(checkpoint)
    module.eval()
    net = module.net
    table = win_table.load()
    with torch.no_grad():
        _, g = net(torch.from_numpy(rows["observations"]))
        value = net.value(g).numpy()
        score = torch.softmax(net.scores(g), -1).numpy()  # (B, 17)
    ends_after = ends - rows["end"] - 1
    by_score = np.stack(
        [table.after_end(rows["score_diff"], s, ends_after, rows["hammer"])
         for s in win_table.END_SCORES], axis=1,
    )  # fmt: skip
    return {
        "value head": np.clip(0.5 + 0.5 * value, 0.0, 1.0),
        "score head + win table": (score * by_score).sum(-1),
        "teacher's search": np.clip(rows["search_value"], 0.0, 1.0),
    }


def explained_variance(target: np.ndarray, predicted: np.ndarray) -> float:
    return float(1.0 - np.var(target - predicted) / np.var(target))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("data", type=Path)
    parser.add_argument("--png", default=None)
    args = parser.parse_args()
    ends = json.loads((args.data / "dataset.json").read_text())["ends"]
    rows = read_rows(args.data)
    result = 2.0 * rows["result"] - 1.0
    found = predictions(args.checkpoint, rows, ends)
    report: dict[str, dict[str, float]] = {}
    for name, p in found.items():
        report[name] = {
            "explained_variance": round(explained_variance(result, 2 * p - 1), 3),
            "brier": round(float(np.mean((p - rows["result"]) ** 2)), 4),
        }
        for lo, hi in ((0, 6), (6, 12), (12, 16)):
            part = (rows["shot"] >= lo) & (rows["shot"] < hi)
            ev = explained_variance(result[part], 2 * p[part] - 1)
            report[name][f"ev_stones_{lo}_{hi - 1}"] = round(ev, 3)
    print(json.dumps({"rows": len(result), "games_result_mean": float(rows["result"].mean()),
                      **report}, indent=1))  # fmt: skip
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 5))
        edges = np.linspace(0, 1, 11)
        for name, p in found.items():
            at = np.clip(np.digitize(p, edges) - 1, 0, 9)
            xs = [p[at == b].mean() for b in range(10) if (at == b).sum() >= 20]
            ys = [rows["result"][at == b].mean() for b in range(10) if (at == b).sum() >= 20]
            ax.plot(xs, ys, "o-", label=f"{name} (EV {report[name]['explained_variance']:.2f})")
        ax.plot([0, 1], [0, 1], "k:", lw=1)
        ax.set_xlabel("predicted chance to win")
        ax.set_ylabel("share of games won (draws ½)")
        ax.set_title(f"{len(result)} positions of held-out games")
        ax.legend(fontsize=8, loc="upper left")
        fig.tight_layout()
        fig.savefig(args.png, dpi=100)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
