"""Fixtures of the server tests (a pytest plugin: ``pytest_plugins = ("server_fixtures",)``)."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import install_fake_engine, real_bots_available, real_physics_available


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> str:
    """Real physics and bots when they exist, else the stand-ins; returns which ("real"...)."""
    fake_physics, fake_bots = not real_physics_available(), not real_bots_available()
    install_fake_engine(monkeypatch, physics=fake_physics, bots=fake_bots)
    return "fake" if fake_physics else "real"


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The controlled stand-ins for physics and bots."""
    install_fake_engine(monkeypatch, physics=True, bots=True)


@pytest.fixture
def start_server() -> Any:
    """``start_server(**config) -> ServerHandle`` on 127.0.0.1, port chosen by the OS; every
    server is stopped when the test ends."""
    from rllib_curling.server import start_server_thread
    from rllib_curling.server_config import ServerConfig

    handles: list[Any] = []

    def start(**options: Any) -> Any:
        options.setdefault("tcp_port", 0)
        options.setdefault("seed", 1234)
        handle = start_server_thread(ServerConfig(**options))
        handles.append(handle)
        return handle

    yield start
    for handle in handles:
        handle.stop()
