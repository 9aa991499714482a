"""``WatchHub``: the games a page can watch, their events, and every watcher's bounded queue.

The hub takes game records as a ``GameRecorder`` does (``write(record)``), so a match writes to
it as to its records file, and turns them into page events (``events``). It runs on one event
loop and never waits: publishing an event appends it to the game's history and offers it to
each watcher of that game.

**Watchers never slow a game.** Each one has a queue of bytes waiting for its socket:

- below ``SOFT_LIMIT`` queued bytes, a shot goes with its frames (the trajectory);
- above, it goes without them (the page asks for them later, or slides the stone): a slow
  browser drops frames, not shots;
- above ``HARD_LIMIT`` the watcher is dropped; its browser reconnects with ``Last-Event-ID``
  and gets the events it missed from the history.

**Memory is bounded**: the history keeps events without frames (frames are computed when a
game has watchers, or on request), and at most ``MAX_GAMES`` games (the oldest finished ones
go first).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from rllib_curling.game import DEFAULT_ENDS
from rllib_curling.server.web.events import EVENT_TYPES, frames_for_record, game_config, next_seat

log = logging.getLogger("rllib_curling.server.web")

#: Queued bytes above which a watcher gets shots without their frames.
SOFT_LIMIT = 256 * 1024
#: Queued bytes above which a watcher is dropped (its browser reconnects).
HARD_LIMIT = 4 * 1024 * 1024
#: Games kept for watching; the oldest finished game is forgotten first.
MAX_GAMES = 64

FramesFn = Callable[[dict[str, Any]], dict[str, Any] | None]


def sse(event: dict[str, Any], *, name: str | None = None) -> bytes:
    """One server-sent event: ``id`` (the event's ``seq``), ``event`` (its type), ``data``."""
    data = json.dumps(event, separators=(",", ":"), allow_nan=False)
    head = f"id: {event['seq']}\n" if "seq" in event else ""
    return f"{head}event: {name or event['type']}\ndata: {data}\n\n".encode()


class Watcher:
    """One page's queue of bytes to send (see the module docstring)."""

    def __init__(self) -> None:
        self.queue: deque[bytes] = deque()
        self.pending = 0
        self.dropped = False
        self.frames_dropped = 0
        self.wake = asyncio.Event()

    def offer(self, full: bytes, lite: bytes) -> None:
        """Queue ``full``, or ``lite`` (the same event without frames) when behind; never waits."""
        if self.dropped:
            return
        if self.pending + len(full) <= SOFT_LIMIT:
            chunk = full
        elif self.pending + len(lite) <= HARD_LIMIT:
            chunk = lite
            self.frames_dropped += full is not lite
        else:
            self.dropped = True
            self.queue.clear()
            self.pending = 0
            self.wake.set()
            return
        self.queue.append(chunk)
        self.pending += len(chunk)
        self.wake.set()

    def take(self) -> bytes:
        """Everything queued, as one chunk."""
        data = b"".join(self.queue)
        self.queue.clear()
        self.pending = 0
        self.wake.clear()
        return data


class GameFeed:
    """One game: its summary for the list, its events, its watchers."""

    def __init__(self, start: dict[str, Any], blank_end: str | None) -> None:
        self.id = str(start["game_id"])
        self.config = game_config(start.get("ends", DEFAULT_ENDS), blank_end)
        self.history: list[bytes] = []  # SSE bytes of every event, without frames
        self.events: list[dict[str, Any]] = []  # the same events as dicts
        self.watchers: set[Watcher] = set()
        self.summary: dict[str, Any] = {
            "id": self.id, "match": start.get("match"), "game": start.get("game"),
            "players": list(start.get("players", ["Player1", "Player2"])),
            "kinds": list(start.get("kinds", ["", ""])), "ends": start.get("ends"),
            "status": "live", "totals": [0, 0], "end": 0, "shots": 0,
        }  # fmt: skip

    @property
    def live(self) -> bool:
        return self.summary["status"] == "live"

    def add(self, event: dict[str, Any], frames: dict[str, Any] | None) -> None:
        """Append ``event`` (``seq`` set here) and offer it, with ``frames``, to the watchers."""
        event = {**event, "seq": len(self.history)}
        lite = sse(event)
        self.history.append(lite)
        self.events.append(event)
        full = sse({**event, "frames": frames}) if frames is not None else lite
        for watcher in self.watchers:
            watcher.offer(full, lite)


class WatchHub:
    """The games of one server (or one replay) and their watchers; use on one event loop.

    ``frames(record)`` computes a shot's frames when a game has watchers (None: never);
    ``blank_end`` is the rule the games are played with (for ``next_seat``).
    """

    enabled = True  # the GameRecorder interface: matches build their records for the hub

    def __init__(
        self,
        *,
        frames: FramesFn | None = frames_for_record,
        blank_end: str | None = "swap",
        max_games: int = MAX_GAMES,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.frames, self.blank_end, self.max_games = frames, blank_end, max_games
        self.info = dict(info or {"mode": "live"})
        self._games: OrderedDict[str, GameFeed] = OrderedDict()
        self._list_watchers: set[asyncio.Event] = set()

    # -- the GameRecorder interface ------------------------------------------------------------

    def write(self, record: dict[str, Any]) -> None:
        """Take one record; other types (``run``) and records of unknown games are ignored."""
        kind = record.get("type")
        if kind not in EVENT_TYPES:
            return
        if kind == "game_start":
            self._start(record)
            return
        feed = self._games.get(str(record.get("game_id")))
        if feed is None:
            return
        event = {k: v for k, v in record.items() if k != "frames"}
        frames = record.get("frames")
        summary = feed.summary
        if kind == "shot":
            event["next_seat"] = next_seat(record, feed.config)
            for key in ("shot_seed", "seed"):  # 64-bit: beyond JavaScript's exact integers
                if event.get(key) is not None:
                    event[key] = str(event[key])
            if frames is None and feed.watchers and self.frames is not None:
                frames = self._frames(record)
            summary.update(
                totals=list(record.get("scores") or summary["totals"]),
                end=record["end"], shots=summary["shots"] + 1,
            )  # fmt: skip
        elif kind == "game":
            summary.update(status=record.get("reason") or "finished", totals=record["totals"])
            summary["results"] = record.get("results")
        feed.add(event, frames)
        if kind in ("shot", "game"):
            self._touch()

    def flush(self) -> None:
        """Nothing to flush (the GameRecorder interface)."""

    def forget(self, unwanted: Callable[[dict[str, Any]], bool]) -> None:
        """Forget the games whose summary is ``unwanted``."""
        for feed in list(self._games.values()):
            if unwanted(feed.summary):
                del self._games[feed.id]

    def seal(self, status: str = "unfinished") -> None:
        """Mark the games still live as ``status`` (a records file that ends mid-game), and
        forget the games without a shot (a server stopped as the next game began)."""
        for feed in list(self._games.values()):
            if feed.live:
                feed.summary["status"] = status
            if feed.summary["shots"] == 0:
                del self._games[feed.id]

    def close(self) -> None:
        """Drop every watcher (the server stops)."""
        for feed in self._games.values():
            for watcher in feed.watchers:
                watcher.dropped = True
                watcher.wake.set()
        for wake in self._list_watchers:
            wake.set()

    # -- reading -------------------------------------------------------------------------------

    def games(self) -> list[dict[str, Any]]:
        """Summaries of the games, oldest first."""
        return [dict(feed.summary) for feed in self._games.values()]

    def game(self, game_id: str) -> GameFeed | None:
        return self._games.get(game_id)

    def watch(self, game_id: str, after: int = -1) -> tuple[Watcher, list[bytes]] | None:
        """Watch a game: a new watcher and the history after event ``after``; None if unknown."""
        feed = self._games.get(game_id)
        if feed is None:
            return None
        watcher = Watcher()
        feed.watchers.add(watcher)
        return watcher, feed.history[max(after + 1, 0) :]

    def unwatch(self, game_id: str, watcher: Watcher) -> None:
        feed = self._games.get(game_id)
        if feed is not None:
            feed.watchers.discard(watcher)

    def watch_list(self) -> asyncio.Event:
        """An event set whenever the list of games (or a score in it) changes."""
        wake = asyncio.Event()
        self._list_watchers.add(wake)
        return wake

    def unwatch_list(self, wake: asyncio.Event) -> None:
        self._list_watchers.discard(wake)

    # -- internals -----------------------------------------------------------------------------

    def _start(self, record: dict[str, Any]) -> None:
        feed = GameFeed(record, self.blank_end)
        old = self._games.pop(feed.id, None)
        if old is not None:
            for watcher in old.watchers:
                feed.watchers.add(watcher)
        self._games[feed.id] = feed
        feed.add({k: v for k, v in record.items() if k != "frames"}, None)
        while len(self._games) > self.max_games:
            oldest = next((g for g in self._games.values() if not g.live), None)
            if oldest is None:
                break
            del self._games[oldest.id]
        self._touch()

    def _frames(self, record: dict[str, Any]) -> dict[str, Any] | None:
        assert self.frames is not None
        try:
            return self.frames(record)
        except Exception as exc:  # a page without frames slides the stone; the game goes on
            shot, game = record.get("shot"), record.get("game_id")
            log.warning("no frames for shot %s of %s: %r", shot, game, exc)
            return None

    def _touch(self) -> None:
        for wake in self._list_watchers:
            wake.set()
