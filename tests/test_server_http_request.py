"""One HTTP request read from a stream, as the page's, DC4's and the DC watch page's servers read
them; a request that cannot be read is refused with its status. An answer's head, as they write
it."""

from __future__ import annotations

import asyncio

import pytest

from rllib_curling.server.http_request import (
    MAX_HEAD,
    Request,
    UnreadableRequest,
    read_request,
    reason,
    response_head,
)


def _read(data: bytes, max_body: int = 1024) -> Request:
    async def run() -> Request:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return await read_request(reader, max_body)

    return asyncio.run(run())


def test_read_request__method_target_headers_and_body() -> None:
    request = _read(b"POST /api/play?key=k HTTP/1.1\r\nContent-Length: 2\r\nX-A: b\r\n\r\n{}")
    assert (request.method, request.target, request.path) == (
        "POST",
        "/api/play?key=k",
        "/api/play",
    )
    assert request.headers == {"content-length": "2", "x-a": "b"} and request.body == b"{}"


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"hello\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nContent-Length: 2048\r\n\r\n", 413),
        (b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 413),
        (b"GET / HTTP/1.1\r\nX: " + b"a" * MAX_HEAD + b"\r\n\r\n", 413),
    ],
)
def test_read_request__unreadable_requests_are_refused_with_a_status(
    data: bytes, status: int
) -> None:
    with pytest.raises(UnreadableRequest) as refused:
        _read(data)
    assert refused.value.status == status


def test_read_request__a_stream_that_ends_mid_request_is_an_incomplete_read() -> None:
    with pytest.raises(asyncio.IncompleteReadError):
        _read(b"GET / HTTP/1.1\r\n")


def test_response_head__status_line_headers_and_the_blank_line() -> None:
    head = response_head(404, [("Content-Type", "application/json"), ("Content-Length", "2")])
    assert head == (
        b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n"
    )
    assert response_head(299, []) == b"HTTP/1.1 299 \r\n\r\n"  # a status HTTP does not name
    assert reason(429) == "Too Many Requests"
