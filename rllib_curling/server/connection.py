"""One client connection of the curling server: framing, a bounded mailbox, sending.

The read loop decodes bytes with ``StreamDecoder(Direction.TO_SERVER)``, which takes a burst
without NUL as one message and keeps bytes after a burst's last NUL for the next burst; when no
more bytes come within ``TAIL_FLUSH_S`` those count as a message too (so a client mixing
NUL-framed and bare messages is not stalled). Each message is dispatched at once: a message
whose type the match currently *accepts* (``accept``) goes into a small mailbox that
``receive`` reads; the first ``NAME team`` sets ``team_name`` (later ones are ignored: a seat
cannot rename itself mid-match); ``EXPMODE`` and empty messages are ignored; anything else
(unknown keywords, bad arguments, BESTSHOT out of turn, …) is dropped and logged, rate-limited.
A bad message of an accepted type (``BESTSHOT nan 0 0`` during the turn) is answered with
``Error …`` saying what was wrong, and the client may send it again (at most
``MAX_ERROR_REPLIES`` such answers per wait). Nothing a client sends raises, and memory is
bounded: the decoder refuses runs over 64 KiB without NUL, the mailbox holds at most
``MAILBOX_SIZE`` messages and the write buffer at most ``MAX_WRITE_BUFFER`` bytes (a client
that does not read is dropped).

``send`` collects the messages of one event-loop step (e.g. POSITION, SETSTATE, GO) and writes
them in one go right after it (one system call, one wake-up of the client instead of three); with
a compatibility gap a per-connection writer task writes each message alone, ``gap`` seconds
after the previous one.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import deque
from collections.abc import Callable

from rllib_curling import protocol as p

log = logging.getLogger("rllib_curling.server")

MAILBOX_SIZE = 64
MAX_WRITE_BUFFER = 1 << 20
MAX_TEAM_NAME = 64
#: ``Error`` answers to bad messages of an accepted type, per ``accept`` (then only logged).
MAX_ERROR_REPLIES = 10
#: At the end of a session, wait at most this long for the client to close its side.
LINGER_S = 1.0
#: An unterminated tail after the last NUL of a burst counts as a message after this much silence.
TAIL_FLUSH_S = 0.05
_READ_BYTES = 65536
_LOG_FIRST_BAD = 20
_LOG_EVERY_BAD = 1000
_EMPTY_BYTES = p.encode(p.Empty())
_ERROR_NETNAME_DELETED = 64  # winerror of a read on a socket the client has closed (Windows)


def closed_by_peer(exc: OSError) -> bool:
    """Whether ``exc`` only says that the client went away, which is an ordinary disconnect,
    logged like a clean close: a reset (a client that closed with unread data, or aborted), a
    broken pipe, or Windows' ERROR_NETNAME_DELETED (WinError 64, e.g. a client that closes
    right after GAMEOVER; asyncio's proactor loop raises it as ConnectionResetError)."""
    return (
        isinstance(exc, ConnectionResetError | ConnectionAbortedError | BrokenPipeError)
        or getattr(exc, "winerror", None) == _ERROR_NETNAME_DELETED
    )


class SeatLost(Exception):
    """A seat's connection closed (or a partner's did) while the match waited on it."""

    def __init__(self, seat: int | None) -> None:
        super().__init__(f"seat {seat} lost")
        self.seat = seat


class Connection:
    """A client connection (see the module docstring). ``seat`` is set once it is seated."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, gap: float = 0.0
    ) -> None:
        self._reader, self._writer = reader, writer
        peer = writer.get_extra_info("peername")
        #: The client's address (host only): what per-address limits count.
        self.host = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        self.gap = float(gap)
        self.seat: int | None = None
        self.team_name: str | None = None
        self.closed = False
        self.bad_messages = 0
        #: Called (no arguments) when the connection closes; the match uses it to wake waiters.
        self.on_close: Callable[[], None] | None = None
        #: Returns the seat that was lost, or None; ``receive`` checks it after each wake-up.
        self.lost_check: Callable[[], int | None] | None = None
        self._decoder = p.StreamDecoder(p.Direction.TO_SERVER)
        self._accepting: tuple[type[p.Message], ...] = ()
        self._error_replies = 0
        self._mailbox: deque[p.Message] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._outbox: deque[bytes] = deque()  # with a gap: messages not written yet
        self._pending: list[bytes] = []  # without: messages of this event-loop step
        self._writer_task: asyncio.Task[None] | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._tail_timer: asyncio.TimerHandle | None = None

    def __repr__(self) -> str:
        who = f"Player{self.seat + 1}" if self.seat is not None else "unseated"
        return f"<Connection {self.peer} {who}>"

    # -- receiving -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the read loop (a task of the running event loop)."""
        self._reader_task = asyncio.get_running_loop().create_task(self._read_loop())

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await self._reader.read(_READ_BYTES)
                if self._tail_timer is not None:
                    self._tail_timer.cancel()
                    self._tail_timer = None
                if not data:
                    log.debug("%r: the client closed the connection", self)
                    break
                for item in self._decoder.feed(data):
                    self._dispatch(item)
                if self._decoder.pending:
                    self._tail_timer = loop.call_later(TAIL_FLUSH_S, self._flush_tail)
            self._flush_tail()
        except OSError as exc:  # ConnectionError and socket errors
            if closed_by_peer(exc):
                log.debug("%r: the client closed the connection (%s)", self, exc)
            else:
                log.info("%r: connection error: %s", self, exc)
        except asyncio.CancelledError:
            pass
        finally:
            self._mark_closed()

    def _flush_tail(self) -> None:
        """Bytes after the last NUL of a burst, with no more data for ``TAIL_FLUSH_S``: a
        bare-text message that followed NUL-framed ones in the same burst."""
        self._tail_timer = None
        for item in self._decoder.flush():
            self._dispatch(item)

    def _dispatch(self, item: p.Message | p.ProtocolError) -> None:
        if isinstance(item, p.ProtocolError):
            self.report_bad(f"bad message ignored: {item}")
            keyword = getattr(item, "keyword", None)
            if keyword is not None and any(t.KEYWORD == keyword for t in self._accepting):
                if self._error_replies < MAX_ERROR_REPLIES:
                    self._error_replies += 1
                    self.send(p.Error(" ".join(f"{item}; send it again".split())))
            return
        if isinstance(item, p.TeamName):
            if self.team_name is None:
                self.team_name = item.name[:MAX_TEAM_NAME] or None
            elif item.name[:MAX_TEAM_NAME] != self.team_name:
                log.info("%r: NAME %r ignored (keeps %r)", self, item.name[:40], self.team_name)
        if self._accepting and isinstance(item, self._accepting):
            if len(self._mailbox) >= MAILBOX_SIZE:
                self.report_bad(f"mailbox full, dropped {item.KEYWORD}")
                return
            self._mailbox.append(item)
            self._wake()
        elif isinstance(item, p.Sweep):
            log.info("%r: SWEEP outside its window ignored", self)
        elif not isinstance(item, p.Empty | p.ExpMode | p.TeamName):
            text = item.to_text() if not isinstance(item, p.Unknown) else item.text
            self.report_bad(f"unexpected message ignored: {text[:120]!r}")

    def report_bad(self, what: str) -> None:
        self.bad_messages += 1
        n = self.bad_messages
        if n <= _LOG_FIRST_BAD or n % _LOG_EVERY_BAD == 0:
            log.warning("%r: %s (bad message #%d)", self, what, n)

    def accept(self, *types: type[p.Message]) -> None:
        """From now on put messages of these types in the mailbox (cleared); others are dropped."""
        self._accepting = types
        self._mailbox.clear()
        self._error_replies = 0

    async def receive(self, timeout: float | None) -> p.Message | None:
        """The next accepted message, or None after ``timeout`` seconds (None = no limit).

        Raises ``SeatLost`` when this connection, or one the ``lost_check`` watches, is closed.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not self._mailbox:
            lost = self.lost_check() if self.lost_check is not None else None
            if lost is not None or self.closed:
                raise SeatLost(lost if lost is not None else self.seat)
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return None
            self._waiter = waiter = loop.create_future()
            handle = loop.call_later(remaining, self._wake) if remaining is not None else None
            try:
                await waiter
            finally:
                self._waiter = None
                if handle is not None:
                    handle.cancel()
        return self._mailbox.popleft()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def wake(self) -> None:
        """Wake a pending ``receive`` so that it checks ``lost_check`` again."""
        self._wake()

    def _mark_closed(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._wake()
        if self.on_close is not None:
            self.on_close()

    # -- sending -------------------------------------------------------------------------------

    def send(self, msg: p.Message) -> None:
        self.send_bytes(p.encode(msg))

    def send_bytes(self, data: bytes) -> None:
        """Send one encoded message (never raises; a dead or stuck client is closed)."""
        if self.closed:
            return
        if self.gap > 0:
            self._outbox.append(data)
            if len(self._outbox) > MAX_WRITE_BUFFER // 64:
                self._drop("does not read (too many messages queued)")
            elif self._writer_task is None or self._writer_task.done():
                self._writer_task = asyncio.get_running_loop().create_task(self._write_spaced())
            return
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._write_pending)
        self._pending.append(data)

    def _write_pending(self) -> None:
        """Write the messages sent since the last event-loop step in one go."""
        if not self._pending or self.closed:
            self._pending.clear()
            return
        data = b"".join(self._pending)
        self._pending.clear()
        try:
            self._writer.write(data)
        except (ConnectionError, OSError, RuntimeError) as exc:
            self._drop(f"write failed: {exc}", exc)
            return
        if self._writer.transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
            self._drop(f"does not read (over {MAX_WRITE_BUFFER} bytes unsent)")

    async def _write_spaced(self) -> None:
        loop = asyncio.get_running_loop()
        last = -1e9
        while self._outbox and not self.closed:
            wait = last + self.gap - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                self._writer.write(self._outbox.popleft())
                await asyncio.wait_for(self._writer.drain(), timeout=30.0)
            except (ConnectionError, OSError, RuntimeError, TimeoutError) as exc:
                self._drop(f"write failed: {exc!r}", exc)
                return
            last = loop.time()

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until queued messages are handed to the socket (compat gap) and drained."""
        self._write_pending()
        task = self._writer_task
        try:
            if task is not None and not task.done():
                await asyncio.wait_for(asyncio.shield(task), timeout)
            if not self.closed:
                await asyncio.wait_for(self._writer.drain(), timeout)
        except (ConnectionError, OSError, RuntimeError, TimeoutError):
            pass

    async def _linger(self) -> None:
        self.accept()
        reader = self._reader_task
        if self.closed or reader is None or reader is asyncio.current_task():
            return
        try:
            if self._writer.can_write_eof():
                self._writer.write_eof()
            await asyncio.wait({reader}, timeout=LINGER_S)
        except (ConnectionError, OSError, RuntimeError):
            pass

    def _drop(self, why: str, exc: BaseException | None = None) -> None:
        """Close the connection at once (abort) for ``why``: a warning, unless ``exc`` says
        the client has gone already (then it is an ordinary disconnect)."""
        if isinstance(exc, OSError) and closed_by_peer(exc):
            log.debug("%r: the client closed the connection (%s)", self, exc)
        else:
            log.warning("%r: %s; closing it", self, why)
        self._outbox.clear()
        self._writer.transport.abort()
        self._mark_closed()

    async def close(self, *, empties: bool = True, error: str | None = None) -> None:
        """End the session: an optional ``Error`` message, the 5 empty messages, then close.

        A lingering close: after the last message the server shuts its side (FIN) and keeps
        reading (and dropping) until the client closes, at most ``LINGER_S``. Closing a socket
        with unread input sends a reset instead, which can make the client lose the last
        messages (GAMEOVER, the empties, ``Error``) if it was still sending.
        """
        if not self.closed:
            if error is not None:
                self.send(p.Error(error))
            if empties:
                for _ in range(p.EMPTIES_TO_CLOSE):
                    self.send_bytes(_EMPTY_BYTES)
            await self.flush()
            await self._linger()
        if self._writer_task is not None and not self._writer_task.done():
            self._writer_task.cancel()
        try:
            self._writer.close()
        except (ConnectionError, OSError, RuntimeError):
            pass
        if self._reader_task is not None and self._reader_task is not asyncio.current_task():
            self._reader_task.cancel()
        self._mark_closed()
