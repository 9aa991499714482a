"""The server an env instance plays on: a room of a private ``curling server`` child
(``PrivateServer``: one per env, or one per vector env), or an address assigned from
``env_config["server"]`` (the rule is in ``env.config``). All envs use it, also to
word a lost server (``EnvServer.lost``): a private server that stopped answering is killed there,
so the next ``reset`` starts a new one; a server from the config is never touched.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from rllib_curling.client import CONNECT_TIMEOUT_S, CurlingClient
from rllib_curling.env.config import CurlingEnvConfig
from rllib_curling.errors import (
    ConfigError,
    ConnectionLostError,
    PeerTimeoutError,
    ServerStartError,
)
from rllib_curling.server.process import ServerOptions, ServerProcess


class PrivateServer:
    """A private ``curling server`` child with ``rooms`` ports (one per env that plays on it):
    started on first use, restarted when it is gone, stopped by ``close``.

    ``CurlingEnv`` owns one with one room; ``CurlingVectorEnv`` owns one with a room per sub-env,
    so its envs pay for one server process (memory, start-up) instead of one each. Room ``i``
    plays as a server of its own seeded ``seed + i``.
    """

    def __init__(self, config: CurlingEnvConfig, rooms: int = 1) -> None:
        self.config = config
        self.rooms = rooms
        self.seed = config.seed
        self.process: ServerProcess | None = None
        self.addresses: list[tuple[str, int]] | None = None
        #: How many times the process has been started.
        self.generation = 0

    def ensure(self) -> list[tuple[str, int]]:
        """Every room's ``(host, port)``; (re)starts the process if it is not running."""
        if self.process is None or not self.process.alive():
            self._start()
        assert self.addresses is not None
        return self.addresses

    def reseed(self, seed: int) -> None:
        """Stop the process; the next ``ensure`` starts a fresh one with ``seed``."""
        self.seed = seed
        self.stop()

    def kill(self) -> None:
        """SIGKILL (a stopped process too) and reap; the next ``ensure`` starts a new one."""
        if self.process is not None:
            self.process.kill()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def _start(self) -> None:
        self.stop()
        options = ServerOptions(
            host=self.config.host,
            ports=self.rooms,
            ends=self.config.ends,
            seed=self.seed,
            turn_timeout=self.config.turn_timeout,
            log_dir=self.config.log_dir,
            sweep_window=self.config.private_sweep_window,
            http_port=self.config.http_port,
        )
        process = None
        if self.addresses is not None and self.rooms == 1:  # a restart keeps a single port
            try:
                process = ServerProcess(replace(options, port=self.addresses[0][1]))
            except ServerStartError:
                process = None
        self.process = process or ServerProcess(options)
        self.addresses = self.process.addresses
        self.generation += 1


class EnvServer:
    """Where one env connects: room ``room`` of a private server (``server="auto"``; its own
    one-room server unless ``private`` is given), or an entry of the config's server list."""

    def __init__(
        self,
        config: CurlingEnvConfig,
        worker_index: int,
        *,
        private: PrivateServer | None = None,
        room: int = 0,
    ) -> None:
        self.config = config
        self.worker_index = worker_index
        self.room = room
        self._owns_private = private is None and config.server == "auto"
        self.private = PrivateServer(config) if self._owns_private else private
        self.address: tuple[str, int] | None = None
        self._token: Any = None

    @property
    def process(self) -> ServerProcess | None:
        """The private server's process (None for a server from the config)."""
        return self.private.process if self.private is not None else None

    @property
    def generation(self) -> int:
        """How many private servers have been started for this env (0 for a config server)."""
        return self.private.generation if self.private is not None else 0

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
        if self.private is None:
            if self.address is None:
                self.address, self._token = ServerAssigner.acquire(self.config, self.worker_index)
            return self.address
        self.address = self.private.ensure()[self.room]
        return self.address

    def connect_client(self, *, key: str, name: str, timeout: float) -> CurlingClient:
        """A client of this server (``ensure``: started if need be), connected with ``key`` and
        ``name``; it waits ``timeout`` seconds for a message (``CurlingEnvConfig.reply_timeout``)
        and at most ``CONNECT_TIMEOUT_S`` of them to connect. Every env connects so; a client
        that fails to connect is closed before the error propagates."""
        host, port = self.ensure()
        client = CurlingClient(
            host, port, key=key, name=name, timeout=timeout,
            connect_timeout=min(timeout, CONNECT_TIMEOUT_S), sweep_reply=self.config.sweep_reply,
        )  # fmt: skip
        try:
            client.connect()
        except BaseException:
            client.close()
            raise
        return client

    def reseed(self, seed: int) -> None:
        """Stop the private server; the next ``ensure`` starts a fresh one with ``seed``."""
        if not self._owns_private:
            raise RuntimeError(
                "this env plays on a server it shares (a vector env's sub-env): seed the "
                "vector env's reset() instead"
            )
        assert self.private is not None
        self.private.reseed(seed)

    def kill(self) -> None:
        """Kill the private server abruptly (SIGKILL, reaped; a stopped one too); the next
        ``ensure`` starts a new one (on the same port if it can). Tests simulate a crash so."""
        if self.private is not None:
            self.private.kill()

    def lost(self, exc: ConnectionLostError, during: str) -> ConnectionLostError:
        """The one-line error an env raises when ``exc`` lost it the server ``during`` a call.

        A private server that stayed silent (``PeerTimeoutError``) while still running is hung:
        it is killed here, so the next ``reset()`` starts a new one instead of waiting on it
        again. A server from the config is never touched, only named.
        """
        where = self.label or "(not connected yet)"
        if self.private is None:
            return ConnectionLostError(
                f"lost the curling server at {where} (from env_config, so not restarted) "
                f"during {during}: {exc}. The next reset() reconnects"
            )
        process = self.private.process
        if isinstance(exc, PeerTimeoutError) and process is not None and process.alive():
            pid = process.pid
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
        """Release this env's server: stop its own private server, free its list entry."""
        if self._owns_private and self.private is not None:
            self.private.stop()
        ServerAssigner.release(self._token)
        self._token = None


class ServerAssigner:
    """Hands out entries of a server list per the rule in the module docstring."""

    _lock = threading.Lock()
    _taken: dict[tuple[tuple[str, int], ...], set[int]] = {}

    @classmethod
    def acquire(cls, config: CurlingEnvConfig, worker_index: int) -> tuple[tuple[str, int], Any]:
        """Return ((host, port), token) for this env instance; pass the token to ``release``."""
        entries = config.servers
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
