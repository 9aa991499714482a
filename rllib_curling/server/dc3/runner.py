"""Entry points of the DC3 server: ``run_dc3_server`` (blocking, for ``curling server
--protocol dc3``) and ``DC3Handle`` (a server on a loop in a thread, for tests and programs;
``on_listening`` runs on its loop once it listens, e.g. ``dc_seats``' ``attach``)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from rllib_curling.dc_ice import warm_up
from rllib_curling.server.dc3.config import DC3ServerConfig
from rllib_curling.server.dc3.tcp import DC3Server
from rllib_curling.server.loop_thread import ServeThread
from rllib_curling.server.runner import run_until_signal


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
    """Serve until the games are played or SIGINT / SIGTERM (``runner.run_until_signal``); 0."""
    return run_until_signal(functools.partial(serve, config, on_listening=on_listening))


class DC3Handle(ServeThread[DC3Server]):
    """A DC3 server on its own loop in a daemon thread: ``ports``, ``server``, ``stop()``."""

    def __init__(
        self,
        config: DC3ServerConfig,
        on_listening: Callable[[DC3Server], None] | None = None,
    ) -> None:
        self.config = config
        super().__init__("dc3-server", functools.partial(serve, config), on_listening)

    @property
    def ports(self) -> tuple[int, int]:
        assert self.server is not None
        return self.server.ports
