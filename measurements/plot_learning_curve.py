"""Plot a Tune trial's learning curve (episode return and win rate against training time).

    python measurements/plot_learning_curve.py RESULTS_DIR
        [--out measurements/ppo_learning_curve.png] [--title TEXT]

RESULTS_DIR is a trial dir (with result.json) or an experiment dir (its newest trial is used).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def load_rows(path: Path) -> list[dict]:
    files = [path / "result.json"] if (path / "result.json").is_file() else []
    files = files or sorted(path.glob("*/result.json"), key=lambda p: p.stat().st_mtime)
    if not files:
        raise SystemExit(f"no result.json under {path}")
    return [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results")
    parser.add_argument("--out", default="measurements/ppo_learning_curve.png")
    parser.add_argument("--title", default="PPO vs built-in level 2 (4-end games)")
    args = parser.parse_args()
    rows = load_rows(Path(args.results))
    minutes = [r["time_total_s"] / 60 for r in rows]
    runners = [r.get("env_runners", {}) for r in rows]
    returns = [e.get("episode_return_mean", float("nan")) for e in runners]
    wins = [100 * e.get("win_rate", float("nan")) for e in runners]

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(minutes, returns, color="tab:blue", label="mean return (points for − against)")
    ax.set_xlabel("training time (min), 2-core machine")
    ax.set_ylabel("mean episode return", color="tab:blue")
    ax.axhline(0, color="grey", lw=0.5)
    ax2 = ax.twinx()
    ax2.plot(minutes, wins, color="tab:red", label="win rate (last 100 games)")
    ax2.axhline(70, color="tab:red", lw=0.6, ls="--")
    ax2.set_ylabel("win rate % (wins only)", color="tab:red")
    ax2.set_ylim(0, 100)
    ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(
        f"wrote {args.out} ({len(rows)} iterations, last return {returns[-1]:.2f}, "
        f"last win rate {wins[-1]:.0f} %)"
    )


if __name__ == "__main__":
    main()
