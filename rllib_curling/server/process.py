"""Start and stop a private ``curling server`` child process (the env's ``server="auto"``).

The child binds loopback ports chosen by the OS (``--tcp-port 0``; ``ports`` of them, one per
room) and prints ``LISTENING <host> <port> [<port> ...]`` once it accepts connections; we read
that line. A private server serves no web page (no port, no cost) unless ``http_port`` asks for
one: then it prints ``WEB <url>`` next, which becomes ``web_url``. It also exits when its
standard input closes (``--exit-with-parent``), so a parent that dies, even by SIGKILL, leaves no
server behind; ``stop()`` and a finalizer (at garbage collection and at interpreter exit) cover
normal exits.

The child writes its stdout and stderr into two temporary files (files, not pipes: a server that
logs a lot never blocks on a full pipe). We read them through handles of our own, so the child's
write offset is never moved, and remove them when the server is stopped. Windows cannot remove a
file that a process still has open, so they are removed only once the child has exited.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass
from typing import IO, Any

from rllib_curling.errors import ServerStartError

#: A first start on a fresh install compiles the engine (numba); under load that takes a while.
START_TIMEOUT_S = 180.0
#: ``stop`` waits this long for the child to exit on its stdin's EOF before it terminates it.
STOP_GRACE_S = 1.0
#: What the child's temporary output files are named (then ``out-`` or ``err-``, random, ``.log``).
OUTPUT_PREFIX = "curling-server-"

if sys.platform == "win32":
    # A process group of its own, so the console's Ctrl+C goes to us, not to the child (which
    # stops when we do). ``start_new_session`` means nothing on Windows.
    _DETACHED: dict[str, Any] = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
else:
    _DETACHED = {"start_new_session": True}


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
        self._paths: tuple[str, ...] = ()
        fds: list[int] = []
        try:
            try:
                for stream in ("out", "err"):
                    fd, path = tempfile.mkstemp(prefix=f"{OUTPUT_PREFIX}{stream}-", suffix=".log")
                    fds.append(fd)
                    self._paths += (path,)
                self._proc = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=fds[0], stderr=fds[1], env=env, **_DETACHED
                )
            finally:
                for fd in fds:  # the child has its own handles; we read through new ones
                    os.close(fd)
        except BaseException:
            _remove(self._paths)
            raise
        # stop() calls it; else it runs when this object is collected, or at interpreter exit.
        self._finalizer = weakref.finalize(self, _shutdown, self._proc, self._paths, 2.0)
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
            head = _read_text(self._paths[0], 4096)
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
        err = _read_text(self._paths[1], 1 << 16, tail=True).strip()
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
        """Stop the server and reap it, then remove its output files. Safe to call twice.

        Closes its stdin first (it exits on EOF) and waits up to ``STOP_GRACE_S`` for that; a
        stopped (SIGSTOP) server is continued so that it reads the EOF. Then terminates it
        (SIGTERM; on Windows TerminateProcess) and after ``timeout`` seconds kills it."""
        if self._finalizer.detach() is not None:
            _shutdown(self._proc, self._paths, timeout)

    def kill(self) -> None:
        """Kill abruptly (SIGKILL, which also ends a stopped process; on Windows
        TerminateProcess) and reap it: the env kills a hung server so, and tests simulate a
        crash. ``stop`` (or the finalizer) still removes the output files."""
        self._proc.kill()
        self._proc.wait()


def _read_text(path: str, size: int, *, tail: bool = False) -> str:
    """The first (or, with ``tail``, the last) ``size`` bytes of a child's output file,
    through a handle of our own: the child's write offset stays where it is."""
    with open(path, "rb") as fh:
        if tail:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - size))
        return fh.read(size).decode("utf-8", "replace")


def _shutdown(proc: subprocess.Popen, paths: tuple[str, ...], timeout: float) -> None:
    """``ServerProcess.stop``: EOF, a grace, terminate, kill; reap; remove the output files
    (also when something went wrong before)."""
    try:
        if proc.poll() is None:
            _close(proc.stdin)  # the child exits on EOF (--exit-with-parent)
            if hasattr(signal, "SIGCONT"):  # POSIX: a stopped child must run to see the EOF
                try:
                    os.kill(proc.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(min(STOP_GRACE_S, timeout))
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout)
    finally:
        _close(proc.stdin)
        _remove(paths)


def _close(pipe: IO[bytes] | None) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except OSError:
        pass


def _remove(paths: tuple[str, ...]) -> None:
    """Remove the output files. On Windows a file is not removed while a handle to it is open:
    the child's are closed once it has exited, but a scanner may still hold one a moment."""
    for path in paths:
        for _ in range(40):
            try:
                os.remove(path)
            except FileNotFoundError:
                break
            except PermissionError:
                time.sleep(0.05)
                continue
            break
