"""``DC3Server``: DC3's two TCP ports on asyncio, a thin shell around ``dc_protocol.dc3``
(``LineDecoder``, ``encode``) and ``DC3Game``.

Team 0 connects to ``ports[0]``, team 1 to ``ports[1]``, one connection each. A connection on a
port whose seat is taken (or while a game is being played) is closed at once with a warning.
Games are played one after another on the same ports: once a game is over and both connections
closed, the next game's seats open, until ``config.games`` games were played (then ``finished``
is set; 0: until stopped). ``on_new_game`` callbacks hear of each game whose seats open (the
first one at ``start``), on the loop's thread: how ``dc_seats`` seats our bots.

With ``config.http_port`` the watch page (``server.dc_watch``) is served on that port too: the
games' list, each game live from its ``StateFeed`` (``watch``, ``feeds`` by game id).
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import secrets
import uuid
from collections.abc import Callable

import numpy as np

from rllib_curling.dc_protocol import dc3
from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.errors import ServerStartError
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.game import DC3Game
from rllib_curling.server.dc_watch.feed import StateFeed
from rllib_curling.server.dc_watch.http import STREAM_PATH, WatchServer
from rllib_curling.server.dc_watch.page import WatchPage
from rllib_curling.server.listen import listen
from rllib_curling.server.records import RECORD_VERSION, GameRecorder

log = logging.getLogger("rllib_curling.server.dc3")

READ_CHUNK = 64 * 1024


class DC3Server:
    """Serves DC3 games on ``config.host`` and ``config.ports`` (module docstring);
    ``addresses`` once started, ``game`` (the current one), ``played``, ``finished``,
    ``on_new_game`` (called with each game whose seats open)."""

    def __init__(self, config: DC3ServerConfig) -> None:
        self.config = config
        self.seed = config.seed if config.seed is not None else secrets.randbits(63)
        self.rng = np.random.default_rng(self.seed)
        self.recorder = GameRecorder(config.log_dir)
        self.addresses: list[tuple[str, int]] = []
        self.game: DC3Game | None = None
        self.played = 0
        self.finished = asyncio.Event()
        self._servers: list[asyncio.base_events.Server] = []
        self._writers: list[asyncio.StreamWriter | None] = [None, None]
        self._tasks: set[asyncio.Task[None]] = set()
        self.feeds: dict[str, StateFeed] = {}
        self.watch: WatchServer | None = None
        if config.http_port is not None:
            summaries = lambda: [feed.summary() for feed in self.feeds.values()]  # noqa: E731
            page = WatchPage("live", summaries, title="DC3", stream=STREAM_PATH)
            self.watch = WatchServer(page, config.host, config.http_port, feeds=self.feeds.get)
        self.stopping = False  # set when stop() begins: clients' failures are expected then
        self.on_new_game: list[Callable[[DC3Game], None]] = []

    @property
    def ports(self) -> tuple[int, int]:
        assert len(self.addresses) == 2, "not started"
        return self.addresses[0][1], self.addresses[1][1]

    async def start(self) -> list[tuple[str, int]]:
        """Bind and listen on both ports; ``ServerStartError`` when one is taken."""
        host = self.config.host
        for team, port in enumerate(self.config.ports):
            try:
                server, address = await listen(
                    functools.partial(self._on_connect, team), host, port,
                    what=f"{TEAMS[team]}'s port", option=f"--port{team}",
                )  # fmt: skip
            except ServerStartError:
                for s in self._servers:
                    s.close()
                raise
            self._servers.append(server)
            self.addresses.append(address)
        if self.watch is not None:
            try:
                await self.watch.start()
            except ServerStartError:
                for s in self._servers:
                    s.close()
                raise
        self.recorder.write({
            "type": "run", "version": RECORD_VERSION, "protocol": "dc3",
            "run_id": self.recorder.run_id, "seed": self.seed,
            "address": [list(a) for a in self.addresses],
        })  # fmt: skip
        self._new_game()
        return self.addresses

    async def stop(self) -> None:
        """Stop listening, close both connections and the game's timers, close the records."""
        self.stopping = True
        for server in self._servers:
            server.close()
        if self.watch is not None:
            await self.watch.stop()
        if self.game is not None:
            self.game.close()
        for team in (0, 1):
            self.close(team)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.recorder.close()

    # -- the game's outbox ---------------------------------------------------------------------

    def send(self, team: int, data: bytes) -> None:
        writer = self._writers[team]
        if writer is not None and not writer.is_closing():
            writer.write(data)

    def close(self, team: int) -> None:
        writer, self._writers[team] = self._writers[team], None
        if writer is not None:
            writer.close()  # what was written is flushed first

    # -- connections ---------------------------------------------------------------------------

    def _new_game(self) -> None:
        now = datetime.datetime.now(datetime.timezone.utc).astimezone()
        game_id = str(uuid.uuid4())
        feed = None
        if self.watch is not None:
            feed = self.feeds[game_id] = StateFeed(game_id, self.config.ends)
        self.game = DC3Game(
            game_id,
            now.isoformat(timespec="seconds"),
            self.config.game_config(),
            np.random.default_rng(int(self.rng.integers(2**63))),
            self.recorder,
            self,
            dc_ok_timeout=self.config.dc_ok_timeout,
            viewer=feed,
        )
        for callback in self.on_new_game:
            callback(self.game)

    async def _on_connect(
        self, team: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        game = self.game
        if game is None or not game.seat_free(team) or self._writers[team] is not None:
            log.warning("DC3: a connection on %s's port while its seat is taken: closed",
                        TEAMS[team])  # fmt: skip
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers[team] = writer
        decoder = dc3.LineDecoder()
        try:
            game.connect(team)
            while self._writers[team] is writer:
                data = await reader.read(READ_CHUNK)
                items = decoder.feed(data) if data else decoder.flush()
                for item in items:
                    if self._writers[team] is writer:
                        game.receive(team, item)
                if not data:
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)
            if self._writers[team] is writer:
                self._writers[team] = None
                writer.close()
                game.disconnected(team)
            self._after(game)

    def _after(self, game: DC3Game) -> None:
        """Once the game is over and both connections closed: the next game, or finished."""
        if game is not self.game or not game.is_over or any(w is not None for w in self._writers):
            return
        self.played += 1
        if self.config.games and self.played >= self.config.games:
            self.game = None  # no more seats
            self.finished.set()
        else:
            self._new_game()
