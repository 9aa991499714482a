"""Server-sent events (the WHATWG ``text/event-stream`` format) for DC4's streams, sans-I/O:
framing for a server, an incremental parser for our own client.

An event is ``event: <name>`` and one ``data: <line>`` per line of its data, ended by a blank
line; a line starting with ``:`` is a comment (DC4 sends ``: ping`` to keep the stream alive).

- ``encode_event(Event(data, event))`` / ``encode_comment(text)``, ``PING``: the wire bytes
  (a server pings every ``PING_INTERVAL``, within dc4client's ``DC4CLIENT_READ_TIMEOUT``).
- ``EventParser().feed(data) -> list[Event | Comment | ProtocolError]``: lines end with
  ``\\n``, ``\\r\\n`` or ``\\r`` (a ``\\r\\n`` split across chunks counts once); a leading BOM
  is dropped; UTF-8 split across chunks is joined; ``field: value`` loses one space after the
  colon; several ``data`` lines join with ``\\n``; a blank line dispatches the event when it
  has data (``event`` defaults to ``"message"``; ``id`` persists, as the standard says);
  unknown fields and ``retry`` are ignored; a comment is returned as it comes (so a client
  can count pings). A line longer than ``max_line_chars`` yields one ``ProtocolError`` and
  the event being built is dropped. An unfinished event at EOF is dropped (the standard).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import TypeAlias

from rllib_curling.errors import ProtocolError

CONTENT_TYPE = "text/event-stream; charset=utf-8"
#: Headers DC4's server sends with a stream (beside the content type).
STREAM_HEADERS = (("Cache-Control", "no-cache"), ("Connection", "keep-alive"))
#: Longer lines are refused by EventParser (a state is a few kB).
MAX_LINE_CHARS = 1024 * 1024
#: dc4client 1.0.7 drops a stream silent this long (s; its ``socket_read_timeout``) and
#: reconnects; DC4's server pings every 30 s, so a server of ours pings every PING_INTERVAL.
DC4CLIENT_READ_TIMEOUT = 15.0
PING_INTERVAL = 10.0

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Event:
    """One event: its ``data`` (lines joined with ``\\n``), name and ``id`` (None: none set)."""

    data: str
    event: str = "message"
    id: str | None = None


@dataclass(frozen=True)
class Comment:
    """A comment line (``: ping`` → ``Comment("ping")``)."""

    text: str


Item: TypeAlias = Event | Comment | ProtocolError


def _one_line(what: str, value: str) -> None:
    if _EOL.search(value):
        raise ProtocolError(f"SSE {what} {value!r} holds a line break; allowed: one line")


def encode_event(event: Event) -> bytes:
    """``event: name``, ``id: …`` when set, a ``data:`` line per line of data, a blank line."""
    _one_line("event name", event.event)
    lines = [f"event: {event.event}"]
    if event.id is not None:
        _one_line("id", event.id)
        lines.append(f"id: {event.id}")
    lines += [f"data: {line}" for line in _EOL.split(event.data)]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def encode_comment(text: str) -> bytes:
    """``: text`` and a blank line (the blank line dispatches nothing; it flushes proxies)."""
    _one_line("comment", text)
    return f": {text}\n\n".encode()


#: DC4's keep-alive comment.
PING = encode_comment("ping")


class EventParser:
    """Turns a received ``text/event-stream`` into events and comments (module docstring)."""

    def __init__(self, *, max_line_chars: int = MAX_LINE_CHARS) -> None:
        self.max_line_chars = int(max_line_chars)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._started = False  # the BOM check is done
        self._skip_lf = False  # the last chunk ended in \r: a leading \n belongs to it
        self._discarding = False  # inside an over-long line
        self._event = ""
        self._data: list[str] = []
        self._last_id: str | None = None

    @property
    def pending(self) -> int:
        """Characters received that do not end a line yet."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Item]:
        text = self._decoder.decode(bytes(data))
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        if self._skip_lf and text:
            text = text.removeprefix("\n")
            self._skip_lf = False
        out: list[Item] = []
        buf = self._buffer + text
        pos = 0
        for match in _EOL.finditer(buf):
            line = buf[pos : match.start()]
            pos = match.end()
            if self._discarding:
                self._discarding = False
                continue
            self._line(line, out)
        if buf.endswith("\r"):
            self._skip_lf = True
        self._buffer = buf[pos:]
        if len(self._buffer) > self.max_line_chars and not self._discarding:
            head = self._buffer[:60]
            out.append(
                ProtocolError(
                    f"SSE line longer than {self.max_line_chars} characters (starts {head!r}); "
                    f"dropped it and its event; allowed: up to {self.max_line_chars}"
                )
            )
            self._discarding = True
            self._event, self._data = "", []
        if self._discarding:
            self._buffer = ""
        return out

    def _line(self, line: str, out: list[Item]) -> None:
        if not line:
            if self._data:
                out.append(Event("\n".join(self._data), self._event or "message", self._last_id))
            self._event, self._data = "", []
            return
        if line.startswith(":"):
            out.append(Comment(line[1:].removeprefix(" ")))
            return
        name, colon, value = line.partition(":")
        value = value.removeprefix(" ") if colon else ""
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._last_id = value
