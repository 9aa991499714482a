"""``LoopThread``: an asyncio event loop in a daemon thread, started and stopped from another.

The base of ``ServerHandle`` (a curling server in the background, ``server.runner``),
``WebHandle`` (the page alone, ``server.web.handle``) and ``ServeThread`` (a server that one
``serve(stop, listening)`` coroutine runs: the DC3 and DC4 handles). A subclass writes
``_main``: it sets up, calls ``self._ready.set()`` once it serves, and returns when
``self._stop`` is set. The constructor returns once ``_main`` is ready, and raises what ``_main``
raised before that. The thread starts inside ``LoopThread.__init__``, so a subclass sets
everything ``_main`` reads before it calls ``super().__init__``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

_T = TypeVar("_T", bound="LoopThread")
_S = TypeVar("_S")


class LoopThread:
    """Run ``self._main()`` on a new event loop in a daemon thread named ``name``."""

    def __init__(self, name: str) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error

    async def _main(self) -> None:
        """Serve until ``self._stop`` is set; call ``self._ready.set()`` once serving."""
        raise NotImplementedError

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await self._main()

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
        finally:
            self._ready.set()

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop, from any thread; nothing once the loop is gone."""
        loop = self._loop
        if loop is not None and self._thread.is_alive():
            try:
                loop.call_soon_threadsafe(callback, *args)
            except RuntimeError:
                pass  # the loop is closing

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the loop's work and wait for the thread. Safe to call twice."""
        stop = self._stop
        if stop is not None:
            self.call_soon(stop.set)
        self._thread.join(timeout)

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServeThread(LoopThread, Generic[_S]):
    """``serve(stop, listening)`` on a loop in a daemon thread (``name``): it serves until
    ``stop`` is set and calls ``listening(server)`` once it listens; then ``server`` is that
    server and ``on_listening(server)`` has run on the loop. The constructor returns then."""

    def __init__(
        self,
        name: str,
        serve: Callable[[asyncio.Event, Callable[[_S], None]], Awaitable[None]],
        on_listening: Callable[[_S], None] | None = None,
    ) -> None:
        self._serve, self.on_listening = serve, on_listening
        self.server: _S | None = None
        super().__init__(name)

    async def _main(self) -> None:
        assert self._stop is not None

        def listening(server: _S) -> None:
            self.server = server
            if self.on_listening is not None:
                self.on_listening(server)
            self._ready.set()

        await self._serve(self._stop, listening)
