"""``Player``, the one interface of a match's seat, and two kinds of seat: a remote client
(``RemotePlayer``) and a built-in bot or an agent answering in-process (``BotPlayer``); the
third, a person on the page, is ``server.people``'s ``PersonPlayer``. The match
(``server.match``) plays them alike, through ``Player`` only:

- ``ready()``: bot: build its tables (remote clients are readied when seated: ``ready_client``).
- ``choose(state, timeout=, rng=) -> Choice``: remote: GO, then BESTSHOT within ``timeout``
  (debug mode: no limit, RESET* meanwhile); person: the page's throw within ``timeout``;
  bot: ``bot.choose`` with ``rng`` (the search bots, levels 5-8, in a worker thread).
- ``sweep(mid, window, path)``: remote: MOTIONINFO, then SWEEP within the window, which is
  offered by the sweep rule (``RemotePlayer.sweep_window``; no window: MOTIONINFO alone);
  person: the page's SWEEP while the stone runs from mid-sheet to the hog line in real time
  (``path``: the stone's path, given to a seat whose ``path_stride`` asks for it); bot: none
  (its throw carries the sweep).
- ``start_game(game_id)``: the game about to start (a person's page watches it).
- ``centerline_choice(t)``: remote: CENTERLINE_VIOLATION, then the choice (KEEP on timeout);
  person: the page's choice; bot: ``bot.centerline_choice``.
- ``send(msg)`` / ``send_bytes(data)``: protocol messages, which only a client reads.
- ``watch(left, lost)``, ``wake()``, ``closed``: how the match learns that a seat left, and
  makes a seat waiting for its client notice that the other one did.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling import protocol as p
from rllib_curling import sheet
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.bots import make_bot
from rllib_curling.game import GameState, Transition
from rllib_curling.rules import remove_out_of_play
from rllib_curling.server.connection import Connection

log = logging.getLogger("rllib_curling.server")

#: After READYOK, wait this long for the ``NAME team`` that usually follows.
NAME_GRACE_S = 1.0
#: Bots up to this level choose inline (well under 1 ms); higher levels search in a thread.
INLINE_MAX_LEVEL = 4
_GO = p.encode(p.Go())
#: ``left()``: called when a seat leaves its match (``Player.watch``).
LeaveHook = Callable[[], None]
#: ``lost()``: the seat that left the game being played, or None (``Player.watch``).
LostCheck = Callable[[], int | None]


@dataclass(frozen=True)
class Choice:
    """A seat's answer at its turn (``Player.choose``).

    | field       | meaning                                                                  |
    |-------------|--------------------------------------------------------------------------|
    | state       | the state the throw is played from: the one given, or after debug resets |
    | throw       | ``(v, h, w)`` from a client or a person, ``(v, h, w, sweep)`` from a bot; |
    |             | None: the turn was lost (no answer in time)                              |
    | resets      | debug mode: the RESETPOSITION / RESETSTATE taken meanwhile, as records   |
    | explanation | what a bot says of its throw (``explain`` in the shot's record), or None |
    """

    state: GameState
    throw: tuple[float, ...] | None
    resets: tuple[dict[str, Any], ...] = ()
    explanation: dict[str, Any] | None = None


class Player(abc.ABC):
    """One seat of a match, as the match plays it (module docstring). The defaults are those
    of a seat that reads no protocol messages and never leaves on its own."""

    seat: int
    #: Turns lost in a row (no throw in time); the match forfeits the game at a limit.
    missed_turns: int = 0
    #: ``sweep`` gets the thrown stone's path, a point every this many 0.01 s ticks (0: none;
    #: only a person's page draws the stone running, and a path costs a trajectory).
    path_stride: int = 0

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The team's name (records, console)."""

    @property
    @abc.abstractmethod
    def kind(self) -> str:
        """``remote``, ``remote-debug``, ``bot:N``, ``agent:NAME`` or ``person`` (records)."""

    @property
    def closed(self) -> bool:
        """Gone from the seat: the match tells it nothing more."""
        return False

    @property
    def left_as(self) -> str:
        """How the game's record names this seat's leaving (``records``: its ``reason``)."""
        return "disconnect"

    def watch(self, left: LeaveHook | None, lost: LostCheck | None) -> None:  # noqa: B027 (a no-op default)
        """The match's hooks (None: removed): ``left()`` when this seat leaves; ``lost()``, the
        seat that left the game, or None (a seat waiting for its client checks it)."""

    def wake(self) -> None:  # noqa: B027 (a no-op default)
        """Make a wait for this seat's answer check ``lost()`` again."""

    async def ready(self) -> bool:
        """Get ready for the first game; False: the seat is not (the match does not start)."""
        return True

    def take_seat(self, seat: int) -> None:
        """Play the next game as ``seat``."""
        self.seat = seat

    def start_game(self, game_id: str) -> None:  # noqa: B027 (a no-op default)
        """The game ``game_id`` is about to start."""

    def send(self, msg: p.Message) -> None:  # noqa: B027 (a no-op default)
        """A protocol message for this seat (dropped but for a client)."""

    def send_bytes(self, data: bytes) -> None:  # noqa: B027 (a no-op default)
        """An encoded protocol message (one encoding for both seats; see ``send``)."""

    @abc.abstractmethod
    async def choose(self, state: GameState, *, timeout: float, rng: np.random.Generator) -> Choice:
        """This seat's throw from ``state``: waited for up to ``timeout`` seconds (the turn
        timeout), or drawn with ``rng`` (bots)."""

    async def sweep(self, mid: np.ndarray, window: float, path: np.ndarray | None = None) -> float:
        """The SWEEP distance for this seat's stone, running at mid-sheet (``mid``: x, y, vx,
        vy, w as MOTIONINFO has them); ``window``: the server's sweep window (0: none);
        ``path``: (T, 2) the stone's unswept x, y every ``path_stride`` ticks from the release
        (None when ``path_stride`` is 0). 0.0 = no sweeping (the default: a bot's throw carries
        its sweep)."""
        return 0.0

    @abc.abstractmethod
    async def centerline_choice(self, transition: Transition, timeout: float) -> str:
        """After a centre-line violation against this seat: RESET or KEEP."""

    async def close(self, *, empties: bool = True) -> None:  # noqa: B027 (a no-op default)
        """The match is over for this seat (a client gets the empty messages)."""


class RemotePlayer(Player):
    """A client on a TCP connection. ``debug``: no turn limit, RESETPOSITION/RESETSTATE taken."""

    def __init__(self, conn: Connection, seat: int, *, debug: bool = False) -> None:
        self.conn, self.seat, self.debug = conn, seat, debug
        #: Turns lost in a row (no BESTSHOT in time); the match forfeits the game at a limit.
        self.missed_turns = 0
        #: This connection has sent a SWEEP (in its window or late): it gets every window.
        self.sweeps = False
        self._offered_window = False  # a window was offered once (the first MOTIONINFO)
        self._late_sweeps = False  # SWEEP accepted after MOTIONINFO until the next turn

    @property
    def name(self) -> str:
        return self.conn.team_name or f"Player{self.seat + 1}"

    @property
    def kind(self) -> str:
        return "remote-debug" if self.debug else "remote"

    @property
    def closed(self) -> bool:
        return self.conn.closed

    def watch(self, left: LeaveHook | None, lost: LostCheck | None) -> None:
        self.conn.on_close, self.conn.lost_check = left, lost

    def wake(self) -> None:
        self.conn.wake()

    def send(self, msg: p.Message) -> None:
        self.conn.send(msg)

    def take_seat(self, seat: int) -> None:
        """Play the next game as ``seat``; the client is told as when it was seated."""
        self.seat = self.conn.seat = seat
        self.conn.send(p.Name(seat))
        self.conn.send(p.ConnectName(seat))

    def send_bytes(self, data: bytes) -> None:
        self.conn.send_bytes(data)

    async def choose(self, state: GameState, *, timeout: float, rng: np.random.Generator) -> Choice:
        """Send GO and wait for BESTSHOT, up to ``timeout`` seconds (debug mode: no limit);
        no BESTSHOT in time loses the turn (``throw`` None).

        In debug mode RESETPOSITION / RESETSTATE change ``state`` meanwhile (each kept in
        ``resets`` as a record). A late SWEEP for the previous stone is noted (``sweep``).
        """
        wait = None if self.debug else timeout
        resets: list[dict[str, Any]] = []
        types: tuple[type[p.Message], ...] = (p.BestShot,)
        if self.debug:
            types += (p.ResetPosition, p.ResetState)
        if self._late_sweeps:  # a SWEEP for this seat's last stone may still be on its way
            self._late_sweeps = False
            self._note_late_sweep(await self.conn.receive(0))
            types += (p.Sweep,)
        self.conn.accept(*types)
        self.conn.send_bytes(_GO)
        loop = asyncio.get_running_loop()
        deadline = None if wait is None else loop.time() + wait
        try:
            while True:
                remaining = None if deadline is None else max(0.0, deadline - loop.time())
                msg = await self.conn.receive(remaining)
                if msg is None:
                    self.missed_turns += 1
                    log.warning(
                        "%r: no BESTSHOT within %.1f s; the stone is lost (%d in a row)",
                        self.conn, timeout, self.missed_turns,
                    )  # fmt: skip
                    return Choice(state, None, tuple(resets))
                if isinstance(msg, p.BestShot):
                    self.missed_turns = 0
                    state = _clear_unthrown(state) if resets else state
                    return Choice(state, (msg.v, msg.h, msg.w), tuple(resets))
                if isinstance(msg, p.Sweep):
                    self._note_late_sweep(msg)
                    continue
                state = self._apply_reset(state, msg, resets)
        finally:
            self.conn.accept()

    def _apply_reset(
        self, state: GameState, msg: p.Message, resets: list[dict[str, Any]]
    ) -> GameState:
        """Debug mode: RESETPOSITION replaces the layout (stones outside the playing area are
        removed, and at BESTSHOT those in rows not thrown yet); RESETSTATE sets the shot
        number, which must keep this seat the thrower."""
        if isinstance(msg, p.ResetPosition):
            position = remove_out_of_play(msg.to_array())
            resets.append({"seat": self.seat, "position": position.tolist()})
            return dataclasses.replace(state, position=position)
        if isinstance(msg, p.ResetState):
            shot = msg.shot
            parity_ok = 0 <= shot < sheet.STONES_PER_END and (
                (state.first_seat if shot % 2 == 0 else 1 - state.first_seat) == self.seat
            )
            if not parity_ok:
                self.conn.report_bad(
                    f"RESETSTATE shot {shot} ignored: allowed 0..15 with the parity of the "
                    f"stones of Player{self.seat + 1} in this end"
                )
                return state
            resets.append({"seat": self.seat, "new_shot": shot})
            return dataclasses.replace(state, shot=shot)
        return state

    def sweep_window(self, window: float) -> float:
        """The seconds to wait for this connection's SWEEP after a MOTIONINFO (the sweep rule).

        The whole ``window`` on the first MOTIONINFO of the session (a client that sweeps
        shows it then), and on every later one once the connection has sent a SWEEP (in a
        window, or late); else 0: a client that never sweeps and says nothing waits once per
        session, not once per stone. See docs/protocol_notes.md, "Sweeping".
        """
        return window if self.sweeps or not self._offered_window else 0.0

    async def sweep(self, mid: np.ndarray, window: float, path: np.ndarray | None = None) -> float:
        """Send MOTIONINFO; the SWEEP distance received within ``sweep_window(window)``
        seconds, else 0. Without one, SWEEP stays accepted until the next turn: a late one is
        not applied (the shot is played) but earns the connection the window from then on.
        ``window`` 0: MOTIONINFO only (the server waits for no SWEEP)."""
        if window <= 0:
            self.motion_info(mid)
            return 0.0
        wait = self.sweep_window(window)
        self._offered_window = self._offered_window or wait > 0
        self.conn.accept(p.Sweep)
        self.conn.send(p.MotionInfo(*(float(v) for v in mid[:5])))
        msg = await self.conn.receive(wait) if wait > 0 else None
        if isinstance(msg, p.Sweep):
            self.sweeps = True
            self.conn.accept()
            return float(msg.distance)
        self._late_sweeps = True  # SWEEP stays accepted: ``choose`` notes a late one
        return 0.0

    def _note_late_sweep(self, msg: p.Message | None) -> None:
        """A SWEEP that came after its window (or when none was offered) marks a sweeper."""
        if not isinstance(msg, p.Sweep):
            return
        if self.sweeps:
            log.info("%r: SWEEP outside its window ignored", self.conn)
        else:
            self.sweeps = True
            log.warning(
                "%r: SWEEP %g came after the sweep window and was not applied; the server "
                "waits for this client's SWEEP after every MOTIONINFO from now on",
                self.conn, msg.distance,
            )  # fmt: skip

    def motion_info(self, mid: np.ndarray) -> None:
        """Send MOTIONINFO without waiting for a SWEEP (no sweep window)."""
        self.conn.send(p.MotionInfo(*(float(v) for v in mid[:5])))

    async def centerline_choice(self, transition: Transition, timeout: float) -> str:
        """Send CENTERLINE_VIOLATION; the answer, or KEEP after ``timeout`` seconds."""
        if self._late_sweeps:  # keep a late SWEEP from being dropped meanwhile
            self._note_late_sweep(await self.conn.receive(0))
        self.conn.accept(p.CenterlineChoice)
        self.conn.send(p.CenterlineViolation())
        try:
            msg = await self.conn.receive(timeout)
        finally:
            self.conn.accept(*((p.Sweep,) if self._late_sweeps else ()))
        return msg.choice if isinstance(msg, p.CenterlineChoice) else "KEEP"

    async def close(self, *, empties: bool = True) -> None:
        await self.conn.close(empties=empties)


async def ready_client(conn: Connection, timeout: float) -> bool:
    """Send ISREADY and wait up to ``timeout`` s for READYOK (then briefly for the ``NAME team``
    that usually follows); False on timeout. Raises ``SeatLost`` if the client leaves."""
    conn.accept(p.ReadyOk)
    conn.send(p.IsReady())
    try:
        if await conn.receive(timeout) is None:
            return False
        if conn.team_name is None:
            conn.accept(p.TeamName)
            await conn.receive(NAME_GRACE_S)
    finally:
        conn.accept()
    return True


def _clear_unthrown(state: GameState) -> GameState:
    """After debug resets: stones in rows not thrown yet (``>= shot``) leave the sheet."""
    position = np.array(state.position)
    position[state.shot :] = 0.0
    return dataclasses.replace(state, position=position)


def warm_up_bots() -> None:
    """Build the bots' aiming tables (about 2 s on a quiet 2-core machine, longer under load or
    Wine), once per process. The server does it before it announces its ports, so that no
    client's clock runs meanwhile; a failure shows at a bot's first throw instead."""
    try:
        shot_tables()  # cached per process
    except Exception as exc:  # a bot that needs them fails visibly at its first throw
        log.debug("bot warm-up failed: %r", exc)


class BotPlayer(Player):
    """A built-in opponent (``rllib_curling.bots.make_bot(level)``) answering in-process, or
    any ``Bot`` (``of``: an agent the server was given). A bot that explains its throws (an
    ``explanation()`` method, e.g. ``agent.search.AgentBot``) has it written into the shot's
    record (``explain``)."""

    def __init__(self, level: int, seat: int, *, bot: Any = None, kind: str | None = None) -> None:
        self.level, self.seat = level, seat
        self.bot = make_bot(level) if bot is None else bot
        self._name = str(getattr(self.bot, "name", None) or f"bot-{level}")
        self._kind = kind or f"bot:{level}"

    @classmethod
    def of(cls, bot: Any, seat: int, *, kind: str) -> BotPlayer:
        """An in-process player for ``bot`` (it chooses in a worker thread)."""
        return cls(INLINE_MAX_LEVEL + 1, seat, bot=bot, kind=kind)

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> str:
        return self._kind

    def explanation(self) -> dict[str, Any] | None:
        """What the bot says of its last throw (``explain`` in the shot's record), or None."""
        explain = getattr(self.bot, "explanation", None)
        return explain() if callable(explain) else None

    async def ready(self) -> bool:
        """Build the bots' aiming tables in a worker thread (``warm_up_bots``; a no-op once the
        server has), so that the first throw does not stall the event loop."""
        await asyncio.to_thread(warm_up_bots)
        return True

    async def choose(self, state: GameState, *, timeout: float, rng: np.random.Generator) -> Choice:
        """``(v, h, w, sweep)`` from the bot (no time limit) and its ``explanation()``: levels
        up to ``INLINE_MAX_LEVEL`` (at most about a millisecond) answer inline, the search bots
        in a worker thread so that the event loop keeps serving (timeouts, other connections)
        meanwhile."""
        if self.level <= INLINE_MAX_LEVEL:
            throw = self.bot.choose(state, rng)
        else:
            throw = await asyncio.to_thread(self.bot.choose, state, rng)
        return Choice(state, tuple(float(x) for x in throw), explanation=self.explanation())

    async def centerline_choice(self, transition: Transition, timeout: float) -> str:
        choose = getattr(self.bot, "centerline_choice", None)
        choice = choose(transition) if choose is not None else "RESET"
        return choice if choice in p.CENTERLINE_CHOICES else "RESET"
