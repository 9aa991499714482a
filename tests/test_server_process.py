"""ServerProcess (the env's private server): its output files, a graceful stop, no leftovers.

These run on Windows as on Linux: nothing here sends POSIX signals by hand.
"""

from __future__ import annotations

import gc
import os
import socket
import subprocess
import tempfile
import time

import psutil
import pytest

from rllib_curling.errors import ServerStartError
from rllib_curling.server import process as server_process
from rllib_curling.server.process import ServerOptions, ServerProcess

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("no_leftover_servers")]


def _no_terminate(proc: subprocess.Popen) -> None:
    """Make terminate() and kill() of ``proc`` fail the test: stop must not need them."""

    def refuse() -> None:
        pytest.fail("stop() terminated a server that exits on its stdin's EOF")

    proc.terminate = proc.kill = refuse  # type: ignore[method-assign]


def test_server_process__reads_the_announcement_from_files_it_removes_on_stop() -> None:
    server = ServerProcess(ServerOptions(http_port=0))  # two lines: LISTENING, then WEB
    paths = server._paths
    try:
        assert server.address[0] == "127.0.0.1" and server.web_url is not None
        assert len(paths) == 2 and all(os.path.isfile(path) for path in paths)
        with open(paths[0], "rb") as fh:
            assert fh.read().startswith(b"LISTENING 127.0.0.1 ")
    finally:
        server.stop()
    assert not any(os.path.exists(path) for path in paths)
    server.stop()  # twice is fine


def test_server_process__stop_lets_the_server_exit_on_stdin_eof() -> None:
    server = ServerProcess(ServerOptions())
    _no_terminate(server._proc)
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < server_process.STOP_GRACE_S
    assert not server.alive() and server._proc.returncode == 0


def test_server_process__stop_ends_a_suspended_server_and_removes_its_files() -> None:
    server = ServerProcess(ServerOptions())
    psutil.Process(server.pid).suspend()  # SIGSTOP; on Windows, every thread suspended
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < server_process.STOP_GRACE_S + 5.0
    assert not server.alive() and not any(os.path.exists(path) for path in server._paths)


def test_server_process__kill_ends_it_at_once_and_stop_still_cleans_up() -> None:
    server = ServerProcess(ServerOptions())
    server.kill()
    assert not server.alive() and server._proc.returncode != 0
    assert all(os.path.exists(path) for path in server._paths)  # kept for stop()
    server.stop()
    assert not any(os.path.exists(path) for path in server._paths)


def test_server_process__a_server_never_stopped_is_stopped_when_collected() -> None:
    server = ServerProcess(ServerOptions())
    proc, paths = server._proc, server._paths
    del server
    gc.collect()
    assert proc.poll() is not None and not any(os.path.exists(path) for path in paths)


def test_server_process__a_failed_start_leaves_no_files(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    mkstemp = tempfile.mkstemp

    def recording(*args: object, **kwargs: object) -> tuple[int, str]:
        fd, path = mkstemp(*args, **kwargs)  # type: ignore[arg-type]
        made.append(path)
        return fd, path

    monkeypatch.setattr(server_process.tempfile, "mkstemp", recording)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerStartError, match=f"port {port}: .*"):
            ServerProcess(ServerOptions(port=port))
    assert len(made) == 2 and all(
        os.path.basename(p).startswith(server_process.OUTPUT_PREFIX) for p in made
    )
    assert not any(os.path.exists(path) for path in made)
