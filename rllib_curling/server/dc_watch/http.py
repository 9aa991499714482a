"""``WatchServer``: the watch page alone on a small asyncio HTTP/1.1 server (GET only, each
answer closes its connection), and ``WatchHandle``: it in a background thread, for
``curling replay`` of DC records. The DC4 server serves the same ``WatchPage`` itself.

With ``feeds`` (the DC3 server's ``--http-port``), ``GET /watch/api/stream/<id>`` is the game's
``StateFeed`` as server-sent events (``STREAM_PATH``), a ``: ping`` comment after
``ping_interval`` s of silence; it stays open until the watcher leaves or the server stops."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TextIO

from rllib_curling.dc_protocol import sse
from rllib_curling.server.dc_watch.feed import StateFeed
from rllib_curling.server.dc_watch.page import Answer, WatchPage
from rllib_curling.server.http_request import UnreadableRequest, read_request, reason, response_head
from rllib_curling.server.listen import listen
from rllib_curling.server.loop_thread import LoopThread

REQUEST_TIMEOUT_S = 10.0
STREAM_PATH = "/watch/api/stream/{match_id}"
_STREAM_PREFIX = STREAM_PATH.split("{", 1)[0]


def encode_answer(answer: Answer) -> bytes:
    """The HTTP/1.1 bytes of ``answer`` (``Connection: close``)."""
    head = [("Content-Type", answer.content_type), ("Content-Length", str(len(answer.body))),
            ("Cache-Control", "no-cache"), ("Connection", "close")]  # fmt: skip
    return response_head(answer.status, head) + answer.body


class WatchServer:
    """Serves ``page`` on ``host:port`` (0: a free port); ``url`` once started; with ``feeds``
    (a game's feed by id, None: no such game) the games' streams too."""

    def __init__(
        self,
        page: WatchPage,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        feeds: Callable[[str], StateFeed | None] | None = None,
        ping_interval: float = sse.PING_INTERVAL,
    ) -> None:
        self.page, self.host, self.port = page, host, port
        self.feeds, self.ping_interval = feeds, ping_interval
        self.address: tuple[str, int] | None = None
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        assert self.address is not None, "not started"
        host = self.address[0]
        return f"http://{f'[{host}]' if ':' in host else host}:{self.address[1]}/"

    async def start(self) -> None:
        self._server, self.address = await listen(
            self._on_connect, self.host, self.port, what="HTTP port", option="--http-port"
        )

    async def stop(self) -> None:
        """Stop listening and end every stream."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            try:
                request = await asyncio.wait_for(read_request(reader, 0), REQUEST_TIMEOUT_S)
            except UnreadableRequest as exc:
                writer.write(encode_answer(Answer.json({"detail": str(exc)}, exc.status)))
                await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
                return
            method, path = request.method, request.path
            feed = None
            if method == "GET" and self.feeds is not None and path.startswith(_STREAM_PREFIX):
                feed = self.feeds(path[len(_STREAM_PREFIX) :])
            if feed is not None:
                await self._stream(writer, feed)
                return
            answer = self.page.answer(path) if method == "GET" else None
            if answer is None:
                status = 404 if method == "GET" else 405
                answer = Answer.json({"detail": reason(status)}, status)
            writer.write(encode_answer(answer))
            await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError, ValueError, asyncio.CancelledError):  # fmt: skip
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _stream(self, writer: asyncio.StreamWriter, feed: StateFeed) -> None:
        head = [("Content-Type", sse.CONTENT_TYPE), ("Cache-Control", "no-cache"),
                ("Connection", "close")]  # fmt: skip
        writer.write(response_head(200, head))
        queue = feed.subscribe()
        try:
            while True:
                try:
                    data = await asyncio.wait_for(queue.get(), self.ping_interval)
                except TimeoutError:
                    data = sse.PING
                writer.write(data)
                await asyncio.wait_for(writer.drain(), REQUEST_TIMEOUT_S)
        finally:
            feed.unsubscribe(queue)


class WatchHandle(LoopThread):
    """A ``WatchServer`` on its own loop in a daemon thread: ``url``, ``stop()``."""

    def __init__(self, page: WatchPage, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = WatchServer(page, host, port)
        super().__init__("dc-watch")

    async def _main(self) -> None:
        assert self._stop is not None
        await self.server.start()
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    def serve_until_ctrl_c(self, message: str, file: TextIO | None = None) -> None:
        """Print ``message``, serve until Ctrl+C, stop."""
        try:
            print(message, file=file if file is not None else sys.stdout, flush=True)
            self._thread.join()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()
