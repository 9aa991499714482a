"""The shipped agent's generations as a curve and a table (issue 33):

    python measurements/generation_curve.py --png measurements/generation_curve.png

Reads ``measurements/generations.json`` (every agent tried as the next ``builtin``: its gate
head to head against the agent kept before it, its games against level 8) and prints the
Markdown table of the model card; ``--png`` draws the curve: generation against the gate's
score and against the score versus level 8, draws ½, with ± one standard error; kept agents
filled, the rest hollow.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from rllib_curling.game import score_rate

GENERATIONS = Path(__file__).with_name("generations.json")
#: The gate's threshold (``agent.gate.GATE_SCORE``), drawn as a line.
GATE = 0.55
#: Issue 33's target for the shipped agent against level 8, drawn as a line.
LEVEL8_TARGET = 0.95


def score(record: dict[str, int] | None) -> tuple[float, float, int] | None:
    """(score with draws ½, its standard error, games) of a ``{"wins", "draws", "losses"}``."""
    if record is None:
        return None
    wins, draws, losses = record["wins"], record["draws"], record["losses"]
    n = wins + draws + losses
    mean = score_rate(wins, draws, n)
    points = np.repeat([1.0, 0.5, 0.0], [wins, draws, losses])  # per game, as MatchResult.stderr
    return mean, float(np.std(points, ddof=1) / math.sqrt(n)), n


def cell(record: dict[str, int] | None) -> str:
    s = score(record)
    if s is None or record is None:
        return "—"
    mean, _, n = s
    return f"{100 * mean:.1f} % over {n} ({record['wins']}/{record['draws']}/{record['losses']})"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| generation | agent | gate vs the last kept | vs level 8 | kept |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['generation']} | {row['name']} | {cell(row['gate'])} | "
            f"{cell(row['vs_level8'])} | {'yes' if row['kept'] else 'no'} |"
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    panels = (("gate", "head to head vs the last kept"), ("vs_level8", "vs level 8"))
    for ax, (key, title) in zip(axes, panels, strict=True):
        kept_x, kept_y = [], []
        for i, row in enumerate(rows):
            s = score(row[key])
            if s is None:
                continue
            # the agents of one generation side by side, in the file's order
            same = [r for r in rows[:i] if r["generation"] == row["generation"]]
            x = row["generation"] + 0.08 * len(same)
            face = "C0" if row["kept"] else "white"
            ax.errorbar(x, 100 * s[0], yerr=100 * s[1], fmt="o", color="C0", mfc=face, capsize=3)
            if row["kept"]:
                kept_x.append(x)
                kept_y.append(100 * s[0])
        if len(kept_x) > 1:
            ax.plot(kept_x, kept_y, color="C0", lw=1)
        if key == "gate":
            ax.axhline(100 * GATE, color="grey", ls="--", lw=1, label="gate (55 %)")
        else:
            ax.axhline(100 * LEVEL8_TARGET, color="grey", ls=":", lw=1, label="target (95 %)")
        ax.legend(loc="lower right", fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("generation")
        ax.set_ylabel("score, draws ½ (%)")
        ax.set_ylim(0, 100)
        ax.set_xticks(sorted({row["generation"] for row in rows}))
    fig.suptitle("builtin's generations (filled: kept)", fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, default=GENERATIONS, help="the generations' file")
    parser.add_argument("--png", type=Path, default=None, help="draw the curve here")
    args = parser.parse_args()
    rows = json.loads(args.json.read_text())["generations"]
    print(table(rows))
    if args.png is not None:
        plot(rows, args.png)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
