"""Start and stop a private ``curling server`` child process (the env's ``server="auto"``).

The child binds loopback ports chosen by the OS (``--tcp-port 0``; ``ports`` of them, one per
room) and prints ``LISTENING <host> <port> [<port> ...]`` once it accepts connections; we read
that line. A private server serves no web page (no port, no cost) unless ``http_port`` asks for
one: then it prints ``WEB <url>`` next, which becomes ``web_url``. It also exits when its
standard input closes (``--exit-with-parent``; on Windows when this process ends), so a parent
that dies, even by SIGKILL, leaves no server behind; ``stop()`` and a finalizer (at garbage
collection and at interpreter exit) cover normal exits.

The child's stdout and stderr are pipes that a thread each (``OutputDrain``) reads to their end,
so a server that logs a lot never blocks on a full pipe; they keep the first lines of stdout (the
announcement) and the last ``TAIL_BYTES`` of stderr (the reason of a failed start). Pipes, not
files, because a Windows process started with a regular file as its stdout may not run (under
Wine it writes nothing), and pipes leave nothing on disk.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import weakref
from collections import deque
from dataclasses import dataclass
from typing import IO, Any

from rllib_curling.errors import ServerStartError
from rllib_curling.game import DEFAULT_ENDS
from rllib_curling.protocol.defaults import TURN_TIMEOUT_S

#: A first start on a fresh install compiles the engine (numba); under load that takes a while.
START_TIMEOUT_S = 180.0
#: ``stop`` waits this long for the child to exit on its stdin's EOF before it terminates it.
#: A server exits in well under a second, but on a loaded machine (CI's two jobs side by side)
#: it has taken more than one; a hung server costs this much at stop.
STOP_GRACE_S = 3.0
#: How much of the child's stderr is kept (its last bytes), to say why a start failed.
TAIL_BYTES = 1 << 16

if sys.platform == "win32":
    # A process group of its own, so the console's Ctrl+C goes to us, not to the child (which
    # stops when we do). ``start_new_session`` means nothing on Windows.
    _DETACHED: dict[str, Any] = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
else:
    _DETACHED: dict[str, Any] = {"start_new_session": True}


@dataclass(frozen=True)
class ServerOptions:
    """The ``curling server`` flags a private server is started with."""

    host: str = "127.0.0.1"
    port: int = 0
    ports: int = 1
    ends: int = DEFAULT_ENDS
    seed: int | None = None
    turn_timeout: float = TURN_TIMEOUT_S
    log_dir: str | None = None
    #: Seconds to wait for SWEEP after MOTIONINFO (``ServerConfig.sweep_window``): 0 = none,
    #: for an env that does not sweep.
    sweep_window: float = 0.0
    #: The page that shows the games: None = none (default), 0 = a free port, else that port.
    http_port: int | None = None

    def argv(self) -> list[str]:
        args = [
            "--host", self.host, "--tcp-port", str(self.port), "--ports", str(self.ports),
            "--ends", str(self.ends),
            "--games", "0", "--turn-timeout", str(self.turn_timeout), "--announce",
            *exit_with_parent_args(), "--sweep-window-ms", f"{1000.0 * self.sweep_window:g}",
        ]  # fmt: skip
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        if self.log_dir:
            args += ["--log-dir", self.log_dir]
        if self.http_port is not None:
            args += ["--http-port", str(self.http_port)]
        return args


def exit_with_parent_args() -> list[str]:
    """The ``curling server`` flags that end a child server with this process: stdin's EOF on
    POSIX; on Windows this process's PID (``sys.executable`` may be a venv's launcher, which
    would outlive us as the child's parent)."""
    if sys.platform == "win32":
        return ["--exit-with-parent", "--parent-pid", str(os.getpid())]
    return ["--exit-with-parent"]


class ServerProcess:
    """A running ``curling server`` child. ``address`` is ``(host, port)`` of its first room,
    ``addresses`` those of all its rooms."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        cmd = [sys.executable, "-m", "rllib_curling", "server", *options.argv()]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            **_DETACHED,
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._out = OutputDrain(self._proc.stdout, head_lines=2, tail_bytes=0)
        self._err = OutputDrain(self._proc.stderr, head_lines=0, tail_bytes=TAIL_BYTES)
        # stop() calls it; else it runs when this object is collected, or at interpreter exit.
        self._finalizer = weakref.finalize(self, stop_child, self._proc, 2.0)
        self.web_url: str | None = None
        self.addresses = self._read_addresses()
        self.address = self.addresses[0]

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self._proc.poll() is None

    def _read_addresses(self) -> list[tuple[str, int]]:
        lines_needed = 1 if self.options.http_port is None else 2  # LISTENING, then WEB
        head = self._out.wait_for_lines(lines_needed, START_TIMEOUT_S)
        line = head[0] if head else ""
        parts = line.split()
        web = head[1].split() if len(head) >= 2 else []
        if len(parts) == 2 + self.options.ports and parts[0] == "LISTENING":
            if lines_needed == 1 or (len(web) == 2 and web[0] == "WEB"):
                self.web_url = web[1] if web else None
                return [(parts[1], int(port)) for port in parts[2:]]
        try:  # its stdout ended (it is exiting) or it never answered (hung)
            code: int | None = self._proc.wait(2.0)
            self._err.join(1.0)  # the child is gone: its stderr ends
        except subprocess.TimeoutExpired:
            code = None
        err = self._err.tail().strip()
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
        """Stop the server and reap it. Safe to call twice.

        Closes its stdin first (it exits on EOF) and waits up to ``STOP_GRACE_S`` for that; a
        stopped (SIGSTOP) server is continued so that it reads the EOF. Then terminates it
        (SIGTERM; on Windows TerminateProcess) and after ``timeout`` seconds kills it."""
        if self._finalizer.detach() is not None:
            stop_child(self._proc, timeout)

    def kill(self) -> None:
        """Kill abruptly (SIGKILL, which also ends a stopped process; on Windows
        TerminateProcess) and reap it: the env kills a hung server so, and tests simulate a
        crash."""
        self._proc.kill()
        self._proc.wait()


class OutputDrain(threading.Thread):
    """Reads a child's output pipe to its end in the background, so the child never blocks on a
    full pipe; keeps the first ``head_lines`` lines and the last ``tail_bytes`` bytes (whole
    lines) as text. The pipe is closed at its end."""

    def __init__(self, pipe: IO[bytes], *, head_lines: int, tail_bytes: int) -> None:
        super().__init__(name="curling-server-output", daemon=True)
        self._pipe, self._head_lines, self._tail_bytes = pipe, head_lines, tail_bytes
        self._head: list[str] = []
        self._tail: deque[str] = deque()
        self._tail_size = 0
        self._ended = False
        self._changed = threading.Condition()
        self.start()

    def run(self) -> None:
        try:
            for raw in iter(self._pipe.readline, b""):
                self._keep(raw.decode("utf-8", "replace"))
        except (OSError, ValueError):  # closed under us: the server is gone
            pass
        finally:
            _close(self._pipe)
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def _keep(self, line: str) -> None:
        with self._changed:
            if len(self._head) < self._head_lines:
                self._head.append(line)
            if self._tail_bytes:
                self._tail.append(line)
                self._tail_size += len(line)
                while self._tail_size > self._tail_bytes and len(self._tail) > 1:
                    self._tail_size -= len(self._tail.popleft())
            self._changed.notify_all()

    def wait_for_lines(self, count: int, timeout: float) -> list[str]:
        """The first lines (up to ``head_lines``) once there are ``count`` of them, the pipe
        has ended, or ``timeout`` seconds have passed."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._head) >= count or self._ended, timeout)
            return list(self._head)

    def tail(self) -> str:
        """The last ``tail_bytes`` of the output (whole lines)."""
        with self._changed:
            return "".join(self._tail)


def stop_child(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """Stop a ``curling server`` child started with ``exit_with_parent_args()`` and a stdin
    pipe (``ServerProcess.stop``, the benchmarks): ask it to end (stdin's EOF, POSIX), a grace,
    terminate, kill; reap."""
    try:
        if proc.poll() is None:
            _close(proc.stdin)  # the child exits on EOF (--exit-with-parent, POSIX)
            asked = _ask_to_end(proc)
            try:
                proc.wait(min(STOP_GRACE_S, timeout) if asked else 0)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout)
    finally:
        _close(proc.stdin)


def _ask_to_end(proc: subprocess.Popen) -> bool:
    """Ask a child server to end gracefully; False if it cannot be asked (then it is terminated
    at once). POSIX: the stdin EOF has asked; a stopped (SIGSTOP) child is continued to see it.
    Windows: the child watches this process, not its stdin, and Ctrl+Break to its group is no
    way either (Wine's fails and leaves an error pending in the interpreter): TerminateProcess.
    A private server has written every finished game's record by then."""
    if sys.platform == "win32":
        return False
    try:
        os.kill(proc.pid, signal.SIGCONT)
    except ProcessLookupError:
        pass
    return True


def _close(pipe: IO[bytes] | None) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except OSError:
        pass
