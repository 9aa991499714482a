"""Start and stop a private ``curling server`` child process (the env's ``server="auto"``).

The child binds loopback ports chosen by the OS (``--tcp-port 0``; ``ports`` of them, one per
room) and prints ``LISTENING <host> <port> [<port> ...]`` once it accepts connections; we read
that line. A private server serves no web page (no port, no cost) unless ``http_port`` asks for
one: then it prints ``WEB <url>`` next, which becomes ``web_url``. It also exits when its
standard input closes (``--exit-with-parent``), so a parent that dies, even by SIGKILL, leaves no
server behind; ``stop()`` and an ``atexit`` hook cover normal exits.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass

from rllib_curling.errors import ServerStartError

#: A first start on a fresh install compiles the engine (numba); under load that takes a while.
START_TIMEOUT_S = 180.0
_LIVE: weakref.WeakSet[ServerProcess] = weakref.WeakSet()


@dataclass(frozen=True)
class ServerOptions:
    """The ``curling server`` flags a private server is started with."""

    host: str = "127.0.0.1"
    port: int = 0
    ports: int = 1
    ends: int = 4
    seed: int | None = None
    turn_timeout: float = 120.0
    log_dir: str | None = None
    sweep_window_ms: int = 0
    #: The page that shows the games: None = none (default), 0 = a free port, else that port.
    http_port: int | None = None

    def argv(self) -> list[str]:
        args = [
            "--host", self.host, "--tcp-port", str(self.port), "--ports", str(self.ports),
            "--ends", str(self.ends),
            "--games", "0", "--turn-timeout", str(self.turn_timeout), "--announce",
            "--exit-with-parent", "--sweep-window-ms", str(self.sweep_window_ms),
        ]  # fmt: skip
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        if self.log_dir:
            args += ["--log-dir", self.log_dir]
        if self.http_port is not None:
            args += ["--http-port", str(self.http_port)]
        return args


class ServerProcess:
    """A running ``curling server`` child. ``address`` is ``(host, port)`` of its first room,
    ``addresses`` those of all its rooms."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        cmd = [sys.executable, "-m", "rllib_curling", "server", *options.argv()]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        # Files, not pipes: a server that logs a lot must never block on a full pipe.
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=self._out,
            stderr=self._err,
            env=env,
            start_new_session=True,
        )
        _LIVE.add(self)
        self.web_url: str | None = None
        self.addresses = self._read_addresses()
        self.address = self.addresses[0]

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self._proc.poll() is None

    def _read_addresses(self) -> list[tuple[str, int]]:
        deadline = time.monotonic() + START_TIMEOUT_S
        line = head = ""
        lines_needed = 1 if self.options.http_port is None else 2  # LISTENING, then WEB
        while time.monotonic() < deadline:
            # pread: the child shares the file's offset, so never move it from here.
            head = os.pread(self._out.fileno(), 4096, 0).decode("utf-8", "replace")
            line = head.split("\n", 1)[0] + ("\n" if "\n" in head else "")
            if head.count("\n") >= lines_needed or self._proc.poll() is not None:
                break
            time.sleep(0.01)
        parts = line.split()
        web = head.split("\n")[1].split() if head.count("\n") >= 2 else []
        if len(parts) == 2 + self.options.ports and parts[0] == "LISTENING":
            if lines_needed == 1 or (len(web) == 2 and web[0] == "WEB"):
                self.web_url = web[1] if web else None
                return [(parts[1], int(port)) for port in parts[2:]]
        err = os.pread(self._err.fileno(), 1 << 16, 0).decode("utf-8", "replace").strip()
        code = self._proc.poll()
        self.stop()
        where = f"port {self.options.port}" if self.options.port else "a free port"
        if err:
            why = err.splitlines()[-1]
        elif code is not None:
            why = f"it exited with code {code} before listening ({line.strip() or 'no output'})"
        else:
            why = f"no answer in {START_TIMEOUT_S:.0f} s"
        raise ServerStartError(
            f"could not start a curling server on {self.options.host} {where}: {why}"
        )

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (terminate, then kill) and reap it; a stopped (SIGSTOP) server is
        continued so that it acts on the SIGTERM at once. Safe to call twice."""
        proc = self._proc
        if proc.poll() is None:
            for pipe in (proc.stdin,):
                try:
                    pipe and pipe.close()
                except OSError:
                    pass
            proc.terminate()
            if hasattr(signal, "SIGCONT"):  # POSIX
                try:
                    os.kill(proc.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        for stream in (proc.stdin, self._out, self._err):
            try:
                stream and stream.close()
            except OSError:
                pass
        _LIVE.discard(self)

    def kill(self) -> None:
        """Kill abruptly (SIGKILL, which also ends a stopped process) and reap it: the env
        kills a hung server so, and tests simulate a crash."""
        self._proc.kill()
        self._proc.wait()


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop(timeout=2.0)
