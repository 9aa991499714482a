"""``curling plot RUN_DIR``: learning curves of a training run, as a PNG (``DESCRIPTION`` is
its help)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from rllib_curling.cli import UsageError
from rllib_curling.tune_results import evaluation, read_rows, value

#: (result key, axis label) of the curves and of their x axes.
CURVES = (("env_runners/win_rate", "win rate, draws half (last 100 games)"),
          ("env_runners/episode_return_mean", "mean return (points for - against)"))  # fmt: skip
AXES = (("time_total_s", "training time (min)", 1 / 60),
        ("num_env_steps_sampled_lifetime", "env steps sampled", 1.0))  # fmt: skip

DESCRIPTION = """\
RUN_DIR is a Tune experiment directory (results/curling-ppo: one line per trial) or one trial
directory, relative or with ~. Against training time and against env steps sampled: the win rate
(and, when the run evaluated, the win rate of its evaluation games, the network playing without
sampling: dots), the mean return, and the score rate (wins + draws / 2, over each iteration's
games) against each opponent the run met (opponent mixtures, the curriculum; a dashed line for
the curriculum's current level). The title says the algorithm and the opponent, read from the
run. Needs matplotlib: pip install "rllib-curling[render]".
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="plot the learning curves of a training run",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="experiment or trial directory")
    p.add_argument("-o", "--out", default=None,
                   help="PNG to write (default: RUN_DIR/learning_curve.png)")  # fmt: skip
    p.set_defaults(func=run)


def read_trials(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """``{trial name: [result, ...]}`` from the ``result.json`` files of a run directory."""
    files = [run_dir / "result.json"] if (run_dir / "result.json").is_file() else []
    files = files or sorted(run_dir.glob("*/result.json"))
    trials = {path.parent.name: read_rows(path) for path in files}
    return {name: rows for name, rows in trials.items() if rows}


def title_of(run_dir: Path, trials: dict[str, list[dict[str, Any]]]) -> str:
    """``"PPO on curling vs level 2"``: the algorithm from the trial names, the env and the
    opponent from the trials' configs."""
    first = next(iter(trials))
    algo = first.split("_", 1)[0].removeprefix("Curling")
    config = trials[first][-1].get("config", {})
    env = config.get("env", "?")
    env_config = config.get("env_config") or {}
    opponent, curriculum = env_config.get("opponent"), env_config.get("curriculum")
    if curriculum:
        levels = curriculum.get("levels") if isinstance(curriculum, dict) else None
        vs = f" vs curriculum {levels}" if levels else " vs curriculum"
    elif isinstance(opponent, int):
        vs = f" vs level {opponent}"
    else:
        vs = f" vs {opponent}" if isinstance(opponent, list | dict) else ""
    return f"{algo} on {env}{vs} — {run_dir.name}"


def run(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir).expanduser().resolve()
    trials = read_trials(run_dir) if run_dir.is_dir() else {}
    if not trials:
        raise UsageError(f"no Tune results (result.json) in {run_dir} or its trial directories")
    try:
        import matplotlib
    except ImportError:
        raise UsageError('needs matplotlib: pip install "rllib-curling[render]"') from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 2, figsize=(11, 10), sharey="row")
    for r, (key, label) in enumerate(CURVES):
        for c, (x_key, x_label, scale) in enumerate(AXES):
            ax = axes[r][c]
            for name, rows in trials.items():
                xs = [value(row, x_key) * scale for row in rows]
                line = ax.plot(xs, [value(row, key) for row in rows], label=_short(name))
                evaluated = evaluation_points(rows, x_key, scale) if r == 0 else []
                if evaluated:
                    ax.plot(*zip(*evaluated, strict=True), color=line[0].get_color(),
                            linestyle="--", marker="o", markersize=4, linewidth=0.8,
                            label=f"{_short(name)} evaluation (no sampling)")  # fmt: skip
                    ax.legend(fontsize=7)
            ax.set_xlabel(x_label)
            if c == 0:
                ax.set_ylabel(label)
            ax.grid(alpha=0.3)
    for c, (x_key, x_label, scale) in enumerate(AXES):
        _per_opponent(axes[2][c], trials, x_key, scale, single=len(trials) == 1)
        axes[2][c].set_xlabel(x_label)
    axes[2][0].set_ylabel("score rate per opponent")
    axes[2][1].legend(fontsize=7, ncol=2)
    axes[0][0].set_ylim(-0.02, 1.02)
    axes[2][0].set_ylim(-0.02, 1.02)
    if len(trials) > 1:
        axes[0][1].legend(fontsize=7)
    fig.suptitle(title_of(run_dir, trials))
    fig.tight_layout()
    out = Path(args.out).expanduser() if args.out else run_dir / "learning_curve.png"
    fig.savefig(out, dpi=110)
    longest = max(len(r) for r in trials.values())
    print(f"wrote {out} ({len(trials)} trial(s), up to {longest} iterations)")
    return 0


def opponents_of(rows: list[dict[str, Any]]) -> list[str]:
    """The opponent groups (``L2``, ``L4``, ...) a trial's results have, in level order."""
    seen: set[str] = set()
    for row in rows:
        seen.update((row.get("env_runners") or {}).get("opponents") or {})
    return sorted(seen, key=lambda k: (len(k), k))


def _per_opponent(ax: Any, trials: dict[str, list[dict[str, Any]]], x_key: str, scale: float,
                  single: bool) -> None:  # fmt: skip
    for name, rows in trials.items():
        xs = [value(row, x_key) * scale for row in rows]
        for group in opponents_of(rows):
            ys = [value(row, f"env_runners/opponents/{group}/score_rate") for row in rows]
            label = group if single else f"{_short(name)} {group}"
            ax.plot(xs, ys, marker=".", markersize=3, linewidth=0.8, label=label)
        levels = [value(row, "curling/opponent") for row in rows]
        if single and any(math.isfinite(v) for v in levels):
            twin = ax.twinx()
            twin.step(xs, levels, where="post", color="black", linestyle="--", linewidth=1)
            twin.set_ylabel("current level (dashed)")
            twin.set_ylim(-0.5, 8.5)
    ax.grid(alpha=0.3)


def evaluation_points(rows: list[dict[str, Any]], x_key: str, scale: float = 1.0
                      ) -> list[tuple[float, float]]:  # fmt: skip
    """``(x, win rate)`` of a trial's iterations that evaluated (``tune_results.evaluation``),
    ``x`` being ``x_key`` × ``scale``; ``[]`` for a run without evaluation."""
    points = [(value(row, x_key) * scale, evaluation(row)) for row in rows]
    return [(x, y) for x, y in points if math.isfinite(y)]


def _short(trial: str) -> str:
    """A trial's name without its date suffix."""
    parts = trial.split("_")
    return "_".join(parts[:-2]) if len(parts) > 3 else trial
