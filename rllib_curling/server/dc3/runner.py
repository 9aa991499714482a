"""Entry points of the DC3 server: ``run_dc3_server`` (blocking, for ``curling server
--protocol dc3``) and ``DC3Handle`` (a server on a loop in a thread, for tests and programs;
``on_listening`` runs on its loop once it listens, e.g. ``dc_seats``' ``attach``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rllib_curling.dc_ice import warm_up
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.tcp import DC3Server
from rllib_curling.server.loop_thread import LoopThread
from rllib_curling.server.runner import stop_on_signals


async def serve(
    config: DC3ServerConfig,
    stop: asyncio.Event,
    on_listening: Callable[[DC3Server], None] | None = None,
) -> None:
    """Serve until ``stop`` is set or ``config.games`` games were played."""
    await asyncio.to_thread(warm_up)
    server = DC3Server(config)
    await server.start()
    try:
        if on_listening is not None:
            on_listening(server)
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(server.finished.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
    finally:
        await server.stop()


def run_dc3_server(
    config: DC3ServerConfig, on_listening: Callable[[DC3Server], None] | None = None
) -> int:
    """Serve until the games are played or SIGINT / SIGTERM (Ctrl+C; on Windows Ctrl+Break
    too: ``stop_on_signals``); 0."""

    async def main() -> None:
        stop = asyncio.Event()
        stop_on_signals(asyncio.get_running_loop(), stop)
        await serve(config, stop, on_listening)

    asyncio.run(main())
    return 0


class DC3Handle(LoopThread):
    """A DC3 server on its own loop in a daemon thread: ``ports``, ``server``, ``stop()``."""

    def __init__(
        self,
        config: DC3ServerConfig,
        on_listening: Callable[[DC3Server], None] | None = None,
    ) -> None:
        self.config = config
        self.on_listening = on_listening
        self.server: DC3Server | None = None
        super().__init__("dc3-server")

    async def _main(self) -> None:
        assert self._stop is not None

        def listening(server: DC3Server) -> None:
            self.server = server
            if self.on_listening is not None:
                self.on_listening(server)
            self._ready.set()

        await serve(self.config, self._stop, listening)

    @property
    def ports(self) -> tuple[int, int]:
        assert self.server is not None
        return self.server.ports
