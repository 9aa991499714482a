"""Our DC bots take a side on our own DC servers (``curling server --protocol dc3|dc4
--opponent N``).

A seated bot is our DC client (``dc_client``) playing a DC bot (``dc_bots.make_dc_bot``) against
the server over loopback, in a thread of its own, so it speaks the protocol like any other
client and the server treats it like one (clocks, records, faults).

- ``DC3Seats(bots).attach(server)``: for every game whose seats open (``DC3Server.on_new_game``),
  a ``DC3Client`` connects to the port of each team in ``bots`` (team → level) and plays it. Both
  teams may be bots: the server then plays bot against bot, game after game (``--games``).
- ``DC4Seats(bots).attach(server)``: for every match created (``DC4Server.on_created``), the side
  of each team in ``bots`` is reserved for the bot's user (``DC4Match.reserve``: whoever joins
  gets the other side, whichever side it asks for), and a ``DC4Client`` joins it and plays.
  With a users file the bot's user gets a random password (``DC4Server.add_user``).

``on_result(team, level, result)`` hears of each finished game (``dc_client.DCResult``);
``results`` keeps them. A bot whose game fails (the server stops, the other side vanishes) logs
one line (``rllib_curling.dc_seats``). ``close()`` waits for the bots' threads.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
from collections.abc import Callable, Mapping

from rllib_curling.dc_bots.base import DCBot
from rllib_curling.dc_bots.levels import check_dc_level, make_dc_bot
from rllib_curling.dc_client import DC3Client, DC4Client, DCResult
from rllib_curling.dc_client.dc4 import RULES
from rllib_curling.dc_protocol.dc3_state import TEAMS
from rllib_curling.errors import ConfigError
from rllib_curling.server.dc3.game import DC3Game
from rllib_curling.server.dc3.tcp import DC3Server
from rllib_curling.server.dc4.http import DC4Server
from rllib_curling.server.dc4.match import DC4Match

log = logging.getLogger("rllib_curling.dc_seats")

#: Seconds a seated bot waits for its server's next message: as long as the server may wait
#: for the other side (a DC4 stream pings every 10 s meanwhile; a DC3 seat is silent until both
#: teams have connected).
BOT_TIMEOUT = 7 * 24 * 3600.0

#: ``on_result(team, level, result)``.
ResultCallback = Callable[[int, int, DCResult], None]


def bot_name(level: int) -> str:
    """The team name a seated bot of ``level`` gives (DC3's ``dc_ok``, DC4's team config)."""
    return f"dc-level-{level}"


def loopback(host: str) -> str:
    """The address a bot on this machine reaches a server listening on ``host`` at."""
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


class _Seats:
    """What both seat keepers share: the bots by team, their threads, their results."""

    def __init__(
        self,
        bots: Mapping[int, int],
        on_result: ResultCallback | None = None,
        timeout: float = BOT_TIMEOUT,
    ) -> None:
        if not bots:
            raise ConfigError("seat at least one bot (team -> level)")
        for team in bots:
            if team not in (0, 1):
                raise ConfigError(f"a bot's team must be 0 or 1, got {team!r}")
        self.bots = {team: check_dc_level(level) for team, level in sorted(bots.items())}
        self.on_result = on_result
        self.timeout = float(timeout)
        self.results: list[tuple[int, DCResult]] = []  # (level, result), in finishing order
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closing = False

    def _spawn(
        self,
        name: str,
        play: Callable[[], DCResult],
        team: int,
        level: int,
        stopping: Callable[[], bool],
    ) -> None:
        def run() -> None:
            try:
                result = play()
            except Exception as exc:  # the bot's game failed; the server goes on
                if not (self._closing or stopping()):  # a server that stops ends every game
                    log.warning("%s (%s, level %d): %s", name, TEAMS[team], level, exc)
                return
            with self._lock:
                self.results.append((level, result))
            if self.on_result is not None:
                self.on_result(team, level, result)

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """After the server stopped: wait up to ``timeout`` s for the bots' threads to end."""
        self._closing = True
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)


class DC3Seats(_Seats):
    """Our DC bots in DC3 games (module docstring): ``bots`` maps team (0 throws first in end 0)
    to level."""

    def attach(self, server: DC3Server) -> None:
        """Seat the bots in every game of ``server`` from now on (call on its loop's thread,
        once it listens: ``runner.serve``'s ``on_listening``)."""
        server.on_new_game.append(lambda game: self._seat(server, game))
        if server.game is not None:
            self._seat(server, server.game)

    def _seat(self, server: DC3Server, game: DC3Game) -> None:
        host = loopback(server.config.host)
        for team, level in self.bots.items():
            client = DC3Client(host, server.ports[team], name=bot_name(level), timeout=self.timeout)
            play = functools.partial(client.play, make_dc_bot(level).choose)
            self._spawn(f"dc3-bot-{game.id[:8]}-{TEAMS[team]}", play, team, level,
                        lambda: server.stopping)  # fmt: skip


class DC4Seats(_Seats):
    """Our DC bots in DC4 matches (module docstring): ``bots`` maps team to level."""

    def __init__(
        self,
        bots: Mapping[int, int],
        on_result: ResultCallback | None = None,
        timeout: float = BOT_TIMEOUT,
    ) -> None:
        super().__init__(bots, on_result, timeout)
        self._password = secrets.token_urlsafe(16)

    @staticmethod
    def user(team: int, level: int) -> str:
        """The basic-auth user of the bot seated in ``team``."""
        return f"{bot_name(level)}-{TEAMS[team]}"

    def attach(self, server: DC4Server) -> None:
        """Seat the bots in every match created on ``server`` from now on (call on its loop's
        thread, once it listens)."""
        for team, level in self.bots.items():
            server.add_user(self.user(team, level), self._password)
        server.on_created.append(lambda match: self._seat(server, match))

    def _seat(self, server: DC4Server, match: DC4Match) -> None:
        assert server.address is not None
        host, port = loopback(server.config.host), server.address[1]
        rule = RULES[match.request.applied_rule]
        for team, level in self.bots.items():
            user = self.user(team, level)
            match.reserve(team, user)
            client = DC4Client(host, port, user=user, password=self._password,
                               name=bot_name(level), timeout=self.timeout)  # fmt: skip
            bot = make_dc_bot(level)

            def play(c: DC4Client = client, b: DCBot = bot, t: int = team) -> DCResult:
                c.join(match.id, TEAMS[t])
                return c.play(match.id, b.choose, rule)

            self._spawn(f"dc4-bot-{match.id[:8]}-{TEAMS[team]}", play, team, level,
                        lambda: server.stopping)  # fmt: skip
