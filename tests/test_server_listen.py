"""``server.listen``: every server's listening socket, and the one-line error when it cannot."""

from __future__ import annotations

import asyncio
import socket

import pytest

from rllib_curling.errors import ServerStartError
from rllib_curling.server.listen import listen


async def _nothing(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.close()


def test_listen__a_free_port_gives_the_server_and_its_address() -> None:
    async def run() -> tuple[str, int]:
        server, address = await listen(_nothing, "127.0.0.1", 0, what="TCP port", option="--x")
        server.close()
        await server.wait_closed()
        return address

    host, port = asyncio.run(run())
    assert host == "127.0.0.1" and port > 0


def test_listen__a_taken_port_names_the_flag_that_chooses_another() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerStartError) as caught:
            asyncio.run(listen(_nothing, "127.0.0.1", port, what="team0's port", option="--port0"))
    assert str(caught.value) == (
        f"team0's port {port} on 127.0.0.1 is already in use (choose another with --port0, or 0 "
        "for a free one)"
    )
