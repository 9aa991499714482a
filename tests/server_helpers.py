"""Helpers of the server tests: a raw protocol client written from protocol.md alone, and
controlled stand-ins for physics and bots that a test installs on purpose (``fake_engine``).

The raw client deliberately does not use ``rllib_curling.protocol``: it reads the socket byte by
byte up to each NUL and splits on spaces, like the course's sample clients.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psutil
import pytest

TEE_X, TEE_Y = 2.375, 4.88

#: Whether a test can send one child process Ctrl+C (SIGINT) or a graceful SIGTERM. Windows
#: cannot: CTRL_C_EVENT reaches every process of the console (pytest's too), CTRL_BREAK_EVENT is
#: not a KeyboardInterrupt, and Popen.send_signal(SIGTERM) is TerminateProcess (exit code 1).
SIGNALS_TO_ONE_CHILD = sys.platform != "win32"


def ctrl_c_as_in_a_terminal() -> None:
    """In a child before exec: SIGINT's default action, as a terminal's shell gives it. A parent
    that ignores SIGINT passes its SIG_IGN on, and Python then never raises KeyboardInterrupt.
    A test runner started in the background ignores it (a shell's background job does), and a
    pytest process keeps that until some test installs a handler in it (an in-process server
    does), so without this, whether Ctrl+C stops a child depends on which tests ran before it
    in the same process: under pytest-xdist, on one worker it did and on the other not."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: ``subprocess.Popen`` keywords for a child that a test stops with Ctrl+C (``send_stop_signal``
#: with SIGINT): ``ctrl_c_as_in_a_terminal`` where one child can be sent SIGINT.
CTRL_C_CHILD: dict[str, Any] = (
    {"preexec_fn": ctrl_c_as_in_a_terminal} if SIGNALS_TO_ONE_CHILD else {}
)


def send_stop_signal(proc: subprocess.Popen, sig: int) -> bool:
    """Send child ``proc`` ``sig`` (SIGINT, i.e. Ctrl+C as a terminal sends it, or SIGTERM), or
    terminate it where that cannot be sent (Windows, see ``SIGNALS_TO_ONE_CHILD``). Returns
    whether the signal was sent: only then does the exit code say how the child took it."""
    if SIGNALS_TO_ONE_CHILD:
        proc.send_signal(sig)
    else:
        proc.terminate()
    return SIGNALS_TO_ONE_CHILD


@dataclass(frozen=True)
class Stopped:
    """How a child took its stop signal (``stop_and_reap``): whether the signal itself was
    ``sent`` (``send_stop_signal``), its exit code and what it printed after the signal."""

    sent: bool
    returncode: int
    stdout: str
    stderr: str

    @property
    def clean(self) -> bool:
        """Exited with 0; or terminated where the signal cannot be sent, when the exit code
        says nothing."""
        return self.returncode == 0 or not self.sent


def stop_and_reap(proc: subprocess.Popen, sig: int, timeout: float = 30.0) -> Stopped:
    """``send_stop_signal``, then wait up to ``timeout`` s for ``proc`` to exit. A child that
    does not is killed and reaped (nothing outlives its test) and the test fails."""
    sent = send_stop_signal(proc, sig)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"{proc.args!r} was still running {timeout:g} s after signal {sig}; "
                    f"stderr: {_text(err)[-2000:]}")  # fmt: skip
    return Stopped(sent, proc.returncode, _text(out), _text(err))


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


# -- a client written from protocol.md ---------------------------------------------------------


@dataclass
class Transcript:
    """What a raw client saw: every message, and the parsed game events."""

    messages: list[str] = field(default_factory=list)
    seat: int | None = None
    positions: list[list[float]] = field(default_factory=list)
    setstates: list[list[int]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    totals: list[tuple[int, int]] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    motions: list[list[float]] = field(default_factory=list)
    gos: int = 0
    closed_by_empties: bool = False

    def keywords(self) -> list[str]:
        return [m.split(" ")[0] if m else "" for m in self.messages]


class RawClient:
    """A protocol.md client on a raw socket. ``key=None``: a legacy client (no CONNECTKEY)."""

    def __init__(
        self, port: int, key: str | None = "localtest", *, name: str = "raw", timeout: float = 30
    ) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.name = name
        self.t = Transcript()
        if key is not None:
            self.send(f"CONNECTKEY:{key}")

    def send(self, text: str, *, nul: bool = False) -> None:
        self.sock.sendall(text.encode("utf-8") + (b"\0" if nul else b""))

    def recv_msg(self) -> str | None:
        """One message up to its NUL; None at EOF."""
        buf = bytearray()
        while True:
            byte = self.sock.recv(1)
            if not byte:
                return None
            if byte == b"\0":
                return buf.decode("utf-8")
            buf += byte

    def close(self) -> None:
        self.sock.close()

    def wait_for_seat(self) -> int:
        """Read up to this client's ``CONNECTNAME`` (its seat is taken then: a client that
        connects after this returns is seated after it); the messages go into the transcript
        as ``play`` puts them. Returns the seat; EOFError if the server closes first."""
        while True:
            raw = self.recv_msg()
            if raw is None:
                raise EOFError(f"closed before CONNECTNAME; received {self.t.messages}")
            self.t.messages.append(raw)
            parts = raw.split()
            if parts and parts[0] in ("NAME", "CONNECTNAME"):
                self.t.seat = int(parts[1][-1]) - 1
            if parts and parts[0] == "CONNECTNAME" and self.t.seat is not None:
                return self.t.seat

    def play(
        self,
        throw: Callable[[Transcript], str] | None = None,
        *,
        sweep: float | None = None,
        on_message: Callable[[RawClient, str], bool] | None = None,
        stop_after_games: int | None = None,
    ) -> Transcript:
        """Answer ISREADY, GO (``throw`` gives the BESTSHOT text), MOTIONINFO (``sweep``), until
        5 empty messages in a row, EOF, or ``stop_after_games`` GAMEOVERs. ``on_message`` may
        handle a message first (return True to skip the default handling); both get it stripped,
        as the course template strips every message."""
        t, empties = self.t, 0
        throw = throw or (lambda _t: "BESTSHOT 3.0 0.0 0.0")
        while True:
            raw = self.recv_msg()
            if raw is None:
                return t
            t.messages.append(raw)  # as received: the trailing space is checked
            msg = raw.strip()  # as the course template reads it
            if msg == "":
                empties += 1
                if empties >= 5:
                    t.closed_by_empties = True
                    return t
                continue
            empties = 0
            if on_message is not None and on_message(self, msg):
                continue
            self._handle(msg, throw, sweep)
            if stop_after_games is not None and len(t.results) >= stop_after_games:
                return t

    def _handle(self, msg: str, throw: Callable[[Transcript], str], sweep: float | None) -> None:
        t = self.t
        parts = msg.split(" ")
        code = parts[0]
        if code in ("CONNECTNAME", "NAME"):
            t.seat = int(parts[1].strip()[-1]) - 1
        elif code == "ISREADY":
            self.send("READYOK")
            self.send(f"NAME {self.name}")
        elif code == "POSITION":
            t.positions.append([float(v) for v in parts[1:33]])
        elif code == "SETSTATE":
            t.setstates.append([int(v) for v in parts[1:5]])
        elif code == "GO":
            t.gos += 1
            self.send(throw(t))
        elif code == "MOTIONINFO":
            t.motions.append([float(v) for v in parts[1:6]])
            if sweep is not None:
                self.send(f"SWEEP {sweep}")
        elif code == "SCORE":
            t.scores.append(int(parts[1]))
        elif code == "TOTALSCORE":
            t.totals.append((int(parts[1]), int(parts[2])))
        elif code == "GAMEOVER":
            t.results.append(parts[1])


# -- stand-ins for physics and bots ------------------------------------------------------------


def _clamp_throw(throw: Any) -> np.ndarray:
    a = np.asarray(throw, dtype=np.float64).reshape(-1)
    if a.size not in (3, 4) or not np.all(np.isfinite(a)):
        raise ValueError(f"bad throw {throw!r}")
    if a.size == 3:
        a = np.append(a, 0.0)
    return np.clip(a, [0.0, -2.23, -15.7, 0.0], [6.0, 2.23, 15.7, 12.0])


def _fake_simulate(
    position: Any,
    slot: int,
    throw: Any,
    rng: Any = None,
    *,
    until_midsheet: bool = False,
    seed: int | None = None,
    **_: Any,
) -> types.SimpleNamespace:
    """Controlled physics: a draw stops at y = 4.88 + 4 (3 - v) - 0.2 sweep, x = 2.3506 + h
    (+ tiny noise from ``rng``); a draw landing on a stone ticks it +0.35 m in x; v > 4.5 is a
    takeout removing the first stone within 0.29 m of its line, the shooter leaves play."""
    v, h, w, sweep = _clamp_throw(throw)
    pos = np.array(position, dtype=np.float64)
    rng = np.random.default_rng(seed) if seed is not None else rng
    noise = rng.normal(0.0, 1e-4) if rng is not None else 0.0
    x = 2.3506 + h + noise
    mid = np.array([x, 21.5, 0.0, -0.8 * v, w]) if v >= 1.0 else None
    if until_midsheet:
        return types.SimpleNamespace(position=pos, mid=mid, trajectory=None)
    in_play = (pos[:, 0] != 0) | (pos[:, 1] != 0)
    if v > 4.5:
        near = np.flatnonzero(in_play & (np.abs(pos[:, 0] - x) < 0.29))
        if near.size:
            pos[near[np.argmax(pos[near, 1])]] = 0.0
        pos[slot] = 0.0
    else:
        y = TEE_Y + 4.0 * (3.0 - v) - 0.2 * sweep
        near = np.flatnonzero(in_play & (np.hypot(pos[:, 0] - x, pos[:, 1] - y) < 0.29))
        pos[near, 0] += 0.35
        pos[slot] = (x, y)
    x_, y_ = pos[:, 0], pos[:, 1]
    inside = (x_ > 0.145) & (x_ < 4.605) & (y_ > 2.865) & (y_ < 10.525)
    pos[~inside] = 0.0
    return types.SimpleNamespace(position=pos, mid=mid, trajectory=None)


class FakeBot:
    """Level 0 throws out of play; others draw near the tee with a little spread."""

    def __init__(self, level: int) -> None:
        self.level = level
        self.name = f"fake-bot-{level}"

    def choose(self, state: Any, rng: np.random.Generator) -> tuple[float, float, float, float]:
        if self.level == 0:
            return (0.5, 0.0, 0.0, 0.0)
        return (3.0 + rng.uniform(-0.1, 0.1), rng.uniform(-0.3, 0.3), 1.0, 0.0)

    def centerline_choice(self, transition: Any) -> str:
        return "RESET"


def fake_physics_module() -> types.ModuleType:
    mod = types.ModuleType("fake_physics")
    mod.simulate = _fake_simulate  # type: ignore[attr-defined]
    mod.clamp_throw = _clamp_throw  # type: ignore[attr-defined]
    return mod


def install_fake_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the server's matches the controlled stand-ins for physics and bots, for one test.

    A deliberate test double for the tests that need exact, scripted outcomes (centre-line
    fouls, sweep timing); every other server test plays on the real engine and bots.
    """
    from rllib_curling.server import match, players

    monkeypatch.setattr(match, "load_physics", fake_physics_module)
    monkeypatch.setattr(players, "make_bot", FakeBot)


OnMessage = Callable[[RawClient, str], bool] | None


def play_pair(
    port: int,
    names: tuple[str, str] = ("alpha", "beta"),
    *,
    keys: tuple[str, str] = ("k", "k"),
    on_message: tuple[OnMessage, OnMessage] = (None, None),
    **play: Any,
) -> tuple[Transcript, Transcript]:
    """Two raw clients play each other (``RawClient.play``, the second in a thread): the first
    is seated before the second connects, so it is Player1 in game 1. Their transcripts, the
    first's first; what the second's thread raised is raised here."""
    first = RawClient(port, keys[0], name=names[0])
    second: RawClient | None = None
    try:
        assert first.wait_for_seat() == 0  # arrival order decides the seats
        second = RawClient(port, keys[1], name=names[1])
        out: dict[str, Transcript | BaseException] = {}

        def play_second() -> None:
            assert second is not None
            try:
                out["t"] = second.play(on_message=on_message[1], **play)
            except BaseException as exc:  # raised in the caller's thread below
                out["t"] = exc

        thread = threading.Thread(target=play_second)
        thread.start()
        t_first = first.play(on_message=on_message[0], **play)
        thread.join(30)
    finally:
        first.close()
        if second is not None:
            second.close()
    assert not thread.is_alive(), "the second client still plays"
    if isinstance(out["t"], BaseException):
        raise out["t"]
    return t_first, out["t"]


def wait_until(pred: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def check_game_order(t: Transcript) -> None:
    """Assert the message order of protocol.md "One game" in one seat's transcript: every game
    after the first starts with the seat announced again, every message ends with a space."""
    msgs = [m for m in t.messages if m.strip()]
    kws = [m.split(" ")[0] for m in msgs]
    assert all(m.endswith(" ") for m in msgs), [m for m in msgs if not m.endswith(" ")][:3]
    assert kws[:2] == ["NAME", "CONNECTNAME"], kws[:4]
    assert kws[2] == "ISREADY" and kws[3] == "NEWGAME", kws[:6]
    seat = None
    for i, kw in enumerate(kws):
        if kw in ("NAME", "CONNECTNAME"):
            seat = int(msgs[i].split(" ")[1][-1]) - 1
        elif kw == "NEWGAME" and i > 3:
            assert kws[i - 2 : i] == ["NAME", "CONNECTNAME"], kws[i - 4 : i + 1]
        elif kw == "GO":
            assert kws[i - 2 : i] == ["POSITION", "SETSTATE"], kws[i - 4 : i + 1]
            assert int(msgs[i - 1].split(" ")[4]) == seat  # SETSTATE next = me
        elif kw == "SCORE":
            assert kws[i - 1] == "POSITION" and kws[i + 1] == "SETSTATE", kws[i - 2 : i + 3]
            assert msgs[i + 1].split(" ")[1] == "16"
        elif kw == "TOTALSCORE":
            assert kws[i + 1] == "GAMEOVER"
            assert kws[i - 1] == "SETSTATE" and msgs[i - 1].split(" ")[1] == "16"
        elif kw == "MOTIONINFO":
            back = kws[:i][::-1]
            assert back.index("GO") < (back.index("POSITION") if "POSITION" in back else 10**9)
        elif kw == "POSITION":
            parts = msgs[i].split(" ")
            assert len(parts) == 34 and parts[-1] == "" and "  " not in msgs[i]


def process_memory_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of process ``pid`` in MB: psutil's RSS (the working set on
    Windows), and the peak from Windows' ``peak_wset`` or Linux's VmHWM (/proc: psutil has no
    peak there)."""
    info = psutil.Process(pid).memory_info()
    peak = getattr(info, "peak_wset", None)
    if peak is None:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            (line,) = [line for line in fh if line.startswith("VmHWM:")]
        peak = int(line.split()[1]) * 1024  # kB
    return info.rss / 2**20, peak / 2**20
