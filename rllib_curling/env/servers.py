"""The server an env instance plays on: its private ``curling server`` child, or an address
assigned from ``env_config["server"]`` (the rule is in ``env.config``). Both envs use it, also to
word a lost server (``EnvServer.lost``): a private server that stopped answering is killed there,
so the next ``reset`` starts a new one; a server from the config is never touched.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from rllib_curling.env.config import CurlingEnvConfig, parse_server
from rllib_curling.errors import (
    ConfigError,
    ConnectionLostError,
    PeerTimeoutError,
    ServerStartError,
)
from rllib_curling.server.process import ServerOptions, ServerProcess


class EnvServer:
    """Where to connect; starts (and restarts) the private server in ``server="auto"`` mode."""

    def __init__(self, config: CurlingEnvConfig, worker_index: int) -> None:
        self.config = config
        self.worker_index = worker_index
        self.seed = config.seed
        self.process: ServerProcess | None = None
        self.address: tuple[str, int] | None = None
        self._token: Any = None
        #: How many private servers this env has started (0 for a server from the config).
        self.generation = 0

    @property
    def web_url(self) -> str | None:
        """The private server's web page (``http_port`` set), else None."""
        return self.process.web_url if self.process is not None else None

    @property
    def label(self) -> str | None:
        """``"host:port"`` once known."""
        return f"{self.address[0]}:{self.address[1]}" if self.address else None

    def ensure(self) -> tuple[str, int]:
        """The address to connect to; (re)starts a private server that is not running."""
        if self.config.server != "auto":
            if self.address is None:
                self.address, self._token = ServerAssigner.acquire(self.config, self.worker_index)
            return self.address
        if self.process is None or not self.process.alive():
            self._start()
        assert self.address is not None
        return self.address

    def reseed(self, seed: int) -> None:
        """Stop the private server; the next ``ensure`` starts a fresh one with ``seed``."""
        self.seed = seed
        self._stop_process()

    def kill(self) -> None:
        """Kill the private server abruptly (SIGKILL, reaped; a stopped one too) and keep its
        port for the next ``ensure``, which starts a new one. Tests simulate a crash with it."""
        if self.process is not None:
            self.process.kill()

    def lost(self, exc: ConnectionLostError, during: str) -> ConnectionLostError:
        """The one-line error an env raises when ``exc`` lost it the server ``during`` a call.

        A private server that stayed silent (``PeerTimeoutError``) while still running is hung:
        it is killed here, so the next ``reset()`` starts a new one instead of waiting on it
        again. A server from the config is never touched, only named.
        """
        where = self.label or "(not connected yet)"
        if self.config.server != "auto":
            return ConnectionLostError(
                f"lost the curling server at {where} (from env_config, so not restarted) "
                f"during {during}: {exc}. The next reset() reconnects"
            )
        if isinstance(exc, PeerTimeoutError) and self.process is not None:
            if self.process.alive():
                pid = self.process.pid
                self.kill()
                return ConnectionLostError(
                    f"the private curling server at {where} (pid {pid}) did not answer for "
                    f"{exc.seconds:g} s during {during}, so it was killed; the next reset() "
                    "starts a new one"
                )
        return ConnectionLostError(
            f"lost the private curling server at {where} during {during}: {exc}. The next "
            "reset() reconnects, and restarts the server if it is gone"
        )

    def close(self) -> None:
        self._stop_process()
        ServerAssigner.release(self._token)
        self._token = None

    def _start(self) -> None:
        self._stop_process()
        options = ServerOptions(
            host=self.config.host,
            ends=self.config.ends,
            seed=self.seed,
            turn_timeout=self.config.turn_timeout,
            log_dir=self.config.log_dir,
            sweep_window_ms=self.config.private_sweep_window_ms,
            http_port=self.config.http_port,
        )
        process = None
        if self.address is not None:  # a restart keeps the port when it is still free
            try:
                process = ServerProcess(replace(options, port=self.address[1]))
            except ServerStartError:
                process = None
        self.process = process or ServerProcess(options)
        self.address = self.process.address
        self.generation += 1

    def _stop_process(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None


class ServerAssigner:
    """Hands out entries of a server list per the rule in the module docstring."""

    _lock = threading.Lock()
    _taken: dict[tuple[tuple[str, int], ...], set[int]] = {}

    @classmethod
    def acquire(cls, config: CurlingEnvConfig, worker_index: int) -> tuple[tuple[str, int], Any]:
        """Return ((host, port), token) for this env instance; pass the token to ``release``."""
        entries = parse_server(config.server)
        assert entries is not None, "auto servers are not assigned from a list"
        if len(entries) == 1:
            return entries[0], None
        key = tuple(entries)
        base = max(worker_index - 1, 0) * config.envs_per_worker
        with cls._lock:
            taken = cls._taken.setdefault(key, set())
            k = 0
            while base + k in taken:
                k += 1
            index = base + k
            if index >= len(entries):
                raise ConfigError(
                    f"server list has {len(entries)} entries but this env instance needs entry "
                    f"{index} (worker_index={worker_index}, envs_per_worker="
                    f"{config.envs_per_worker}, {k} already open here); list more servers"
                )
            taken.add(index)
        return entries[index], (key, index)

    @classmethod
    def release(cls, token: Any) -> None:
        if token is None:
            return
        key, index = token
        with cls._lock:
            cls._taken.get(key, set()).discard(index)
