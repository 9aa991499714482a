"""A Tune trial's results as Tune writes them (``result.json``: one JSON row per training
iteration), read without Ray: what ``rl.checkpoints`` ranks trials and checkpoints by and what
``curling plot`` draws.

| function            | what                                                                |
|---------------------|---------------------------------------------------------------------|
| ``read_rows``       | the rows of one ``result.json`` (a line being written is skipped)   |
| ``value``           | ``row["a"]["b"]`` for ``"a/b"``, NaN where missing                  |
| ``evaluation``      | the win rate of the iteration's own evaluation games, NaN when it  |
|                     | did not evaluate                                                    |

**Evaluations.** With RLlib's ``evaluation_interval`` N an algorithm plays its evaluation games
at iterations N, 2N, …, and the row of the iteration after each also carries that evaluation's
metrics (RLlib reports its last evaluation again). ``evaluation`` counts an evaluation only at
the iteration that played it: a network is judged by its own games, never by its predecessor's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

#: The win rate (draws half) of RLlib's evaluation games in a result row: the network playing
#: without sampling when the run sets ``evaluation_config: {explore: false}``.
EVAL_WIN_RATE = "evaluation/env_runners/win_rate"


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of the ``result.json`` at ``path``; ``[]`` when it cannot be read. A line that
    is not JSON (being written while a run goes on) is skipped."""
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def value(row: dict[str, Any], key: str) -> float:
    """``row["a"]["b"]`` for ``"a/b"``; NaN where missing or not a number."""
    node: Any = row
    for part in key.split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return float(node) if isinstance(node, int | float) else math.nan


def evaluation(row: dict[str, Any]) -> float:
    """The win rate of the evaluation games played at ``row``'s iteration (``EVAL_WIN_RATE``),
    NaN when that iteration did not evaluate (module docstring): its ``training_iteration`` is
    not a multiple of its config's ``evaluation_interval``."""
    interval = (row.get("config") or {}).get("evaluation_interval")
    iteration = row.get("training_iteration")
    if not isinstance(interval, int) or interval <= 0 or not isinstance(iteration, int):
        return math.nan
    return value(row, EVAL_WIN_RATE) if iteration % interval == 0 else math.nan
