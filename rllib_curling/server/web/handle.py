"""``WebHandle``: the page served from a background thread, for commands that play games in
their own thread (``curling replay``, ``curling match`` between bots, ``curling play``).

The thread runs its own event loop with a ``WebServer`` and the ``WatchHub``; ``publish(record)``
hands a record to the hub from any thread (``call_soon_threadsafe``), never waiting.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rllib_curling.server.loop_thread import LoopThread
from rllib_curling.server.web.http import WebServer
from rllib_curling.server.web.hub import WatchHub


class WebHandle(LoopThread):
    """Serve ``hub`` on ``host:port`` (0 = a free port) in a daemon thread; ``url``, ``stop()``.

    Raises ``ServerStartError`` (e.g. the port is in use) from the constructor.
    """

    def __init__(self, hub: WatchHub, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hub = hub
        self.url = ""
        self._where = (host, port)
        super().__init__("curling-web")

    async def _main(self) -> None:
        assert self._stop is not None
        web = WebServer(self.hub, *self._where)
        await web.start()
        self.url = web.url
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await web.stop()

    def publish(self, record: dict[str, Any]) -> None:
        """Give the hub one record (``WatchHub.write``) from any thread, never waiting."""
        self.call_soon(self.hub.write, record)

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
