"""ServerProcess (the env's private server): its drained output, a graceful stop, no leftovers.

These run on Windows as on Linux: nothing here sends POSIX signals by hand.
"""

from __future__ import annotations

import gc
import socket
import subprocess
import sys
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


def test_server_process__reads_the_announcement_lines_from_its_drained_stdout() -> None:
    server = ServerProcess(ServerOptions(http_port=0))  # two lines: LISTENING, then WEB
    try:
        assert server.address[0] == "127.0.0.1" and server.web_url is not None
        assert server.web_url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    assert not server.alive()
    server.stop()  # twice is fine


def test_output_drain__a_child_writing_megabytes_never_blocks_and_its_tail_is_kept() -> None:
    code = "import sys\nfor i in range(20000): print('x' * 99)\nprint('last line')"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    drain = server_process.OutputDrain(proc.stdout, head_lines=1, tail_bytes=1000)
    assert proc.wait(timeout=60) == 0  # 2 MB through a pipe of 64 KB: read as it comes
    drain.join(10)
    assert [line.rstrip("\r\n") for line in drain.wait_for_lines(1, 0)] == ["x" * 99]
    tail = drain.tail()
    assert tail.rstrip().endswith("last line") and len(tail) <= 1000


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="on Windows a private server watches its parent, not stdin: stop terminates it",
)
def test_server_process__stop_lets_the_server_exit_on_stdin_eof() -> None:
    server = ServerProcess(ServerOptions())
    _no_terminate(server._proc)
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < server_process.STOP_GRACE_S
    assert not server.alive() and server._proc.returncode == 0


def test_server_process__stop_ends_a_suspended_server() -> None:
    server = ServerProcess(ServerOptions())
    psutil.Process(server.pid).suspend()  # SIGSTOP; on Windows, every thread suspended
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < server_process.STOP_GRACE_S + 5.0
    assert not server.alive()


def test_server_process__kill_ends_it_at_once_and_stop_after_it_is_fine() -> None:
    server = ServerProcess(ServerOptions())
    server.kill()
    assert not server.alive() and server._proc.returncode != 0
    server.stop()


def test_server_process__a_server_never_stopped_is_stopped_when_collected() -> None:
    server = ServerProcess(ServerOptions())
    proc = server._proc
    del server
    gc.collect()
    assert proc.poll() is not None


def test_server_process__a_failed_start_says_why_from_the_servers_stderr() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ServerStartError, match=f"port {port}: .*{port}"):
            ServerProcess(ServerOptions(port=port))
