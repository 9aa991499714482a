"""Course clients play whole multi-game sessions on ``curling server`` unchanged.

The clients here are written from how the course's programs read and write the wire (see
docs/protocol_notes.md), not with this package's protocol code:

- a **2020-era client**: no CONNECTKEY, ``recv(1024)``, the command is ``chunk.split(" ")[0]``
  and the arguments ``chunk.split(" ")[1:-1]`` (it relies on the trailing space before the NUL
  and on one message per chunk), its seat from ``NAME PlayerN``;
- the **course template** (``AIRobot.py``): reads byte by byte up to each NUL, strips, splits;
  takes its side from ``CONNECTNAME`` and updates it from each ``SCORE`` (the scorer throws
  first next end, a blank end swaps);
- a **sweeping client**: the template answering every MOTIONINFO with ``SWEEP d`` at once;
- a **late sweeper**: silent on its first MOTIONINFO, then answering the later ones.

The sweep rule (the server waits for a SWEEP on a connection's first MOTIONINFO, then only for
connections that have sent one) is checked with the template (waits once per session) and the
sweepers (every sweep counts; a late first SWEEP earns the window from the next stone).

Each checks, at every GO, that what it believes about its stones matches what the server says.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rllib_curling.server import records

pytestmark = pytest.mark.timeout(120)
pytest_plugins = ("server_fixtures",)  # fixtures: start_server


class Client2020:
    """A 2020-era client (see the module docstring)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.order = ""  # "Player1" / "Player2", from NAME
        self.setstate: list[int] = []
        self.chunks: list[bytes] = []
        self.results: list[str] = []
        self.gos = 0
        self.mismatches: list[str] = []

    def run(self) -> None:
        empties = 0
        while empties < 5:
            data = self.sock.recv(1024)
            if not data:
                break
            self.chunks.append(data)
            msg = data.decode("utf-8")
            parts = msg.split(" ")
            cmd, args = parts[0], parts[1:-1]
            empties = empties + 1 if cmd == "\0" else 0
            if cmd == "NAME":
                self.order = args[0]
            elif cmd == "ISREADY":
                self.sock.send(b"READYOK")
                self.sock.send(b"NAME SampleAI2020")
            elif cmd == "SETSTATE":
                self.setstate = [int(a) for a in args]
            elif cmd == "GO":
                self.gos += 1
                me = 0 if self.order == "Player1" else 1
                if self.setstate[3] != me:
                    self.mismatches.append(f"GO for {self.order} but SETSTATE {self.setstate}")
                self.sock.send(b"BESTSHOT 3.05 0.3 -1.5")
            elif cmd == "MOTIONINFO":
                assert len([float(a) for a in args]) == 5
                self.sock.send(b"SWEEP 2.0")
            elif cmd == "GAMEOVER":
                self.results.append(args[0])
        self.sock.close()


class TemplateClient:
    """The course template's reading and bookkeeping (see the module docstring)."""

    def __init__(self, port: int, key: str, name: str, sweep: float | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.send(f"CONNECTKEY:{key}".encode())
        self.name, self.sweep = name, sweep
        self.player_is_init = False
        self.seat = -1
        self.round_total = 0
        self.position = [0.0] * 32
        self.results: list[str] = []
        self.gos = 0
        self.mismatches: list[str] = []

    def recv_msg(self) -> tuple[str, list[str]]:
        buffer = bytearray()
        while True:
            data = self.sock.recv(1)
            if not data or data == b"\0":
                break
            buffer.extend(data)
        msg_list = buffer.decode().strip().split(" ")
        return msg_list[0], msg_list[1:]

    def run(self) -> None:
        empties = 0
        while empties < 5:
            code, args = self.recv_msg()
            empties = empties + 1 if code == "" else 0
            if code == "CONNECTNAME":
                self.player_is_init = args[0] == "Player1"
                self.seat = 0 if args[0] == "Player1" else 1
            elif code == "ISREADY":
                self.sock.send(b"READYOK")
                self.sock.send(f"NAME {self.name}".encode())
            elif code == "SETSTATE":
                self.shot, self.end, self.round_total, self.next_shot = (int(a) for a in args)
            elif code == "POSITION":
                self.position = [float(a) for a in args[:32]]
            elif code == "GO":
                self.gos += 1
                self._check_side()
                self.sock.send(b"BESTSHOT 3.0 0.2 1.0")
            elif code == "MOTIONINFO" and self.sweep is not None:
                self.sock.send(f"SWEEP {self.sweep}".encode())
            elif code == "SCORE" and self.round_total != -1:
                score = int(args[0])
                self.player_is_init = (
                    True if score > 0 else False if score < 0 else not self.player_is_init
                )
            elif code == "GAMEOVER":
                self.results.append(args[0])
        self.sock.close()

    def _check_side(self) -> None:
        """The template's belief (I throw the even stones this end) against SETSTATE."""
        first_seat = self.next_shot if self.shot % 2 == 0 else 1 - self.next_shot
        if self.player_is_init != (first_seat == self.seat) or self.next_shot != self.seat:
            self.mismatches.append(
                f"shot {self.shot} end {self.end}: believes first={self.player_is_init}, "
                f"seat {self.seat}, SETSTATE next {self.next_shot}"
            )


class TimedTemplateClient(TemplateClient):
    """The template, noting when each message came: ``(time.monotonic(), code)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.times: list[tuple[float, str]] = []

    def recv_msg(self) -> tuple[str, list[str]]:
        code, args = super().recv_msg()
        self.times.append((time.monotonic(), code))
        return code, args

    def motion_waits(self) -> list[float]:
        """Seconds from each MOTIONINFO to the next message (the server's sweep wait)."""
        return [
            later - at
            for (at, code), (later, _) in zip(self.times, self.times[1:], strict=False)
            if code == "MOTIONINFO"
        ]


class LateSweeper(TemplateClient):
    """The template, silent on its first MOTIONINFO and sending ``SWEEP d`` on every later one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.motions = 0

    def recv_msg(self) -> tuple[str, list[str]]:
        code, args = super().recv_msg()
        if code == "MOTIONINFO":
            self.motions += 1
            if self.motions > 1:
                self.sock.send(f"SWEEP {self.sweep}".encode())
            return "MOTIONINFO-answered", args  # run() must not answer it again
        return code, args


def _sweeps_of(log_dir: Path, name: str) -> list[float]:
    """The sweep of every shot ``name`` threw, in order, from the server's records."""
    lines = records.read_records(next(log_dir.glob("*.jsonl")))
    starts = {r["game_id"]: r["players"] for r in lines if r["type"] == "game_start"}
    shots = [r for r in lines if r["type"] == "shot"]
    return [s["sweep"] for s in shots if starts[s["game_id"]][s["thrower"]] == name]


def _play(*clients: Any) -> None:
    threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
    for th in threads:
        th.start()
    for th in threads:
        th.join(100)
        assert not th.is_alive(), "a client never finished its session"


@pytest.mark.slow
def test_client_2020__plays_a_three_game_session_against_a_bot(start_server: Any) -> None:
    from rllib_curling.server import ServerConfig

    server = start_server(ends=1, games=3, opponent=3, sweep_window=ServerConfig().sweep_window)
    client = Client2020(server.address[1])  # no CONNECTKEY: seated after the legacy wait
    _play(client)
    assert len(client.results) == 3 and client.gos == 3 * 8
    assert client.mismatches == []
    # one message per chunk, each ending with " \0", as these clients need
    assert all(c.count(b"\0") == 1 and c.endswith(b" \0") for c in client.chunks if c != b"\0")


def test_course_template__knows_its_stones_in_every_game(start_server: Any) -> None:
    server = start_server(ends=2, games=3, sweep_window=0.05)
    client = TemplateClient(server.address[1], "localtest:4", "template")
    _play(client)
    assert len(client.results) == 3 and client.gos == 3 * 2 * 8
    assert client.mismatches == []


def test_course_template__two_of_them_play_each_other(start_server: Any) -> None:
    server = start_server(ends=2, games=2, sweep_window=0.05)
    a = TemplateClient(server.address[1], "k", "alpha")
    b = TemplateClient(server.address[1], "k", "beta")
    _play(a, b)
    assert len(a.results) == len(b.results) == 2
    assert a.mismatches == [] and b.mismatches == []
    assert a.gos == b.gos == 2 * 2 * 8


def test_sweeping_client__every_sweep_counts_from_the_first(
    start_server: Any, tmp_path: Path
) -> None:
    from rllib_curling.server import ServerConfig

    server = start_server(
        ends=1, games=2, log_dir=str(tmp_path), sweep_window=ServerConfig().sweep_window
    )
    client = TemplateClient(server.address[1], "localtest:2", "sweeper", sweep=3.0)
    _play(client)
    server.stop()
    assert len(client.results) == 2 and client.mismatches == []
    assert _sweeps_of(tmp_path, "sweeper") == [3.0] * (2 * 8)


def test_course_template__waits_one_sweep_window_per_session_not_per_stone(
    start_server: Any,
) -> None:
    window = 1.5
    server = start_server(ends=1, games=2, sweep_window=window)
    client = TimedTemplateClient(server.address[1], "localtest:2", "template")  # never sweeps
    started = time.monotonic()
    _play(client)
    elapsed = time.monotonic() - started
    assert len(client.results) == 2 and client.gos == 2 * 8 and client.mismatches == []
    first, *rest = client.motion_waits()
    assert len(rest) == 2 * 8 - 1
    assert first >= 0.8 * window  # its first MOTIONINFO was offered the whole window
    assert max(rest) < window / 3, rest  # no SWEEP ever came: no more waiting
    assert elapsed < 2 * window + 10  # before: a window per stone, 16 x 1.5 s


def test_late_sweeper__its_first_late_sweep_earns_the_window_from_the_next_stone(
    start_server: Any, tmp_path: Path
) -> None:
    server = start_server(ends=1, games=2, log_dir=str(tmp_path), sweep_window=1.0)
    client = LateSweeper(server.address[1], "localtest:2", "late", sweep=3.0)
    _play(client)
    server.stop()
    assert len(client.results) == 2 and client.mismatches == []
    # stone 1: silent through its window; stone 2: no window (it had never swept), its SWEEP
    # came late and was not applied; every later stone waits for the SWEEP and applies it
    assert _sweeps_of(tmp_path, "late") == [0.0, 0.0] + [3.0] * (2 * 8 - 2)
