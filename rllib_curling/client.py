"""A blocking client of the digital-curling protocol: the env and ``curling play`` use it.

It works with our ``curling server`` and with the platform's ``curling_server.exe``::

    client = CurlingClient("127.0.0.1", 7788, key="localtest:2", name="my-ai")
    seat = client.connect()                 # 0 = Player1, 1 = Player2
    while client.wait_turn() == "go":       # answers ISREADY / NAME by itself
        client.throw(3.0, 0.0, 0.0)         # BESTSHOT; sweep=d sends SWEEP d after MOTIONINFO
    # "gameover" (client.result, client.totals) then, when the server plays on, "go" again;
    # "closed" when the server ended the session (5 empty messages or EOF)

State it keeps, as the server last said it: ``seat``, ``position`` ((16, 2), throwing order),
``state`` (SETSTATE fields: shot, end, total, next), ``end_scores`` (this game's SCORE values,
mine > 0), ``totals`` (mine, theirs), ``motion`` (the last MOTIONINFO), ``result`` (GAMEOVER).

Messages are sent as course clients send them: bare text, no terminator (``nul=True`` adds one).
Every MOTIONINFO is answered with ``SWEEP d`` (``SWEEP 0`` when not sweeping, so a server that
waits for sweeps goes on at once; ``sweep_reply=False`` answers only when sweeping).
Socket errors raise ``ConnectionLostError``; silence longer than ``timeout`` raises its subclass
``PeerTimeoutError`` (the server may be alive but hung). ``throw`` checks its numbers before it
sends anything: a NaN, an infinity or a non-number raises ``InvalidThrowError`` and the turn
stays ours, so a corrected ``throw`` can follow.
"""

from __future__ import annotations

import logging
import socket
from collections import deque
from collections.abc import Callable

import numpy as np

from rllib_curling import protocol as p
from rllib_curling.errors import ConnectionLostError, InvalidThrowError, PeerTimeoutError
from rllib_curling.protocol.defaults import CLIENT_TIMEOUT_S, DEFAULT_TCP_PORT

log = logging.getLogger(__name__)
#: How long ``connect`` waits for the seat (``CONNECTNAME``) by default.
CONNECT_TIMEOUT_S = 10.0
_RECV_BYTES = 65536


class CurlingClient:
    """One AI player's connection to a curling server (see the module docstring)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_TCP_PORT,
        *,
        key: str = "localtest",
        name: str = "rllib-curling",
        timeout: float = CLIENT_TIMEOUT_S,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        centerline_choice: str = "RESET",
        nul: bool = False,
        sweep_reply: bool = True,
    ) -> None:
        self.host, self.port = host, int(port)
        self.key, self.name = key, name
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.centerline_choice = centerline_choice
        self.nul = nul
        self.sweep_reply = sweep_reply
        self._sock: socket.socket | None = None
        self._decoder = p.StreamDecoder(p.Direction.TO_CLIENT)
        self._inbox: deque[p.Message] = deque()
        self._empties = 0
        self._pending_sweep: float | None = None
        self.closed = False
        self.seat: int | None = None
        self.games_started = 0
        #: Called with every message received, before the client acts on it (a watcher's
        #: feed: ``curling play --watch``); it must not raise.
        self.on_message: Callable[[p.Message], None] | None = None
        self._reset_game()

    def _reset_game(self) -> None:
        self.position = np.zeros((16, 2))
        self.state: tuple[int, int, int, int] | None = None
        self.end_scores: list[int] = []
        self.total_score: tuple[int, int] | None = None
        self.result: str | None = None
        self.motion: p.MotionInfo | None = None
        #: The last finished end as it was scored: (its final position, the SETSTATE before).
        self.last_end: tuple[np.ndarray, tuple[int, int, int, int] | None] | None = None
        self.my_turn = False

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def totals(self) -> tuple[int, int]:
        """(mine, theirs): from TOTALSCORE once sent, else the sum of this game's SCOREs."""
        if self.total_score is not None and self.seat is not None:
            a, b = self.total_score
            return (a, b) if self.seat == 0 else (b, a)
        mine = sum(s for s in self.end_scores if s > 0)
        theirs = -sum(s for s in self.end_scores if s < 0)
        return mine, theirs

    # -- connection ----------------------------------------------------------------------------

    def connect(self) -> int:
        """Open the connection, send the key and wait for the seat (``CONNECTNAME``)."""
        self.close()
        self.closed = False
        self._decoder = p.StreamDecoder(p.Direction.TO_CLIENT)
        self._inbox.clear()
        self._empties = 0
        self.seat = None
        self._reset_game()
        try:
            self._sock = socket.create_connection((self.host, self.port), self.connect_timeout)
        except OSError as exc:
            raise ConnectionLostError(f"cannot connect to {self.address}: {exc}") from exc
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._send(p.ConnectKey(self.key))
        while self.seat is None:
            msg = self._next_message(self.connect_timeout)
            if msg is None:
                raise ConnectionLostError(f"{self.address} closed the connection before seating")
            if isinstance(msg, p.Error):
                raise ConnectionLostError(f"{self.address} refused the connection: {msg.text}")
            self._handle(msg)
        return self.seat

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None
        self.closed = True

    def fileno(self) -> int:
        return self._sock.fileno() if self._sock else -1

    # -- playing -------------------------------------------------------------------------------

    def wait_turn(self, timeout: float | None = None) -> str:
        """Handle messages until ``"go"`` (my turn), ``"gameover"`` or ``"closed"``."""
        while True:
            event = self.poll(self.timeout if timeout is None else timeout, block=True)
            if event is not None:
                return event

    def poll(self, timeout: float = 0.0, *, block: bool = False) -> str | None:
        """Handle received messages, as ``wait_turn`` does; without ``block`` return None as soon
        as nothing more has arrived, with ``block`` wait up to ``timeout`` for each message."""
        while True:
            if not self._inbox:
                if block:
                    self._receive(timeout)
                elif not self._receive(0.0):
                    return None
                continue
            msg = self._inbox.popleft()
            if msg is None:
                self.closed = True
                return "closed"
            event = self._handle(msg)
            if event is not None:
                return event

    def throw(self, v: float, h: float, w: float, *, sweep: float | None = None) -> None:
        """Send ``BESTSHOT v h w``; with ``sweep``, send ``SWEEP sweep`` when MOTIONINFO comes.

        The numbers are checked first (``finite_throw``): a bad one raises ``InvalidThrowError``
        with nothing sent and the turn still ours."""
        if not self.my_turn:
            raise RuntimeError("throw() called when it is not this client's turn (no GO)")
        v, h, w, sweep = finite_throw(v, h, w, sweep)
        message = p.BestShot(v, h, w)
        self.my_turn = False
        self._pending_sweep = sweep
        self.motion = None
        self._send(message)

    def sweep(self, distance: float) -> None:
        """Send ``SWEEP distance`` now (valid between MOTIONINFO and the far hog line)."""
        self._send(p.Sweep(float(distance)))

    def send(self, msg: p.Message) -> None:
        """Send any client message (e.g. ``RESETPOSITION`` in debug mode)."""
        self._send(msg)

    # -- internals -----------------------------------------------------------------------------

    def _handle(self, msg: p.Message) -> str | None:
        if self.on_message is not None:
            self.on_message(msg)
        if not isinstance(msg, p.Empty):
            self._empties = 0
        if isinstance(msg, p.ConnectName | p.Name):
            self.seat = msg.seat
        elif isinstance(msg, p.IsReady):
            self._send(p.ReadyOk())
            self._send(p.TeamName(self.name))
        elif isinstance(msg, p.NewGame):
            self._reset_game()
            self.games_started += 1
        elif isinstance(msg, p.Position):
            self.position = msg.to_array()
        elif isinstance(msg, p.SetState):
            self.state = (msg.shot, msg.end, msg.total, msg.next_seat)
        elif isinstance(msg, p.Go):
            self.my_turn = True
            return "go"
        elif isinstance(msg, p.MotionInfo):
            self.motion = msg
            if self._pending_sweep is not None:
                self.sweep(self._pending_sweep)
            elif self.sweep_reply:
                self.sweep(0.0)  # no sweeping: the server need not wait for a SWEEP
            self._pending_sweep = None
        elif isinstance(msg, p.Score):
            self.end_scores.append(int(msg.points))
            self.last_end = (self.position.copy(), self.state)
        elif isinstance(msg, p.TotalScore):
            self.total_score = (int(msg.player1), int(msg.player2))
        elif isinstance(msg, p.GameOver):
            self.result = msg.result
            self.my_turn = False
            return "gameover"
        elif isinstance(msg, p.CenterlineViolation):
            self._send(p.CenterlineChoice(self.centerline_choice))
        elif isinstance(msg, p.Empty):
            self._empties += 1
            if self._empties >= p.EMPTIES_TO_CLOSE:
                self.close()
                return "closed"
        elif isinstance(msg, p.Error):
            log.warning("server %s says: %s", self.address, msg.text)
        return None

    def _send(self, msg: p.Message) -> None:
        if self._sock is None:
            raise ConnectionLostError(f"not connected to {self.address}")
        try:
            self._sock.sendall(p.encode(msg, nul=self.nul))
        except OSError as exc:
            self.close()
            raise ConnectionLostError(f"sending to {self.address} failed: {exc}") from exc

    def _receive(self, timeout: float) -> bool:
        """Read one chunk into the inbox; False on timeout 0 with nothing there."""
        if self._sock is None:
            raise ConnectionLostError(f"not connected to {self.address}")
        self._sock.settimeout(timeout if timeout > 0 else 0.0)
        try:
            data = self._sock.recv(_RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return False
        except TimeoutError as exc:
            if timeout <= 0:
                return False
            raise PeerTimeoutError(
                f"no message from {self.address} for {timeout:g} s", timeout
            ) from exc
        except OSError as exc:
            self.close()
            raise ConnectionLostError(f"connection to {self.address} lost: {exc}") from exc
        if not data:
            self._inbox.append(None)  # type: ignore[arg-type]  # EOF marker
            return True
        for item in self._decoder.feed(data):
            if isinstance(item, Exception):
                log.warning("bad message from %s: %s", self.address, item)
            else:
                self._inbox.append(item)
        return True

    def _next_message(self, timeout: float) -> p.Message | None:
        """The next message (None at EOF), receiving as needed."""
        while not self._inbox:
            self._receive(timeout)
        return self._inbox.popleft()


def finite_throw(
    v: object, h: object, w: object, sweep: object = None
) -> tuple[float, float, float, float | None]:
    """``(v, h, w, sweep)`` as floats (sweep None stays None) when each is a finite real number
    (a Python or numpy int or float, or a 0-d array of one; not a bool); else
    ``InvalidThrowError`` naming every value. Ranges are not checked: the server clamps a
    BESTSHOT to the sheet's, as the platform does."""
    named = {"v": v, "h": h, "w": w, **({} if sweep is None else {"sweep": sweep})}
    bad = [name for name, value in named.items() if not _finite_real(value)]
    if bad:
        shown = ", ".join(f"{name}={value!r}" for name, value in named.items())
        raise InvalidThrowError(
            f"throw refused ({shown}): {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not "
            "a finite real number; BESTSHOT takes finite numbers (the server clamps them)"
        )
    numbers = [float(np.asarray(value)) for value in named.values()]
    return numbers[0], numbers[1], numbers[2], numbers[3] if sweep is not None else None


def _finite_real(value: object) -> bool:
    """A real number (0-d, int or float dtype, not bool, not a string) that is finite."""
    if isinstance(value, str | bytes):
        return False
    try:
        number = np.asarray(value)
    except ValueError:  # ragged nested sequences
        return False
    return number.ndim == 0 and number.dtype.kind in "iuf" and bool(np.isfinite(number))
