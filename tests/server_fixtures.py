"""Fixtures of the server tests (a pytest plugin: ``pytest_plugins = ("server_fixtures",)``)."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import install_fake_engine


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The controlled stand-ins for physics and bots (see ``install_fake_engine``)."""
    install_fake_engine(monkeypatch)


@pytest.fixture
def start_server() -> Any:
    """``start_server(**config) -> ServerHandle`` on 127.0.0.1, port chosen by the OS; every
    server is stopped when the test ends. ``sweep_window`` defaults to 0 here (the raw clients
    do not answer MOTIONINFO); the tests of sweeping and of course clients set it."""
    from rllib_curling.server import start_server_thread
    from rllib_curling.server.config import ServerConfig

    handles: list[Any] = []

    def start(**options: Any) -> Any:
        options.setdefault("tcp_port", 0)
        options.setdefault("seed", 1234)
        options.setdefault("sweep_window", 0.0)
        handle = start_server_thread(ServerConfig(**options))
        handles.append(handle)
        return handle

    yield start
    for handle in handles:
        handle.stop()


@pytest.fixture
def start_server_process() -> Any:
    """``start_server_process(*flags) -> (Popen, port)``: ``curling server`` as a child process on
    127.0.0.1 (port chosen by the OS), for tests that measure the server process itself; every
    one is stopped by its PID when the test ends."""
    import subprocess
    import sys

    procs: list[subprocess.Popen[str]] = []

    def start(*flags: str) -> tuple[subprocess.Popen[str], int]:
        cmd = [sys.executable, "-m", "rllib_curling", "server", "--tcp-port", "0", "--announce"]
        proc = subprocess.Popen(
            [*cmd, "--seed", "1234", "--sweep-window-ms", "0", *flags],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        assert line[:1] == ["LISTENING"], f"server did not start: {line}"
        return proc, int(line[2])

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
