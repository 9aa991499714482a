"""``WebHandle``: the page served from a background thread, for commands that play games in
their own thread (``curling replay``, ``curling match`` between bots, ``curling play``).

The thread runs its own event loop with a ``WebServer`` and the ``WatchHub``; ``publish(record)``
hands a record to the hub from any thread (``call_soon_threadsafe``), never waiting.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any, TextIO

from rllib_curling.server.web.http import WebServer
from rllib_curling.server.web.hub import WatchHub


class WebHandle:
    """Serve ``hub`` on ``host:port`` (0 = a free port) in a daemon thread; ``url``, ``stop()``.

    Raises ``ServerStartError`` (e.g. the port is in use) from the constructor.
    """

    def __init__(self, hub: WatchHub, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hub = hub
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(host, port), name="curling-web", daemon=True
        )
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error

    def _run(self, host: str, port: int) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            web = WebServer(self.hub, host, port)
            await web.start()
            self.url = web.url
            self._ready.set()
            try:
                await self._stop.wait()
            finally:
                await web.stop()

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
        finally:
            self._ready.set()

    def publish(self, record: dict[str, Any]) -> None:
        """Give the hub one record (``WatchHub.write``) from any thread."""
        loop = self._loop
        if loop is not None and self._thread.is_alive():
            try:
                loop.call_soon_threadsafe(self.hub.write, record)
            except RuntimeError:
                pass  # the loop is closing

    def wait(self) -> None:
        """Block until Ctrl+C (KeyboardInterrupt propagates) or ``stop()``."""
        while self._thread.is_alive():
            self._thread.join(0.5)

    def serve_until_ctrl_c(self, message: str | None = None, file: TextIO | None = None) -> None:
        """Print ``message`` (to ``file``, default stdout), keep the page up until Ctrl+C (or
        ``stop()``), then stop it: the end of every command that leaves its games on the page.
        The message is printed inside the Ctrl+C guard: a user (or a script) that presses
        Ctrl+C as soon as it reads the message ends the command normally."""
        try:
            if message is not None:
                print(message, file=file if file is not None else sys.stdout, flush=True)
            self.wait()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the thread. Safe to call twice."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and self._thread.is_alive():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass
        self._thread.join(timeout)

    def __enter__(self) -> WebHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
