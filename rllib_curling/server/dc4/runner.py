"""Entry points of the DC4 server: ``run_dc4_server`` (blocking, for ``curling server
--protocol dc4``) and ``DC4Handle`` (a server on a loop in a thread, for tests and programs;
``on_listening`` runs on its loop once it listens, e.g. ``dc_seats``' ``attach``)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from rllib_curling.dc_ice import warm_up
from rllib_curling.server.dc4.config import DC4ServerConfig
from rllib_curling.server.dc4.http import DC4Server
from rllib_curling.server.loop_thread import ServeThread
from rllib_curling.server.runner import run_until_signal


async def serve(
    config: DC4ServerConfig,
    stop: asyncio.Event,
    on_listening: Callable[[DC4Server], None] | None = None,
) -> None:
    """Serve until ``stop`` is set."""
    await asyncio.to_thread(warm_up)
    server = DC4Server(config)
    await server.start()
    try:
        if on_listening is not None:
            on_listening(server)
        await stop.wait()
    finally:
        await server.stop()


def run_dc4_server(
    config: DC4ServerConfig, on_listening: Callable[[DC4Server], None] | None = None
) -> int:
    """Serve until SIGINT / SIGTERM (``runner.run_until_signal``); 0."""
    return run_until_signal(functools.partial(serve, config, on_listening=on_listening))


class DC4Handle(ServeThread[DC4Server]):
    """A DC4 server on its own loop in a daemon thread: ``url``, ``server``, ``stop()``."""

    def __init__(
        self,
        config: DC4ServerConfig,
        on_listening: Callable[[DC4Server], None] | None = None,
    ) -> None:
        self.config = config
        super().__init__("dc4-server", functools.partial(serve, config), on_listening)

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url
