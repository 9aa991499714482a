"""Reading one HTTP/1.1 request from an asyncio stream, and the head of an answer: the small part
of HTTP that the page's server (``server.web.http``), the DC4 server (``server.dc4.http``) and the
DC watch page's server (``server.dc_watch.http``) share. Each answers in its own words: a bad
request raises ``UnreadableRequest`` (status and an English reason), which each server turns into
its own refusal; each chooses its own headers for ``response_head``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus

#: The longest request head and body a server reads (bytes).
MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024


class UnreadableRequest(Exception):
    """A request that cannot be read: ``status`` (400 or 413) and why."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


@dataclass(frozen=True)
class Request:
    """``method``, ``target`` (path and query), ``headers`` (names in lower case), ``body``."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        """The target without its query."""
        return self.target.split("?", 1)[0]


async def read_request(reader: asyncio.StreamReader, max_body: int = MAX_BODY) -> Request:
    """The next request on ``reader``; ``UnreadableRequest`` for a head over ``MAX_HEAD``, a
    first line that is not ``METHOD TARGET HTTP/x``, or a body over ``max_body`` bytes. End of
    stream mid request raises ``asyncio.IncompleteReadError``, as the stream does."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise UnreadableRequest(413, "Request head too large") from None
    if len(head) > MAX_HEAD:
        raise UnreadableRequest(413, "Request head too large")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise UnreadableRequest(400, "Not an HTTP request")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        length = -1
    if not 0 <= length <= max_body:
        raise UnreadableRequest(413, f"A body must be 0..{max_body} bytes")
    body = await reader.readexactly(length) if length else b""
    return Request(parts[0], parts[1], headers, body)


def reason(status: int) -> str:
    """The reason phrase of ``status`` (``"Not Found"``); empty for a status HTTP does not name."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def response_head(status: int, headers: Iterable[tuple[str, str]]) -> bytes:
    """An answer's head: the status line, ``headers`` (name, value), and the blank line."""
    lines = [
        f"HTTP/1.1 {status} {reason(status)}",
        *(f"{name}: {value}" for name, value in headers),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
