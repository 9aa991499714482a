"""The entry points of the curling server: run it in this thread, or start it in a background one.

``run_server(config)`` (blocking, SIGINT/SIGTERM stop it), ``serve(config)`` (the coroutine) and
``start_server_thread(config) -> ServerHandle`` (``.address``, ``.stop()``). What the server does
is described in the package docstring (``rllib_curling.server``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from rllib_curling.errors import ServerStartError
from rllib_curling.server.config import ServerConfig
from rllib_curling.server.curling_server import SEAT_WAIT_S, CurlingServer
from rllib_curling.server.loop_thread import LoopThread
from rllib_curling.server.match import load_physics
from rllib_curling.server.people import AgentFactory
from rllib_curling.server.players import warm_up_bots

__all__ = [
    "SEAT_WAIT_S", "CurlingServer", "ServerConfig", "ServerHandle", "run_server", "serve",
    "start_server_thread",
]  # fmt: skip

log = logging.getLogger("rllib_curling.server")


# -- entry points ------------------------------------------------------------------------------


def warm_up_physics() -> None:
    """Import physics and simulate one throw, so numba compiles before the first client plays.

    Raises ``ServerStartError`` when the physics engine cannot be loaded.
    """
    import numpy as np

    try:
        physics = load_physics()
        physics.simulate(np.zeros((16, 2)), 0, (3.0, 0.0, 0.0), np.random.default_rng(0))
    except Exception as exc:
        raise ServerStartError(f"the physics engine cannot be loaded: {exc!r}") from exc


async def serve(
    config: ServerConfig,
    *,
    on_listening: Callable[[list[tuple[str, int]]], None] | None = None,
    stop_event: asyncio.Event | None = None,
    warm_up: bool = True,
    on_web: Callable[[str], None] | None = None,
    agents: dict[str, AgentFactory] | None = None,
    play_key: str | None = None,
) -> None:
    """Run a server until ``stop_event`` is set (or forever); raises ``ServerStartError``.
    ``on_listening`` gets the ``(host, port)`` of every room once the server accepts, then
    ``on_web(url)`` the page's URL when the server serves the page. ``agents``: the agents
    people may play on the page, by name, and ``play_key`` the key people take seats with when
    the server has no ``keys`` (None: a random one; ``server.people``)."""
    server = CurlingServer(config, agents=agents, play_key=play_key)
    addresses = await server.start()  # bind first: a port in use fails at once
    try:
        if warm_up:  # before the ports are announced: no client's reply clock runs meanwhile
            await asyncio.to_thread(warm_up_physics)
            await asyncio.to_thread(warm_up_bots)
    except BaseException:
        await server.stop()
        raise
    if on_listening is not None:
        on_listening(addresses)
    if on_web is not None and server.web is not None:
        on_web(server.web.url)
    try:
        await (stop_event.wait() if stop_event is not None else asyncio.Event().wait())
    finally:
        await server.stop()


def run_server(
    config: ServerConfig,
    *,
    announce: bool = False,
    exit_with_parent: bool = False,
    parent_pid: int | None = None,
    on_listening: Callable[[list[tuple[str, int]]], None] | None = None,
    on_web: Callable[[str], None] | None = None,
    agents: dict[str, AgentFactory] | None = None,
    play_key: str | None = None,
) -> int:
    """Run a server in this thread until SIGINT/SIGTERM (on Windows Ctrl+C or Ctrl+Break), or
    with ``exit_with_parent`` until the parent ends (``_watch_parent``).

    ``announce`` prints ``LISTENING <host> <port> [<port> ...]`` (every room's port) to stdout
    once accepting, then ``WEB <url>`` when it serves the page; ``on_listening`` is called then
    with the rooms' ``(host, port)`` and ``on_web`` with the page's URL. Returns 0; raises
    ``ServerStartError``.
    """

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        stop_on_signals(loop, stop)
        if exit_with_parent:
            _watch_parent(loop, stop, parent_pid)

        def listening(addresses: list[tuple[str, int]]) -> None:
            if announce:
                ports = " ".join(str(port) for _, port in addresses)
                print(f"LISTENING {addresses[0][0]} {ports}", flush=True)
            if on_listening is not None:
                on_listening(addresses)

        def web(url: str) -> None:
            if announce:
                print(f"WEB {url}", flush=True)
            if on_web is not None:
                on_web(url)

        await serve(config, on_listening=listening, stop_event=stop, on_web=web, agents=agents,
                    play_key=play_key)  # fmt: skip

    _run(main())
    return 0


def run_until_signal(serve: Callable[[asyncio.Event], Awaitable[None]]) -> int:
    """Run ``serve(stop)`` on a new event loop until it returns; SIGINT / SIGTERM (Ctrl+C; on
    Windows Ctrl+Break too: ``stop_on_signals``) set ``stop``. 0, the command's exit code."""

    async def main() -> None:
        stop = asyncio.Event()
        stop_on_signals(asyncio.get_running_loop(), stop)
        await serve(stop)

    asyncio.run(main())
    return 0


def stop_on_signals(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Set ``stop`` on SIGINT or SIGTERM; on Windows on Ctrl+C (SIGINT) or Ctrl+Break (SIGBREAK,
    what a parent sends to a child's process group), where asyncio has no signal handlers.

    Not in the main thread (a server run by a test or a notebook in a thread) there are none.
    """
    if sys.platform == "win32":

        def handler(signum: int, frame: object) -> None:
            loop.call_soon_threadsafe(stop.set)

        for sig in (signal.SIGINT, signal.SIGBREAK):
            try:
                signal.signal(sig, handler)
            except ValueError:  # not the main thread
                pass
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):
            pass


def _run(coroutine: Any) -> None:
    """``asyncio.run`` on uvloop when it is installed (a faster event loop), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(coroutine)
        return
    uvloop.run(coroutine)


def _watch_parent(
    loop: asyncio.AbstractEventLoop, stop: asyncio.Event, parent_pid: int | None
) -> None:
    """Set ``stop`` when the parent ends: the process ``parent_pid`` if given; else, on POSIX,
    when standard input reaches EOF (the parent's end of the pipe closes when it dies, even by
    SIGKILL), and on Windows when the parent process ends.

    Windows reads no standard input for this: a thread blocked reading a pipe there can stall
    the server's own writes (under Wine it never announces itself).
    """
    if parent_pid is None and sys.platform != "win32":
        _in_thread(loop, stop, _until_stdin_eof)
        return
    pid = parent_pid if parent_pid is not None else os.getppid()
    _in_thread(loop, stop, lambda: _until_process_ends(pid))


def _until_stdin_eof() -> None:
    """Read standard input to its end. Reads the raw file descriptor, not ``sys.stdin``: a
    daemon thread blocked inside a buffered stream's read holds its lock, and an interpreter
    that exits meanwhile (a start that failed) aborts with "Fatal Python error: could not
    acquire lock for <stdin>"."""
    fd = sys.stdin.fileno()
    try:
        while os.read(fd, 4096):
            pass
    except (OSError, ValueError):
        pass


def _until_process_ends(pid: int) -> None:
    import psutil  # a core dependency; only this watch needs it

    try:
        psutil.Process(pid).wait()
    except psutil.Error:  # gone already (or never ours to see): the parent has ended
        pass


def _in_thread(
    loop: asyncio.AbstractEventLoop, stop: asyncio.Event, wait: Callable[[], None]
) -> None:
    """Run ``wait`` in a daemon thread, then set ``stop``."""

    def watch() -> None:
        wait()
        try:
            loop.call_soon_threadsafe(stop.set)
        except RuntimeError:
            pass  # the loop is already closed

    threading.Thread(target=watch, name="curling-server-parent", daemon=True).start()


class ServerHandle(LoopThread):
    """A server running in a background thread: ``address`` (host, port), ``addresses`` (of
    every room), ``web_url`` (the page's URL with ``http_port``, else None) and ``stop()``."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        warm_up: bool = True,
        agents: dict[str, AgentFactory] | None = None,
    ) -> None:
        self.config, self._agents = config, agents
        #: The key people take seats on the page with when ``config.keys`` is empty.
        self.play_key = secrets.token_urlsafe(9)
        self.address: tuple[str, int] | None = None
        self.addresses: list[tuple[str, int]] = []
        self.web_url: str | None = None
        self._warm_up = warm_up
        super().__init__("curling-server")

    async def _main(self) -> None:
        def listening(addresses: list[tuple[str, int]]) -> None:
            self.address, self.addresses = addresses[0], addresses
            if self.config.http_port is None:
                self._ready.set()

        def web(url: str) -> None:
            self.web_url = url
            self._ready.set()

        await serve(
            self.config, on_listening=listening, stop_event=self._stop, warm_up=self._warm_up,
            on_web=web, agents=self._agents, play_key=self.play_key,
        )  # fmt: skip


def start_server_thread(
    config: ServerConfig, *, warm_up: bool = True, agents: dict[str, AgentFactory] | None = None
) -> ServerHandle:
    """Start a server in a daemon thread; returns once it listens (raises ``ServerStartError``).
    ``agents``: the agents people may play on the page (``server.people``); people take seats
    with one of ``config.keys``, or without keys with ``handle.play_key``."""
    return ServerHandle(config, warm_up=warm_up, agents=agents)
