"""Seats for people: a person plays on the page (``curling server --http-port``) against a
built-in level, an agent the server was given (``curling server --agent builtin``), or from a
seat of the lobby against the next TCP client that comes without a level (``"lobby"``).

``PeopleDesk`` is the server's ``web.desk.Desk``: the page takes a seat with the server's
connection key (one of ``--keys``; without ``--keys``, the play key the server prints with its
page's address, ``?key=…``), checked through the same per-address throttle as TCP keys. The
answer holds the seat's **token**, a secret only that page holds; every later call names it.

``PersonPlayer`` is the seat in the match (a ``players.Player``, played as any other seat):
at its turn it waits for the page's throw (``turn_timeout``; lost turns count and
forfeit as a client's do); then its stone runs in real time (``RunningStone``: the seat's state
carries its path up to the far hog line and the seconds since the throw, so the page draws it
at true speed in step with the server), and while it runs from mid-sheet to the far hog line
the seat waits for the page's SWEEP (a distance, 0 = none: the page offers a button held or a
number; none on a server started with ``--sweep-window-ms 0``); a SWEEP before the stone
reaches mid-sheet is refused (409) with the seconds still to go. After a centre-line violation
against it, it waits for its choice, and the seat's state carries the foul (the shot's index and
the position as it lies), so the page draws that position before it offers KEEP or RESET. The
match, its records, its watchers and replays are those of any game.

Bad calls are refused with a one-line reason (``web.desk.SeatRefused``) and the game goes on:
an unknown token (404), a throw out of turn (409), numbers that are not finite (400), more than
``MAX_CALLS_PER_S`` calls a second on one seat (429).
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling import protocol as p
from rllib_curling import sheet
from rllib_curling.bots.base import Bot
from rllib_curling.bots.levels import LEVELS, is_level
from rllib_curling.game import GameState, Transition
from rllib_curling.physics.ice import PLATFORM
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.connection import SeatLost
from rllib_curling.server.players import BotPlayer, Choice, LeaveHook, LostCheck, Player
from rllib_curling.server.records import position_list
from rllib_curling.server.throttle import KeyThrottle
from rllib_curling.server.web.desk import SeatRefused

log = logging.getLogger("rllib_curling.server")

#: Ticks between the points of a person's running stone (``RunningStone.path``): 0.05 s.
PATH_STRIDE = 5
#: Calls a second one seat may make (floods are refused with 429, the game goes on).
MAX_CALLS_PER_S = 20
#: Seats a finished match keeps answering for (the page reads the result), seconds.
KEEP_FINISHED_S = 600.0
#: Longest team name a person may give.
MAX_NAME = 32

#: ``() -> Bot``: makes an agent's in-process player (``curling server --agent``).
AgentFactory = Callable[[], Bot]


@dataclass(frozen=True)
class RunningStone:
    """A person's stone as it runs, drawn by the page in step with the server (``of``).

    | field  | meaning                                                                       |
    |--------|-------------------------------------------------------------------------------|
    | path   | (T, 2) x, y of the thrown stone every ``dt`` seconds from the release, up to   |
    |        | the far hog line (``sheet.FAR_HOG_Y``) and never beyond it (the page must not  |
    |        | learn where the stone stops), or to its rest when it stops short of the line  |
    | dt     | seconds between two points                                                    |
    | opens  | seconds from the release to the first point past mid-sheet                     |
    |        | (``sheet.MIDSHEET_Y``): the sweep window opens                                |
    | closes | seconds from the release to the last point: the sweep window closes            |
    """

    path: np.ndarray
    dt: float
    opens: float
    closes: float

    @classmethod
    def of(cls, path: np.ndarray, dt: float) -> RunningStone:
        """From the thrown stone's unswept path ((T, 2) every ``dt`` s from the release)."""
        path = np.asarray(path, dtype=np.float64)
        beyond = np.flatnonzero(path[:, 1] < sheet.FAR_HOG_Y)  # also (0, 0): out of play
        cut = path[: max(1, int(beyond[0]) if len(beyond) else len(path))]
        past_mid = np.flatnonzero(cut[:, 1] <= sheet.MIDSHEET_Y)
        last = len(cut) - 1
        opens = int(past_mid[0]) if len(past_mid) else last
        return cls(cut, dt, opens * dt, last * dt)

    def as_json(self, elapsed: float) -> dict[str, Any]:
        """What the page is told, with the seconds ``elapsed`` since the release."""
        return {
            "path": np.round(self.path, 3).tolist(), "dt": self.dt,
            "opens": self.opens, "closes": self.closes, "elapsed": elapsed,
        }  # fmt: skip


class PersonPlayer(Player):
    """A person's seat, played through the page (module docstring)."""

    #: The match gives ``sweep`` the thrown stone's path, a point every this many ticks.
    path_stride = PATH_STRIDE

    def __init__(self, name: str, seat: int, token: str, *, lobby: bool = False) -> None:
        self._name, self.seat, self.token = name, seat, token
        self.lobby = lobby  # seated in the lobby (against the next TCP client), not a bot
        self.missed_turns = 0
        self.game_id: str | None = None
        self.match_over = False
        self.resigned = False
        #: What the seat waits for from the page: "throw", "sweep", "centerline" or None.
        self.waiting: str | None = None
        self.deadline: float | None = None  # loop time
        self.mid: list[float] | None = None  # the running stone at mid-sheet (MOTIONINFO)
        self.running: RunningStone | None = None  # the stone thrown, while it runs
        self.thrown_at = 0.0  # loop time of its release
        self.next_shot = (0, 0)  # (index of the shot in the game, its stone) at the turn
        #: While it waits for a centre-line choice: the opponent's shot that fouled (``index`` in
        #: the game, ``position`` as it lies, the end's ``first_seat``), for the page to draw.
        self.foul: dict[str, Any] | None = None
        self._answer: asyncio.Future[Any] | None = None
        self._calls: list[float] = []
        #: Called when the person resigns (the match ends the game as for a client that left).
        self.on_leave: Callable[[], None] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> str:
        return "person"

    @property
    def closed(self) -> bool:
        """Gone from the seat (resigned, or its match over): what the lobby asks of a seat."""
        return self.resigned or self.match_over

    @property
    def left_as(self) -> str:
        return "resign" if self.resigned else "disconnect"

    # -- what the match calls (``Player``; the page reads the game's events, not messages) ------

    def watch(self, left: LeaveHook | None, lost: LostCheck | None) -> None:
        self.on_leave = left

    def start_game(self, game_id: str) -> None:
        self.game_id = game_id

    async def choose(self, state: GameState, *, timeout: float, rng: np.random.Generator) -> Choice:
        """Wait up to ``timeout`` seconds for the page's throw ``(v, h, w)``; else the turn is
        lost (``throw`` None)."""
        self.next_shot = (sheet.STONES_PER_END * state.end + state.shot, state.shot)
        throw = await self._wait("throw", timeout)
        if self.resigned:
            raise SeatLost(self.seat)
        if throw is None:
            self.missed_turns += 1
            log.warning("person %r: no throw within %.0f s; the stone is lost", self.name, timeout)
            return Choice(state, None)
        self.missed_turns = 0
        return Choice(state, throw)

    async def sweep(self, mid: np.ndarray, window: float, path: np.ndarray | None = None) -> float:
        """The page's SWEEP distance (0 = none), waited for in real time while the stone runs
        from mid-sheet to the far hog line (``RunningStone``; ``path``: its unswept path, a
        point every ``path_stride`` ticks); a server that waits for no SWEEP (``sweep_window``
        0) offers none."""
        if window <= 0 or path is None:
            return 0.0
        run = RunningStone.of(path, self.path_stride * PLATFORM.dt)
        self.running, self.thrown_at = run, asyncio.get_running_loop().time()
        self.mid = [float(v) for v in mid[:5]]
        try:
            await self._wait(None, run.opens)  # to mid-sheet: nothing to answer yet
            while not self.closed and (early := run.opens - self.elapsed()) > 0:
                await asyncio.sleep(early)  # asyncio may wake one clock tick early (Windows)
            if self.closed:
                return 0.0
            distance = await self._wait("sweep", run.closes - run.opens)
        finally:
            self.mid = self.running = None
        return float(distance or 0.0)

    async def centerline_choice(self, transition: Transition, timeout: float) -> str:
        """The page's KEEP or RESET (KEEP after ``timeout``), the foul shown to it meanwhile."""
        before = transition.before
        self.foul = {
            "index": sheet.STONES_PER_END * before.end + before.shot,
            "position": position_list(transition.state.position),
            "first_seat": before.first_seat,
        }
        try:
            choice = await self._wait("centerline", timeout)
        finally:
            self.foul = None
        return choice if choice in p.CENTERLINE_CHOICES else "KEEP"

    async def close(self, *, empties: bool = True) -> None:
        self.match_over = True
        self._cancel()

    def resign(self) -> None:
        """Leave the match: the game ends as for a client that left (the opponent wins)."""
        if self.resigned or self.match_over:
            return
        self.resigned = True
        if self.on_leave is not None:
            self.on_leave()
        self._cancel()

    # -- what the page calls (through the desk) ------------------------------------------------

    def answer(self, what: str, value: Any) -> None:
        """The page's answer to what the seat waits for; ``SeatRefused`` (409) otherwise."""
        to_go = self.running.opens - self.elapsed() if self.running is not None else 0.0
        if what == "sweep" and self.waiting is None and to_go > 0:
            raise SeatRefused(409, f"the stone reaches mid-sheet in {to_go:.1f} s: sweep then")
        if self.waiting != what or self._answer is None or self._answer.done():
            now = self.waiting or "nothing (not this seat's turn)"
            raise SeatRefused(409, f"this seat waits for {now}, not a {what}")
        self._answer.set_result(value)
        self.waiting = self.deadline = None  # taken: the reply says so

    def count_call(self, now: float) -> None:
        """Refuse (429) more than ``MAX_CALLS_PER_S`` calls in the last second."""
        self._calls = [t for t in self._calls if now - t < 1.0]
        if len(self._calls) >= MAX_CALLS_PER_S:
            raise SeatRefused(429, f"more than {MAX_CALLS_PER_S} calls a second on this seat")
        self._calls.append(now)

    def elapsed(self) -> float:
        """Seconds since the running stone's release (loop time)."""
        return asyncio.get_running_loop().time() - self.thrown_at

    def running_state(self) -> dict[str, Any] | None:
        """The running stone for the page (``RunningStone.as_json``, with the shot's index in
        the game and its stone), or None."""
        if self.running is None:
            return None
        index, stone = self.next_shot
        return {"index": index, "stone": stone, **self.running.as_json(self.elapsed())}

    # -- internals -----------------------------------------------------------------------------

    async def _wait(self, what: str | None, timeout: float | None) -> Any:
        """Wait up to ``timeout`` seconds for the page's ``what`` (None: nothing it may answer,
        a pause that resigning ends)."""
        loop = asyncio.get_running_loop()
        if self.resigned:
            return None
        self._answer = loop.create_future()
        self.waiting = what
        self.deadline = None if timeout is None or what is None else loop.time() + timeout
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except (TimeoutError, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError) and not self._answer.cancelled():
                raise
            return None
        finally:
            self.waiting = self.deadline = None
            self._answer = None

    def _cancel(self) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()


class PeopleDesk:
    """The server's seats for people (``web.desk.Desk``; module docstring).

    ``start_match(players)`` starts a match (False when the server is full); ``agents`` are the
    agents people may play, by name; ``play_key`` is the key taken when ``config.keys`` is empty.
    """

    def __init__(
        self,
        config: ServerConfig,
        start_match: Callable[[list[Any]], Any],
        *,
        agents: Mapping[str, AgentFactory] | None = None,
        play_key: str | None = None,
        throttle: KeyThrottle | None = None,
        clock: Callable[[], float] = time.monotonic,
        join_lobby: Callable[[PersonPlayer], Awaitable[bool]] | None = None,
    ) -> None:
        self.config, self._start_match = config, start_match
        self._join_lobby = join_lobby
        self.agents = dict(agents or {})
        self.play_key = play_key or secrets.token_urlsafe(9)
        self._throttle = throttle or KeyThrottle()
        self._clock = clock
        self._seats: dict[str, PersonPlayer] = {}
        self._finished: dict[str, float] = {}  # token -> when its match ended

    def options(self) -> dict[str, Any]:
        """What a person may play: the built-in levels (0, the debug robot, excepted), the
        agents by name, whether the lobby takes a person (against a TCP client), and the
        longest sweep in metres (``sheet.SWEEP_MAX``: the page's sweep controls stop there)."""
        return {"levels": [level for level in LEVELS if level > 0], "agents": sorted(self.agents),
                "lobby": self._join_lobby is not None, "sweep_max": sheet.SWEEP_MAX}  # fmt: skip

    async def open(self, peer: str, body: dict[str, Any]) -> dict[str, Any]:
        """A new seat against ``body["opponent"]`` (a level ``"3"`` or an agent's name), for
        the team ``body["name"]``, taken with ``body["key"]``."""
        key = body.get("key")
        keys = self.config.keys or (self.play_key,)
        ok = await self._throttle.check(peer, isinstance(key, str) and key in keys)
        if ok is None:
            raise SeatRefused(429, "too many attempts; try again later", "attempts")
        if not ok:
            raise SeatRefused(
                403, "wrong key: a seat needs this server's connection key", "wrongKey"
            )
        name = str(body.get("name") or "person").strip()[:MAX_NAME] or "person"
        self._forget_finished()
        token = secrets.token_urlsafe(16)
        bot_seat = self.config.bot_seat
        join = self._join_lobby if body.get("opponent") == "lobby" else None
        person = PersonPlayer(name, 1 - bot_seat, token, lobby=join is not None)
        if join is not None:
            if not await join(person):
                raise SeatRefused(
                    503, "no free lobby seat: a match is in progress; try later", "lobbyFull"
                )
            against = "the lobby"
        else:
            opponent = self._opponent(body.get("opponent"))
            players = [opponent(bot_seat), person]
            if not self._start_match(players if bot_seat == 0 else players[::-1]):
                raise SeatRefused(
                    503, "server busy: too many matches in progress; try later", "busy"
                )
            against = players[0].kind
        self._seats[token] = person
        log.info("person %r (%s) seated against %s", name, peer, against)
        return {"seat": token, **self.state(token)}

    def state(self, token: str) -> dict[str, Any]:
        """The seat: its game, seat number, what it waits for and the seconds left, the index
        in the game of the shot it throws at its turn (``shot_index``: the page waits until it
        has shown every shot before it), its stone while it runs (``running_state``) and the
        foul it is asked to answer (``foul``: ``PersonPlayer.foul``).
        ``in_lobby``: a lobby seat waiting for its TCP client (a seat against a level or an
        agent is never in the lobby: before its game starts, ``game_id`` is None)."""
        person = self._person(token)
        loop_time = asyncio.get_running_loop().time()
        left = None if person.deadline is None else max(0.0, person.deadline - loop_time)
        return {
            "name": person.name, "game_id": person.game_id, "player": person.seat,
            "waiting": person.waiting, "seconds_left": left, "mid": person.mid,
            "shot_index": person.next_shot[0], "running": person.running_state(),
            "foul": person.foul, "over": person.match_over,
            "in_lobby": person.lobby and person.game_id is None and not person.closed,
        }  # fmt: skip

    def act(self, token: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
        """``throw`` / ``sweep`` / ``centerline`` / ``resign`` for the seat ``token``."""
        person = self._person(token)
        person.count_call(self._clock())
        if action == "throw":
            person.answer("throw", tuple(_number(body, k) for k in ("v", "h", "w")))
        elif action == "sweep":
            distance = _number(body, "distance")
            if distance < 0:
                raise SeatRefused(400, f"distance must be >= 0 metres, got {distance}")
            person.answer("sweep", distance)
        elif action == "centerline":
            choice = body.get("choice")
            if choice not in p.CENTERLINE_CHOICES:
                raise SeatRefused(400, f"choice must be one of {list(p.CENTERLINE_CHOICES)}")
            person.answer("centerline", choice)
        elif action == "resign":
            person.resign()
        else:
            raise SeatRefused(404, f"no seat action {action!r}")
        return self.state(token)

    # -- internals -----------------------------------------------------------------------------

    def _opponent(self, value: Any) -> Callable[[int], BotPlayer]:
        text = str(value if value is not None else "").strip()
        if text.isdigit() and is_level(int(text)) and int(text) > 0:
            return lambda seat: BotPlayer(int(text), seat)
        if text in self.agents:
            factory = self.agents[text]
            return lambda seat: BotPlayer.of(factory(), seat, kind=f"agent:{text}")
        levels = f"{LEVELS[1]} .. {LEVELS[-1]}"
        agents = f"; agents: {', '.join(sorted(self.agents))}" if self.agents else ""
        raise SeatRefused(400, f"no opponent {text!r}: levels {levels}{agents}")

    def _person(self, token: str) -> PersonPlayer:
        person = self._seats.get(token) if isinstance(token, str) else None
        if person is None:
            raise SeatRefused(404, "no such seat (wrong token, or its game is long over)")
        return person

    def _forget_finished(self) -> None:
        now = self._clock()
        for token, person in list(self._seats.items()):
            if person.match_over and token not in self._finished:
                self._finished[token] = now
        for token, when in list(self._finished.items()):
            if now - when > KEEP_FINISHED_S:
                self._seats.pop(token, None)
                del self._finished[token]


def _number(body: dict[str, Any], key: str) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SeatRefused(400, f"{key} must be a finite number, got {value!r}")
    return float(value)
