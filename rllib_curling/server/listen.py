"""``listen``: ``asyncio.start_server`` with the one-line error a person can act on, for every
server of the package (the platform's TCP rooms, DC3's two ports, the three HTTP servers)."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Awaitable, Callable

from rllib_curling.errors import ServerStartError

#: ``(reader, writer)`` -> the connection's coroutine, as ``asyncio.start_server`` takes it.
OnConnect = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def listen(
    on_connect: OnConnect, host: str, port: int, *, what: str, option: str
) -> tuple[asyncio.Server, tuple[str, int]]:
    """Listen on ``host:port`` (0: a free port); the server and the address it got.
    ``ServerStartError`` when it cannot: "``what`` PORT on HOST is already in use (choose another
    with ``option``, or 0 for a free one)", or the system's reason."""
    try:
        server = await asyncio.start_server(on_connect, host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServerStartError(
                f"{what} {port} on {host} is already in use (choose another with {option}, or 0 "
                "for a free one)"
            ) from None
        raise ServerStartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    name = server.sockets[0].getsockname()
    return server, (str(name[0]), int(name[1]))
