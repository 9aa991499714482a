"""What ``curling dataset`` on either ice (``dataset``, ``dc_dataset``) and ``curling improve``
share: the options whose defaults differ by ice, Ray's quiet start, and the progress line of the
shards played."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

#: Options whose default depends on --ice (None when not given: the ice's config fills them in).
PER_ICE = ("teacher", "opponents", "ends", "games_per_shard")


def init_ray(address: str | None) -> None:
    """Start Ray for the games (``address``: a cluster's, else a local Ray) unless it runs,
    quietly: no dashboard, no worker logs, no Ray Data progress bars."""
    import logging

    import ray
    import ray.data

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.ERROR)  # fmt: skip
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    ray.data.DataContext.get_current().enable_progress_bars = False


def progress_line(start: float, todo: int) -> Any:
    """``generate``'s ``progress``: one stderr line per shard played, with the time left
    (``todo``: the shards this run plays, from ``start``)."""

    def progress(summary: dict[str, Any], done: int, total: int) -> None:
        played = done - (total - todo)
        elapsed = time.perf_counter() - start
        eta = elapsed / played * (todo - played) if played else 0.0
        print(
            f"shard {done}/{total}: {summary['games']} games, {summary['rows']} rows, teacher "
            f"scores {100 * summary['score_rate']:.0f} %, {summary['seconds']:.0f} s  "
            f"[{elapsed / 60:.1f} min, about {eta / 60:.1f} min left]",
            file=sys.stderr, flush=True,
        )  # fmt: skip

    return progress


def print_summary(out: str, summaries: list[dict[str, Any]], start: float, *, as_json: bool) -> int:
    """The last line of a dataset run (``--json``: one JSON object): the shards played now, their
    rows and the seconds since ``start``; 0, the command's exit code."""
    rows = sum(s["rows"] for s in summaries)
    result = {"out": out, "shards_played": len(summaries), "rows": rows,
              "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
    if as_json:
        print(json.dumps(result))
    else:
        print(f"{out}: {len(summaries)} shards played now, {rows} rows, "
              f"{result['seconds']:.0f} s")  # fmt: skip
    return 0
