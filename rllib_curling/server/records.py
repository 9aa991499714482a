"""Game records of ``curling server --log-dir DIR``: one JSONL file per server run.

File: ``DIR/curling-server-<YYYYmmdd-HHMMSS>-<pid>.jsonl``, one JSON object per line, ``type``
first. Positions are ``[[x0, y0], … [x15, y15]]`` (metres, this end's throwing order, ``[0, 0]`` =
not in play); seats are 0 = Player1, 1 = Player2; floats are written exactly (``repr``), so a
replay reproduces them bit for bit.

| type         | fields                                                                        |
|--------------|-------------------------------------------------------------------------------|
| ``run``      | version, run_id, started (ISO time, UTC), seed (the base seed actually used), |
|              | address, config                                                                 |
| ``game_start`` | game_id, match, game, players [name1, name2], kinds ["remote", "bot:3", …], |
|              | ends, first_seat (throws first in end 0)                                        |
| ``reset``    | game_id, end, shot, seat, position (RESETPOSITION) or new_shot (RESETSTATE);    |
|              | debug mode only                                                                 |
| ``shot``     | game_id, players, end, shot, thrower, throw_sent [v, h, w] as received (null =  |
|              | turn timeout), throw [v, h, w, sweep] as clamped (null = timeout), sweep,       |
|              | seed, before, position (after the rules and any centre-line choice),             |
|              | fgz_restored, centre_line_violation, centerline_choice (null or RESET/KEEP),    |
|              | end_score [p1, p2] or null, scores [p1, p2] (totals so far)                     |
| ``game``     | game_id, players, end_scores [[p1, p2], …], totals [p1, p2], results            |
|              | [result of Player1, of Player2] (WIN/LOSE/DRAW), reason (finished, disconnect,  |
|              | resign: a person resigned on the page, forfeit, stopped, error; left: a client  |
|              | left a later game of its match before it threw there, no game was played),      |
|              | lost_seat (disconnect, resign, forfeit), shots (stones thrown in the game)      |

Every line is handed to the operating system as soon as it is written (line-buffered; no fsync):
a server killed with ``kill -9`` loses at most the shot in flight.

**Replay**: ``physics.simulate(before, shot, throw, seed=seed)`` followed by ``Game.settle`` gives
``position`` again (``replay_shot``; older records hold ``shot_seed`` instead, replayed with
``np.random.default_rng(shot_seed)``: ``shot_randomness``); with a centre-line choice of RESET, the
thrown stone is removed from ``before`` instead. A timed-out shot (``throw`` null) leaves
``before`` unchanged.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from rllib_curling.game import DEFAULT_ENDS

log = logging.getLogger(__name__)
RECORD_VERSION = 1


class Recorder(Protocol):
    """Where a match writes its records: ``GameRecorder`` (the file), or it and the page
    (``web.feeds.TeeRecorder``). ``enabled``: whether anything keeps the records."""

    @property
    def enabled(self) -> bool: ...

    def write(self, record: dict[str, Any]) -> None: ...

    def flush(self) -> None: ...


class GameRecorder:
    """Appends record lines to one JSONL file; does nothing when ``log_dir`` is None.

    The file is opened on the first line and line-buffered: each record reaches the operating
    system when it is written. Write errors are logged once and further records are dropped
    (never raised into a game in progress).
    """

    def __init__(self, log_dir: str | Path | None) -> None:
        self.log_dir = Path(log_dir) if log_dir else None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.run_id = f"{stamp}-{os.getpid()}"
        self.path = self.log_dir / f"curling-server-{self.run_id}.jsonl" if self.log_dir else None
        self._file: IO[str] | None = None
        self._failed = False

    @property
    def enabled(self) -> bool:
        return self.path is not None and not self._failed

    def write(self, record: dict[str, Any]) -> None:
        """Append one record (a dict with ``type``)."""
        if not self.enabled:
            return
        try:
            if self._file is None:
                assert self.path is not None
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
            self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        except (OSError, TypeError, ValueError) as exc:
            self._failed = True
            log.error("cannot write game records to %s: %s; records are off", self.path, exc)

    def flush(self) -> None:
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as exc:
                log.error("cannot flush game records %s: %s", self.path, exc)

    def close(self) -> None:
        if self._file is not None:
            self.flush()
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None


def position_list(position: np.ndarray) -> list[list[float]]:
    """A ``(16, 2)`` position as nested lists of Python floats (exact in JSON)."""
    return np.asarray(position, dtype=np.float64).tolist()


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """All records of one file, in order."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def shot_randomness(*, seed: int | None = None, shot_seed: int | None = None) -> dict[str, Any]:
    """``physics.simulate``'s randomness for a shot record: ``seed=`` the physics seed it holds,
    or for an older record ``rng=default_rng(shot_seed)``; ValueError when it holds neither."""
    if seed is not None:
        return {"seed": int(seed)}
    if shot_seed is None:
        raise ValueError("a shot needs seed (or shot_seed) to be simulated again")
    return {"rng": np.random.default_rng(int(shot_seed))}


def replay_shot(record: dict[str, Any], *, ends: int = DEFAULT_ENDS) -> np.ndarray:
    """Re-simulate one ``shot`` record: the position after physics and the rules (as KEEP).

    ``ends`` only matters for the state bookkeeping (pass the game's ``ends``). Compare with
    ``record["position"]`` unless ``centerline_choice`` was RESET.
    """
    from rllib_curling import physics
    from rllib_curling.game import Game, GameConfig, GameState

    before = np.asarray(record["before"], dtype=np.float64)
    if record["throw"] is None:
        return before
    state = GameState(
        position=before,
        shot=int(record["shot"]),
        end=0,
        config=GameConfig(ends=ends),
    )
    randomness = shot_randomness(seed=record.get("seed"), shot_seed=record.get("shot_seed"))
    result = physics.simulate(before, int(record["shot"]), record["throw"], **randomness)
    transition = Game.settle(state, result.position)
    end_state = transition.end_state
    return (end_state if end_state is not None else transition.state).position
