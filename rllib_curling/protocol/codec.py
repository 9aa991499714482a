"""Encoding, decoding and stream framing of the protocol's messages (sans-I/O).

No sockets here: the server and the client are thin shells that move bytes and call these.

- ``encode(msg) -> bytes``: server messages are UTF-8, single-spaced, with the platform's
  trailing space before the NUL (``GO \0``); client messages are bare text (``nul=True``
  appends a NUL). Floats: at most 6 decimals, no exponent, no ``-0``.
- ``decode(text, direction) -> Message`` for one framed message (raises ``ProtocolError``);
  ``decode_all`` also splits glued client messages: ``READYOKNAME team`` (READYOK takes no
  arguments) and ``SWEEP 0BESTSHOT 3 0 0`` (a client keyword right after a number).
- ``StreamDecoder(direction).feed(data) -> list[Message | ProtocolError]``: framing for a byte
  stream; never raises on wire input. See the class for the burst rule of client data.

Decoding is tolerant (protocol.md §1): any whitespace runs, a trailing space, numbers like
``3``, ``3.0``, ``-2.``, ``1e-05``, keywords in any case, ``CONNECTKEY:key`` with or without a
space, unknown keywords become ``Unknown(text)``. It is strict about argument counts and values:
a BESTSHOT without exactly 3 finite numbers is a ``ProtocolError`` naming what came and what is
allowed (huge finite values pass; the engine clamps).
"""

from __future__ import annotations

import re
from enum import Enum

from rllib_curling.errors import ProtocolError, shown
from rllib_curling.protocol.base import (
    EMPTIES_TO_CLOSE,
    N_COORDS,
    ClientMessage,
    Empty,
    Message,
    ServerMessage,
    Unknown,
)
from rllib_curling.protocol.messages import (
    CENTERLINE_CHOICES,
    CLIENT_MESSAGES,
    GAME_RESULTS,
    SERVER_MESSAGES,
    BestShot,
    CenterlineChoice,
    CenterlineViolation,
    ConnectKey,
    ConnectName,
    Error,
    ExpMode,
    GameOver,
    Go,
    IsReady,
    MotionInfo,
    Name,
    NewGame,
    Position,
    ReadyOk,
    ResetPosition,
    ResetState,
    Score,
    SetState,
    Sweep,
    TeamName,
    TotalScore,
    split_key,
)
from rllib_curling.protocol.numbers import FLOAT_DECIMALS, format_float, parse_number

__all__ = [
    "CENTERLINE_CHOICES", "CLIENT_MESSAGES", "EMPTIES_TO_CLOSE", "FLOAT_DECIMALS", "GAME_RESULTS",
    "MAX_MESSAGE_BYTES", "N_COORDS", "SERVER_MESSAGES", "BestShot", "CenterlineChoice",
    "CenterlineViolation", "ClientMessage", "ConnectKey", "ConnectName", "Direction", "Empty",
    "Error", "ExpMode", "GameOver", "Go", "IsReady", "Message", "MotionInfo", "Name", "NewGame",
    "Position", "ProtocolError", "ReadyOk", "ResetPosition", "ResetState", "Score",
    "ServerMessage", "SetState", "StreamDecoder", "Sweep", "TeamName", "TotalScore", "Unknown",
    "decode", "decode_all", "encode", "format_float", "parse_number", "split_key",
]  # fmt: skip

#: A run of bytes without NUL longer than this is refused (and dropped) by StreamDecoder.
MAX_MESSAGE_BYTES = 65536

_KEYWORD_RE = re.compile(r"[A-Za-z_]+")
_READYOK = ReadyOk.KEYWORD


class Direction(Enum):
    """Which way a message travels; picks the keyword table (``NAME`` means two things)."""

    TO_CLIENT = "to_client"  #: server → client: what a client decodes (ServerMessage)
    TO_SERVER = "to_server"  #: client → server: what a server decodes (ClientMessage)


_TABLES: dict[Direction, dict[str, type[Message]]] = {
    Direction.TO_CLIENT: {cls.KEYWORD.upper(): cls for cls in SERVER_MESSAGES},
    Direction.TO_SERVER: {cls.KEYWORD.upper(): cls for cls in CLIENT_MESSAGES},
}
#: Keywords whose argument may follow a colon instead of a space.
_COLON_OK = (ConnectKey, Error)
#: Client messages whose arguments are numbers: a client keyword glued to their last number
#: starts the next message.
_NUMERIC_CLIENT = (BestShot, Sweep, ResetPosition, ResetState, ExpMode)
_GLUED_RE = re.compile(
    "|".join(sorted((re.escape(c.KEYWORD) for c in CLIENT_MESSAGES), key=len, reverse=True))
)


def encode(msg: Message, *, nul: bool | None = None, trailing_space: bool | None = None) -> bytes:
    """The wire bytes of ``msg`` (UTF-8).

    ``nul``: append the NUL terminator; default yes, except for ``ClientMessage`` (course clients
    send bare text). ``Empty`` is always a single NUL.
    ``trailing_space``: put one space before the terminator; default for server messages (as the
    platform's ``CONNECTNAME Player1 \\0``): 2020-era clients that split the raw chunk on spaces
    without removing the NUL need it, and clients that strip messages do not mind it.
    """
    if isinstance(msg, Empty):
        return b"\0"
    text = msg.to_text()
    if trailing_space if trailing_space is not None else msg.TRAILING_SPACE:
        text += " "
    if nul if nul is not None else not isinstance(msg, ClientMessage):
        text += "\0"
    return text.encode("utf-8")


def decode(text: str, direction: Direction) -> Message:
    """Decode one framed message (without its NUL); raises ``ProtocolError``.

    A text holding two messages (a glued ``READYOKNAME team``) raises too: use ``decode_all``.
    """
    messages = decode_all(text, direction)
    if len(messages) != 1:
        raise ProtocolError(
            f"{shown(text)} holds {len(messages)} messages; allowed: one (use decode_all)"
        )
    return messages[0]


def decode_all(text: str, direction: Direction) -> list[Message]:
    """Decode one received message; a leading ``READYOK`` glued to more text makes it two.

    Raises the first ``ProtocolError`` (``StreamDecoder`` keeps the good messages instead).
    """
    messages: list[Message] = []
    for item in _decode_items(text, Direction(direction)):
        if isinstance(item, ProtocolError):
            raise item
        messages.append(item)
    return messages


def _decode_items(text: str, direction: Direction) -> list[Message | ProtocolError]:
    """Every message in one received text (iterative: glued messages cost no recursion)."""
    text = text.replace("\0", " ").strip()
    if not text:
        return [Empty()]
    out: list[Message | ProtocolError] = []
    while text:
        head, text = _split_first(text, direction)
        out.append(_decode_one(head, direction))
        text = text.strip()
    return out


def _split_first(text: str, direction: Direction) -> tuple[str, str]:
    """(first message, the rest) of a text that may hold several glued client messages."""
    if direction is not Direction.TO_SERVER:
        return text, ""
    match = _KEYWORD_RE.match(text)
    word = match.group(0).upper() if match else ""
    if word.startswith(_READYOK):
        # READYOK takes no arguments: whatever follows, glued or not, is the next message.
        return text[: len(_READYOK)], text[len(_READYOK) :]
    if _TABLES[direction].get(word) in _NUMERIC_CLIENT:
        # Numbers end where a client keyword starts: "SWEEP 0BESTSHOT 3 0 0" is two messages
        # (two sends read as one burst).
        glued = _GLUED_RE.search(text, len(word))
        if glued is not None:
            return text[: glued.start()], text[glued.start() :]
    return text, ""


def _decode_one(text: str, direction: Direction) -> Message | ProtocolError:
    word, _, args = text.partition(" ")
    cls = _TABLES[direction].get(word)
    if cls is not None:  # fast path: the exact keyword, then a space (or nothing)
        try:
            return cls.parse_args(args)
        except ProtocolError as err:
            return ProtocolError(f"{err} (message: {shown(text)})", keyword=cls.KEYWORD)
    match = _KEYWORD_RE.match(text)
    word = match.group(0).upper() if match else ""
    rest = text[len(word) :]
    cls = _TABLES[direction].get(word)
    if cls is None and direction is Direction.TO_CLIENT and word.startswith("ERROR"):
        return Error.parse_args(text[len("ERROR") :])  # "a message starting with Error"
    separated = not rest or rest[0].isspace() or (rest[0] == ":" and cls in _COLON_OK)
    if cls is None or not separated:
        return Unknown(text)
    try:
        return cls.parse_args(rest)
    except ProtocolError as err:
        return ProtocolError(f"{err} (message: {shown(text)})", keyword=cls.KEYWORD)


class StreamDecoder:
    """Turns received bytes into messages for one connection and one direction.

    ``feed(data)`` takes each chunk as ``recv`` returned it and returns the messages completed by
    it, with a ``ProtocolError`` in place of each bad one; it never raises on wire input.

    Framing: a NUL ends a message (an empty one is ``Empty()``; clients count them). Bytes after
    the last NUL wait for the next chunk, so a NUL-framed message may arrive in pieces. Client
    data (``Direction.TO_SERVER``) usually has no NUL at all: **a chunk without NUL completes a
    message** — everything buffered plus the chunk is one message (the burst rule of protocol.md
    §1; a leading ``READYOK`` glued to ``NAME`` still gives two). Server data (``TO_CLIENT``) is
    always NUL-framed and waits for the NUL. Text is UTF-8, decoded with ``errors="replace"``.

    Memory is bounded: a run of more than ``max_message_bytes`` without NUL yields one
    ``ProtocolError``; the bytes are dropped, and so is the rest of that run up to its NUL.
    """

    def __init__(self, direction: Direction, *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.direction = Direction(direction)
        self.max_message_bytes = int(max_message_bytes)
        self._buffer = bytearray()
        self._discarding = False  # inside an oversize run: drop bytes up to the next NUL

    @property
    def pending(self) -> int:
        """Bytes buffered that do not form a complete message yet."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Message | ProtocolError]:
        """Buffer ``data`` and return the messages it completes (see the class docstring)."""
        out: list[Message | ProtocolError] = []
        if not data:
            return out
        *frames, tail = bytes(data).split(b"\0")
        for frame in frames:
            if self._discarding:
                self._discarding = False
                self._buffer.clear()
                continue
            self._buffer += frame
            self._emit(out)
        if self._discarding:
            if not frames and self.direction is Direction.TO_SERVER:
                self._discarding = False  # a client burst ends the oversize run
            return out
        self._buffer += tail
        if not frames and self.direction is Direction.TO_SERVER:
            self._emit(out)
        elif len(self._buffer) > self.max_message_bytes:
            out.append(self._oversize())
            self._discarding = True
        return out

    def flush(self) -> list[Message | ProtocolError]:
        """At EOF: decode whatever is buffered as a last message (the peer closed mid-message)."""
        out: list[Message | ProtocolError] = []
        if self._buffer and not self._discarding:
            self._emit(out)
        self._buffer.clear()
        self._discarding = False
        return out

    def _emit(self, out: list[Message | ProtocolError]) -> None:
        raw = bytes(self._buffer)
        self._buffer.clear()
        if len(raw) > self.max_message_bytes:
            out.append(self._oversize(raw))
            return
        out.extend(_decode_items(raw.decode("utf-8", errors="replace"), self.direction))

    def _oversize(self, raw: bytes | None = None) -> ProtocolError:
        raw = bytes(self._buffer) if raw is None else raw
        self._buffer.clear()
        head = raw[:60].decode("utf-8", errors="replace")
        return ProtocolError(
            f"message longer than {self.max_message_bytes} bytes without NUL "
            f"(starts {head!r}); dropped it; allowed: up to {self.max_message_bytes} bytes"
        )
