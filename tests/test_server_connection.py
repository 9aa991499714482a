"""server.connection: a client that goes away, cleanly or by a reset, is an ordinary disconnect."""

from __future__ import annotations

import logging
import socket
import struct
import sys
import time

import pytest

from rllib_curling.server.connection import closed_by_peer

pytestmark = pytest.mark.timeout(60)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server


def _winerror(code: int) -> OSError:
    """An OSError as Windows raises it (``winerror`` exists only there, so it is set here)."""
    exc = OSError(22, "The specified network name is no longer available")
    exc.winerror = code  # type: ignore[attr-defined]
    return exc


def test_closed_by_peer__resets_aborts_and_winerror_64_but_not_other_errors() -> None:
    assert closed_by_peer(ConnectionResetError(104, "Connection reset by peer"))
    assert closed_by_peer(ConnectionAbortedError(10053, "aborted"))
    assert closed_by_peer(BrokenPipeError(32, "Broken pipe"))
    assert closed_by_peer(_winerror(64))  # ERROR_NETNAME_DELETED, if asyncio does not wrap it
    assert not closed_by_peer(_winerror(1450))  # ERROR_NO_SYSTEM_RESOURCES
    assert not closed_by_peer(OSError(12, "Cannot allocate memory"))
    assert not closed_by_peer(TimeoutError())


@pytest.mark.parametrize("how", ["eof", "reset"])
def test_connection__a_client_that_closes_or_resets_is_logged_as_a_disconnect(
    how: str, start_server: object, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="rllib_curling.server")
    server = start_server()  # type: ignore[operator]
    sock = socket.create_connection(server.address, timeout=10)
    sock.sendall(b"CONNECTKEY:localtest\0")
    seated = b""
    while b"CONNECTNAME" not in seated:  # seated in the lobby, its read loop running
        chunk = sock.recv(1024)
        assert chunk, f"closed before CONNECTNAME; received {seated!r}"
        seated += chunk
    if how == "eof":  # a FIN: the server reads EOF
        sock.shutdown(socket.SHUT_WR)
    else:  # SO_LINGER 0 (as closing with unread input does): the server's read gets a reset
        linger = struct.pack("HH" if sys.platform == "win32" else "ii", 1, 0)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        sock.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        closed = [r for r in caplog.records if "the client closed the connection" in r.message]
        if closed:
            break
        time.sleep(0.05)
    sock.close()
    assert [r.levelno for r in closed] == [logging.DEBUG], caplog.text
    if how == "reset":
        assert "(" in closed[0].message  # names the error, e.g. "[Errno 104] Connection reset"
    loud = [r for r in caplog.records if r.levelno >= logging.INFO and "<Connection" in r.message]
    assert not [r for r in loud if "error" in r.message.lower()], caplog.text
