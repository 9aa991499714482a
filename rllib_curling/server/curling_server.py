"""The listener and the seats of the curling server (``CurlingServer``); see ``server``.

A new connection has ``legacy_wait`` seconds to send CONNECTKEY (else it is seated as a legacy
client). With ``keys`` configured its key is checked through a per-address ``KeyThrottle``. The
key decides where it goes:

- ``:0`` … ``:8`` (or the server's ``opponent``): a match against that built-in bot, at once,
  whatever else the server is doing (up to ``max_matches`` matches at a time);
- no suffix: the **lobby**, two seats for two clients who play each other; one such match at a
  time, as on the platform (a connection that finds no free lobby seat waits up to
  ``SEAT_WAIT_S`` for one, then gets ``Error …``). A ready client left waiting there for an
  opponent is named on the console, with why (``console.lobby_line``), and every game that
  ends gets a console line (``console.game_line``).

**Rooms**: with ``ports`` > 1 the server listens on several ports, and each port is a room of
its own, as if it were a separate server: its own lobby, its own match numbering and its own
seed (room ``i`` uses ``seed + i``, so room 0 is the server with one port). An env runner's envs
each get their own port on one server process this way (``env.vector``).

Every seated client is readied at once: seat announced (NAME, CONNECTNAME), ``ISREADY``, and it
has ``ready_timeout`` seconds to answer ``READYOK`` (then ``Error …`` and close). A lobby pair
starts when both seats are ready, so a silent or slow connection holds a seat for at most
``legacy_wait + ready_timeout`` and never locks anyone else out. Every path that does not hand
a connection to a match closes it (no half-open sockets are left behind).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from rllib_curling import protocol as p
from rllib_curling.bots.levels import LEVELS, is_level
from rllib_curling.errors import ServerStartError
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.connection import Connection, SeatLost
from rllib_curling.server.console import CONSOLE, game_line, lobby_line, refused_line
from rllib_curling.server.listen import listen
from rllib_curling.server.match import Match
from rllib_curling.server.people import AgentFactory, PeopleDesk, PersonPlayer
from rllib_curling.server.players import BotPlayer, Player, RemotePlayer, ready_client
from rllib_curling.server.records import RECORD_VERSION, GameRecorder
from rllib_curling.server.throttle import KeyThrottle
from rllib_curling.server.web import TeeRecorder, WatchHub, WebServer

log = logging.getLogger("rllib_curling.server")

#: A connection that finds no free seat waits this long for one, then is refused.
SEAT_WAIT_S = 3.0


@dataclass(eq=False)
class Room:
    """One listening port: a lobby, a match numbering and a seed of its own (module docstring)."""

    index: int
    seed: int
    address: tuple[str, int] | None = None
    matches_started: int = 0
    games_ended: int = 0  # numbers the console's game lines (``console``)
    listener: asyncio.base_events.Server | None = None
    lobby: dict[int, Connection | PersonPlayer] = field(default_factory=dict)  # seat -> waiting
    lobby_ready: dict[Connection | PersonPlayer, asyncio.Future[bool]] = field(
        default_factory=dict
    )  # True: paired
    pair_match: Match | None = None  # the two-client match (one at a time per room)


class CurlingServer:
    """The listener and the seats. Use ``start()`` / ``stop()`` inside a running event loop."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        agents: dict[str, AgentFactory] | None = None,
        play_key: str | None = None,
    ) -> None:
        self.config = config
        self.seed = config.seed if config.seed is not None else secrets.randbits(63)
        self.recorder = GameRecorder(config.log_dir)
        self.rooms = [Room(i, self.seed + i) for i in range(config.ports)]
        self._matches: dict[Match, asyncio.Task[None]] = {}
        self._seats_freed = asyncio.Event()
        self._handlers: set[asyncio.Task[None]] = set()
        self._keys = KeyThrottle()
        #: The page (``--http-port``): every match also writes its records to the hub.
        self.hub = WatchHub(blank_end=config.blank_end) if config.http_port is not None else None
        self.web: WebServer | None = None
        #: Seats for people on the page (``server.people``): levels, and ``agents`` by name.
        self.desk = PeopleDesk(
            config, functools.partial(self._start_match, self.rooms[0]), agents=agents,
            play_key=play_key, throttle=self._keys, join_lobby=self._person_in_lobby,
        )  # fmt: skip

    @property
    def address(self) -> tuple[str, int] | None:
        """``(host, port)`` of the first room (the only one with ``ports=1``)."""
        return self.rooms[0].address

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """``(host, port)`` of every room, in order (once started)."""
        return [room.address for room in self.rooms if room.address is not None]

    @property
    def matches_started(self) -> int:
        return sum(room.matches_started for room in self.rooms)

    async def start(self) -> list[tuple[str, int]]:
        """Bind and listen on every room's port; raises ``ServerStartError`` (e.g. port in
        use). Returns ``addresses``."""
        host = self.config.host
        try:
            for room in self.rooms:
                await self._listen(room, host)
            if self.hub is not None:  # one page for every room
                self.web = WebServer(self.hub, host, self.config.http_port or 0, desk=self.desk)
                await self.web.start()
        except ServerStartError:
            self._close_listeners()
            raise
        self.recorder.write(
            {
                "type": "run", "version": RECORD_VERSION, "run_id": self.recorder.run_id,
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "seed": self.seed, "address": list(self.rooms[0].address or ()),
                **({"addresses": [list(a) for a in self.addresses]} if len(self.rooms) > 1 else {}),
                "config": self.config.as_dict(),
            }
        )  # fmt: skip
        ports = " ".join(str(port) for _, port in self.addresses)
        log.info("listening on %s port(s) %s (seed %d)", host, ports, self.seed)
        return self.addresses

    async def _listen(self, room: Room, host: str) -> None:
        port = self.config.tcp_port + room.index if self.config.tcp_port else 0
        room.listener, room.address = await listen(
            functools.partial(self._on_connect, room), host, port, what="TCP port",
            option="--tcp-port",
        )  # fmt: skip

    def _close_listeners(self) -> None:
        for room in self.rooms:
            if room.listener is not None:
                room.listener.close()

    async def stop(self) -> None:
        """Stop listening, end the running matches (their seats get the 5 empties), close all."""
        self._close_listeners()
        tasks = list(self._matches.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self.web is not None:
            await self.web.stop()
        self.recorder.close()

    # -- connections and seats -----------------------------------------------------------------

    async def _on_connect(
        self, room: Room, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        conn = Connection(reader, writer, gap=self.config.compat_gap)
        handed_over = False
        try:
            conn.start()
            log.info("%r connected", conn)
            conn.accept(p.ConnectKey)
            msg = await conn.receive(self.config.legacy_wait)
            conn.accept()
            key = msg.key if isinstance(msg, p.ConnectKey) else None
            if key is None:  # a 2020-era client: it reads one message per recv
                conn.gap = max(conn.gap, self.config.legacy_gap)
            handed_over = await self._seat(room, conn, key)
        except SeatLost:
            log.info("%r left before its match", conn)
        except asyncio.CancelledError:  # the server stops: a seated client gets the 5 empties.
            # Not re-raised: asyncio (3.11) reports a cancelled connection handler as an error.
            await conn.close(empties=conn.seat is not None)
        except Exception:  # a handler must never take the server down
            log.exception("%r: error while seating", conn)
        finally:
            self._handlers.discard(task)
            if not handed_over:
                await conn.close(empties=False)

    async def _seat(self, room: Room, conn: Connection, key: str | None) -> bool:
        """Seat ``conn``; True once a match owns it (else the caller closes it)."""
        base, level = p.split_key(key) if key is not None else (None, None)
        if self.config.keys:
            ok = await self._keys.check(conn.host, base in self.config.keys)
            if ok is None:
                await self._refuse(conn, "too many connection attempts; try again later")
                return False
            if not ok:
                what = "no CONNECTKEY" if key is None else "wrong key"
                await self._refuse(conn, f"{what}; this server needs its connection key")
                return False
        if level is not None and not is_level(level):
            await self._refuse(
                conn, f"no built-in AI {level}; allowed suffixes :{LEVELS[0]} .. :{LEVELS[-1]}"
            )
            return False
        if level is None:
            level = self.config.opponent
        if level is not None:
            return await self._seat_against_bot(room, conn, level)
        return await self._seat_in_lobby(room, conn, legacy=key is None)

    async def _wait_until(self, conn: Connection, free: Callable[[], bool]) -> bool:
        """Wait up to ``SEAT_WAIT_S`` until ``free()``; False on timeout or when ``conn`` left."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SEAT_WAIT_S
        while not free():
            remaining = deadline - loop.time()
            if remaining <= 0 or conn.closed:
                return False
            self._seats_freed.clear()
            try:
                await asyncio.wait_for(self._seats_freed.wait(), min(remaining, 0.5))
            except TimeoutError:
                pass
        return not conn.closed

    def _room_for_a_match(self) -> bool:
        limit = self.config.max_matches  # set by ServerConfig from the ports when None
        return limit is None or len(self._matches) < limit

    async def _refuse(self, conn: Connection, why: str) -> None:
        CONSOLE.info(refused_line(_who(conn), why))  # console: a plain line, not only with -v
        log.debug("%r refused: %s", conn, why)
        await conn.close(empties=False, error=why)

    def _announce_seat(self, conn: Connection, seat: int) -> None:
        conn.seat = seat
        conn.send(p.Name(seat))
        conn.send(p.ConnectName(seat))
        log.info("%r seated", conn)

    async def _ready(
        self, conn: Connection, before_refusing: Callable[[], None] | None = None
    ) -> bool:
        """ISREADY and the READYOK within ``ready_timeout``; refuses the client without one
        (``before_refusing`` first: what it held is free once it sees the connection close)."""
        if await ready_client(conn, self.config.ready_timeout):
            return True
        if before_refusing is not None:
            before_refusing()
        await self._refuse(conn, f"no READYOK within {self.config.ready_timeout:g} s of ISREADY")
        return False

    async def _seat_against_bot(self, room: Room, conn: Connection, level: int) -> bool:
        if not await self._wait_until(conn, self._room_for_a_match):
            await self._refuse(
                conn, f"server busy: {len(self._matches)} matches in progress; try again later"
            )
            return False
        bot_seat = self.config.bot_seat
        try:
            bot = BotPlayer(level, seat=bot_seat)
        except Exception as exc:
            log.exception("cannot create built-in AI %d", level)
            await self._refuse(conn, f"built-in AI {level} is not available ({exc})")
            return False
        self._announce_seat(conn, 1 - bot_seat)
        if not await self._ready(conn):
            return False
        remote = RemotePlayer(conn, 1 - bot_seat, debug=level == 0)
        return self._start_match(room, [bot, remote] if bot_seat == 0 else [remote, bot])

    def _lobby_open(self, room: Room) -> bool:
        return room.pair_match is None and len(room.lobby) < 2 and self._room_for_a_match()

    async def _seat_in_lobby(self, room: Room, conn: Connection, *, legacy: bool) -> bool:
        if not await self._wait_until(conn, functools.partial(self._lobby_open, room)):
            await self._refuse(conn, "no free seat: a match is in progress on this server")
            return False
        seat = 0 if 0 not in room.lobby else 1
        room.lobby[seat] = conn
        paired = False
        try:
            self._announce_seat(conn, seat)
            leave = functools.partial(self._leave_lobby, room, seat, conn)
            if not await self._ready(conn, before_refusing=leave):
                return False
            partner: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            room.lobby_ready[conn] = partner

            def lost_partner() -> None:
                if not partner.done():
                    partner.set_result(False)

            conn.on_close = lost_partner
            self._pair_if_ready(room)
            if not partner.done():  # say who waits, and why (console: not only with -v)
                who = _who(conn)
                port = room.address[1] if room.address else self.config.tcp_port
                CONSOLE.info(lobby_line(port, who, seat, legacy=legacy))
            paired = await partner  # True once a match took both seats
            return paired
        finally:
            if not paired:
                self._leave_lobby(room, seat, conn)

    def _leave_lobby(self, room: Room, seat: int, conn: Connection) -> None:
        """Free ``conn``'s lobby seat (if it still holds it) for whoever waits."""
        if room.lobby.get(seat) is conn:
            del room.lobby[seat]
        room.lobby_ready.pop(conn, None)
        self._seats_freed.set()

    def _lobby_for_a_person(self) -> Room:
        """The lobby a person from the page joins: the first room where a client waits for an
        opponent (its port is the one the client chose), else the first room."""
        for room in self.rooms:
            if len(room.lobby) == 1 and self._lobby_open(room):
                return room
        return self.rooms[0]

    async def _person_in_lobby(self, person: PersonPlayer) -> bool:
        """Seat a person from the page in a lobby (``_lobby_for_a_person``), against the client
        waiting there or the next one that comes without a level (``server.people``); False
        when no lobby seat frees in time."""
        room = self._lobby_for_a_person()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SEAT_WAIT_S
        while not self._lobby_open(room):
            if loop.time() >= deadline:
                return False
            self._seats_freed.clear()
            try:
                await asyncio.wait_for(self._seats_freed.wait(), 0.5)
            except TimeoutError:
                pass
        seat = 0 if 0 not in room.lobby else 1
        room.lobby[seat] = person
        person.take_seat(seat)
        paired: asyncio.Future[bool] = loop.create_future()
        room.lobby_ready[person] = paired

        def left() -> None:  # resigned before an opponent came
            if room.lobby.get(person.seat) is person:
                del room.lobby[person.seat]
            room.lobby_ready.pop(person, None)
            self._seats_freed.set()

        person.on_leave = left
        self._pair_if_ready(room)
        if not paired.done():
            port = room.address[1] if room.address else self.config.tcp_port
            CONSOLE.info(lobby_line(port, f"{person.name} (on the page)", seat, legacy=False))
        return True

    def _pair_if_ready(self, room: Room) -> None:
        """Start the room's two-seat match once both lobby seats are ready (two clients, or a
        client and a person on the page)."""
        waiting = [room.lobby.get(0), room.lobby.get(1)]
        if any(c is None or c not in room.lobby_ready or c.closed for c in waiting):
            return
        if not self._room_for_a_match():
            return  # the seats wait; a match that ends frees room (``_run_match``)
        a, b = waiting
        assert a is not None and b is not None
        futures = [room.lobby_ready.pop(a), room.lobby_ready.pop(b)]
        room.lobby = {}
        players: list[Player] = []
        for seat, who in enumerate((a, b)):
            if isinstance(who, Connection):
                who.on_close = None
                players.append(RemotePlayer(who, seat))
            else:
                who.on_leave = None
                players.append(who)
        started = self._start_match(room, players, pair=True)
        for future in futures:
            if not future.done():
                future.set_result(started)

    def _start_match(self, room: Room, players: list[Player], *, pair: bool = False) -> bool:
        """Create and run a match in ``room``; False (its clients are then closed by their
        handlers) when it cannot be created or the server plays ``max_matches`` already."""
        if not self._room_for_a_match():
            return False
        in_room = f"r{room.index}-" if len(self.rooms) > 1 else ""
        recorder = self.recorder if self.hub is None else TeeRecorder(self.recorder, self.hub)
        try:
            match = Match(
                players,
                config=self.config,
                recorder=recorder,
                match_index=room.matches_started,
                seed=room.seed,
                game_id_prefix=f"{self.recorder.run_id}-{in_room}",
                on_game=functools.partial(self._game_ended, room),
            )
        except Exception:
            log.exception("cannot start a match")
            return False
        room.matches_started += 1
        if pair:
            room.pair_match = match
        self._matches[match] = asyncio.get_running_loop().create_task(self._run_match(match))
        return True

    def _game_ended(self, room: Room, record: dict[str, Any], kinds: list[str]) -> None:
        """One console line per game that ends (``console.game_line``); none for a game a
        client left before it began (``match``: ``"left"``)."""
        if record["reason"] == "left":
            return
        room.games_ended += 1
        port = room.address[1] if room.address else self.config.tcp_port
        CONSOLE.info(game_line(room.games_ended, port, record, kinds))

    async def _run_match(self, match: Match) -> None:
        try:
            await match.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("match %d failed", match.match_index)
        finally:
            self._matches.pop(match, None)
            for room in self.rooms:
                if room.pair_match is match:
                    room.pair_match = None
            self._seats_freed.set()
            for room in self.rooms:
                self._pair_if_ready(room)


def _who(conn: Connection) -> str:
    """A client as the console lines name it: its team name (once it gave one) and address."""
    return f"{conn.team_name} ({conn.peer})" if conn.team_name else conn.peer
