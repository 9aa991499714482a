"""The listener and the seats of the curling server (``CurlingServer``); see ``server``.

One pair plays at a time. A new connection has ``legacy_wait`` seconds to send CONNECTKEY (else
it is seated as a legacy client); its key decides: ``:0`` … ``:8`` (or ``opponent``) seat a bot
against it at once, without a suffix it waits in the lobby for a second client. When no seat is
free it waits up to ``SEAT_WAIT_S`` for the running match to end, then gets ``Error …``.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timezone

from rllib_curling import protocol as p
from rllib_curling.bots.levels import LEVELS, is_level
from rllib_curling.errors import ServerStartError
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.connection import Connection, SeatLost
from rllib_curling.server.match import Match
from rllib_curling.server.players import BotPlayer, Player, RemotePlayer
from rllib_curling.server.records import RECORD_VERSION, GameRecorder

log = logging.getLogger("rllib_curling.server")

#: A connection that finds both seats taken waits this long for them to free, then is refused.
SEAT_WAIT_S = 3.0


class CurlingServer:
    """The listener and the seats. Use ``start()`` / ``stop()`` inside a running event loop."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.seed = config.seed if config.seed is not None else secrets.randbits(63)
        self.recorder = GameRecorder(config.log_dir)
        self.address: tuple[str, int] | None = None
        self.matches_started = 0
        self._server: asyncio.base_events.Server | None = None
        self._lobby: dict[int, Connection] = {}
        self._match: Match | None = None
        self._match_task: asyncio.Task[None] | None = None
        self._seats_freed = asyncio.Event()
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self) -> tuple[str, int]:
        """Bind and listen; raises ``ServerStartError`` (e.g. port in use)."""
        host, port = self.config.host, self.config.tcp_port
        try:
            self._server = await asyncio.start_server(self._on_connect, host, port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServerStartError(f"TCP port {port} on {host} is already in use") from None
            raise ServerStartError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}"
            ) from None
        sockname = self._server.sockets[0].getsockname()
        self.address = (str(sockname[0]), int(sockname[1]))
        self.recorder.write(
            {
                "type": "run", "version": RECORD_VERSION, "run_id": self.recorder.run_id,
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "seed": self.seed, "address": list(self.address), "config": self.config.as_dict(),
            }
        )  # fmt: skip
        log.info("listening on %s:%d (seed %d)", *self.address, self.seed)
        return self.address

    async def stop(self) -> None:
        """Stop listening, end the running match (its seats get the 5 empties), close all."""
        if self._server is not None:
            self._server.close()
        if self._match_task is not None and not self._match_task.done():
            self._match_task.cancel()
            await asyncio.gather(self._match_task, return_exceptions=True)
        for conn in list(self._lobby.values()):
            await conn.close(empties=True)
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        self.recorder.close()

    # -- connections and seats -----------------------------------------------------------------

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        conn = Connection(reader, writer, gap=self.config.compat_gap)
        try:
            conn.start()
            log.info("%r connected", conn)
            conn.accept(p.ConnectKey)
            msg = await conn.receive(self.config.legacy_wait)
            conn.accept()
            key = msg.key if isinstance(msg, p.ConnectKey) else None
            if key is None:  # a 2020-era client: it reads one message per recv
                conn.gap = max(conn.gap, self.config.legacy_gap)
            await self._seat(conn, key)
        except SeatLost:
            log.info("%r left before it was seated", conn)
            await conn.close(empties=False)
        except asyncio.CancelledError:
            await conn.close(empties=False)
            raise
        except Exception:  # a handler must never take the server down
            log.exception("%r: error while seating", conn)
            await conn.close(empties=False)
        finally:
            self._handlers.discard(task)

    async def _seat(self, conn: Connection, key: str | None) -> None:
        base, level = p.split_key(key) if key is not None else (None, None)
        if self.config.keys and base not in self.config.keys:
            what = "no CONNECTKEY" if key is None else "wrong key"
            await self._refuse(conn, f"{what}; this server needs its connection key")
            return
        if level is not None and not is_level(level):
            await self._refuse(
                conn, f"no built-in AI {level}; allowed suffixes :{LEVELS[0]} .. :{LEVELS[-1]}"
            )
            return
        if level is None:
            level = self.config.opponent
        if not await self._wait_for_seat(level is not None):
            await self._refuse(conn, "no free seat: a match is in progress on this server")
            return
        if conn.closed:
            return
        if level is not None:
            self._seat_against_bot(conn, level)
        else:
            self._seat_in_lobby(conn)

    async def _wait_for_seat(self, needs_both: bool) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SEAT_WAIT_S
        while self._match is not None or len(self._lobby) >= (1 if needs_both else 2):
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._seats_freed.clear()
            try:
                await asyncio.wait_for(self._seats_freed.wait(), remaining)
            except TimeoutError:
                return False
        return True

    async def _refuse(self, conn: Connection, why: str) -> None:
        log.warning("%r refused: %s", conn, why)
        await conn.close(empties=False, error=why)

    def _announce_seat(self, conn: Connection, seat: int) -> None:
        conn.seat = seat
        conn.send(p.Name(seat))
        conn.send(p.ConnectName(seat))
        log.info("%r seated", conn)

    def _seat_against_bot(self, conn: Connection, level: int) -> None:
        bot_seat = self.config.bot_seat
        try:
            bot = BotPlayer(level, seat=bot_seat)
        except Exception as exc:
            log.exception("cannot create built-in AI %d", level)
            asyncio.get_running_loop().create_task(
                self._refuse(conn, f"built-in AI {level} is not available ({exc})")
            )
            return
        self._announce_seat(conn, 1 - bot_seat)
        remote = RemotePlayer(conn, 1 - bot_seat, debug=level == 0)
        self._start_match([bot, remote] if bot_seat == 0 else [remote, bot])

    def _seat_in_lobby(self, conn: Connection) -> None:
        seat = 0 if 0 not in self._lobby else 1
        self._lobby[seat] = conn
        conn.on_close = self._lobby_leaver(seat, conn)
        self._announce_seat(conn, seat)
        if len(self._lobby) == 2:
            conns, self._lobby = self._lobby, {}
            self._start_match([RemotePlayer(conns[0], 0), RemotePlayer(conns[1], 1)])

    def _lobby_leaver(self, seat: int, conn: Connection) -> Callable[[], None]:
        def leave() -> None:
            if self._lobby.get(seat) is conn:
                del self._lobby[seat]
                log.info("%r left before its match", conn)
                self._seats_freed.set()

        return leave

    def _start_match(self, players: list[Player]) -> None:
        try:
            match = Match(
                players,
                config=self.config,
                recorder=self.recorder,
                match_index=self.matches_started,
                seed=self.seed,
                game_id_prefix=f"{self.recorder.run_id}-",
            )
        except Exception:
            log.exception("cannot start a match")
            for player in players:
                if isinstance(player, RemotePlayer):
                    asyncio.get_running_loop().create_task(player.close())
            return
        self.matches_started += 1
        self._match = match
        self._match_task = asyncio.get_running_loop().create_task(self._run_match(match))

    async def _run_match(self, match: Match) -> None:
        try:
            await match.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("match %d failed", match.match_index)
        finally:
            if self._match is match:
                self._match = None
            self._seats_freed.set()
