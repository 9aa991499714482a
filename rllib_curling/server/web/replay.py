"""``curling replay RECORD.jsonl``: the games of a records file (``server.records``) on the page.

Every game of the file is listed (in file order, numbered from 1); the page plays the chosen one
from its first stone, with play, pause, step and seek per shot. Trajectories are simulated again
per shot when the page shows it (``POST /api/trajectory``: the record's ``seed`` makes it
the same path, bit for bit). A file that ends mid-game (a server killed) still shows the shots it
has; lines that are not JSON (a line cut short) are skipped, and so are games without a shot (a
server stopped as the next game began).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rllib_curling.errors import ConfigError
from rllib_curling.server.web.hub import WatchHub

log = logging.getLogger("rllib_curling.server.web")


def read_record_lines(path: str | Path) -> list[dict[str, Any]]:
    """The records of a file; lines that are not JSON objects are skipped (and counted in the
    log). Raises ``ConfigError`` naming the file when it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the records file {path}: {exc}") from None
    records, bad = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    if bad:
        log.warning("%s: %d line(s) that are not records were skipped", path, bad)
    return records


def replay_hub(
    path: str | Path | Sequence[str | Path],
    game: int | None = None,
    *,
    title: str | None = None,
    finished_only: bool = False,
) -> WatchHub:
    """A hub holding every game of the records file (or files, in order); the page opens game
    ``game`` (from 1). ``finished_only`` leaves out games that ended otherwise (a server stopped,
    a client gone). Raises ``ConfigError`` for no games or a ``game`` out of range.
    """
    paths = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    records = [record for p in paths for record in read_record_lines(p)]
    path = paths[0] if len(paths) == 1 else f"{len(paths)} records files"
    run = next((r for r in records if r.get("type") == "run"), {})
    blank_end = (run.get("config") or {}).get("blank_end")
    hub = WatchHub(frames=None, blank_end=blank_end, max_games=10**9)
    for record in records:
        hub.write(record)
    hub.seal()
    if finished_only:
        hub.forget(lambda summary: summary["status"] != "finished")
    games = hub.games()
    if not games:
        raise ConfigError(
            f"{path} holds no games (a records file of `curling server --log-dir DIR` has "
            "game_start and shot lines)"
        )
    if game is not None and not 1 <= game <= len(games):
        raise ConfigError(f"--game {game}: {path} holds games 1..{len(games)}")
    chosen = games[(game or 1) - 1]["id"]
    hub.info = {"mode": "replay", "title": title or paths[0].name, "game": chosen}
    return hub
